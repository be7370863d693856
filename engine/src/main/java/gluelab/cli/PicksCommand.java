package gluelab.cli;

import gluelab.backend.cuda.KernelsHash;
import gluelab.device.ShippedPicks;
import gluelab.files.AtomicFiles;
import gluelab.files.Json;
import gluelab.files.Locations;
import gluelab.tune.PicksExport;
import picocli.CommandLine.*;

import java.nio.file.Path;
import java.util.concurrent.Callable;

@Command(name = "picks", mixinStandardHelpOptions = true, subcommands = PicksCommand.Export.class,
        description = "The shipped launch-config picks (tuned on a reference GPU, used where this machine has no pick of its own): whether they match these kernels.")
public final class PicksCommand implements Callable<Integer> {
    @Option(names = "--arch", defaultValue = "sm_90", description = "the GPU architecture (default: ${DEFAULT-VALUE}, H100 and H200)")
    String arch;

    @Override public Integer call() {
        var hashes = KernelsHash.byOp();
        ShippedPicks shipped = ShippedPicks.forKernels(arch, hashes);
        System.out.println(shipped.status());
        hashes.forEach((op, h) -> System.out.println("  " + op + " kernels@" + h));
        shipped.file().ifPresent(f -> {
            System.out.println("  compiler " + f.compiler());
            System.out.println("  regenerate: " + f.command());
        });
        System.out.println("this machine's picks (they override shipped ones): " + Locations.cacheDir().resolve("tune"));
        return 0;
    }

    @Command(name = "export", mixinStandardHelpOptions = true,
            description = "Write this machine's tuned picks of the fused kernels (for --arch, tuned on these kernel sources) as a shipped-picks file.")
    static final class Export implements Callable<Integer> {
        @ParentCommand PicksCommand parent;

        @Option(names = "--out", required = true, paramLabel = "FILE", description = "the file to write (kernels/src/main/picks/<arch>.json ships with gluelab)")
        Path out;

        @Option(names = "--tuned-on", required = true, paramLabel = "TEXT", description = "the GPU, driver and CUDA the picks were tuned on, e.g. 'NVIDIA H200, driver 580.95, CUDA 13.0'")
        String tunedOn;

        @Option(names = "--command", paramLabel = "TEXT", defaultValue = "bench/gpu-kit/shipped_picks.sh on the GPU host, then gluelab picks export",
                description = "how to make the file again (default: ${DEFAULT-VALUE})")
        String command;

        @Option(names = "--merge", paramLabel = "FILE", description = "a shipped-picks file to merge into (usually the one --out names): its picks of"
                + " shapes not tuned here are kept where their kernels' sources are unchanged, so one changed family can be re-tuned alone")
        Path merge;

        @Override public Integer call() {
            PathOptions.fileInExistingFolder(out, "--out");
            java.util.Optional<ShippedPicks.File> into = java.util.Optional.empty();
            if (merge != null) {
                try {
                    into = java.util.Optional.of(ShippedPicks.read(java.nio.file.Files.readAllBytes(merge), merge.toString()));
                } catch (java.io.IOException e) {
                    throw new IllegalArgumentException("--merge " + merge + ": cannot read: " + e.getMessage());
                }
            }
            PicksExport.Result r = PicksExport.gather(Locations.cacheDir().resolve("tune"), parent.arch, KernelsHash.byOp(), tunedOn, command, into);
            AtomicFiles.write(out, Json.write(r.file()) + "\n");
            System.out.println(out + ": " + r.summary());
            return 0;
        }
    }
}
