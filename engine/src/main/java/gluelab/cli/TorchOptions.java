package gluelab.cli;

import gluelab.bench.BenchPlan;
import gluelab.bench.BenchResult;
import gluelab.calibrate.Calibration;
import gluelab.device.Device;
import gluelab.progress.Progress;
import gluelab.torch.Skipped;
import gluelab.torch.TorchSide;
import gluelab.torch.TorchVariant;
import picocli.CommandLine.Option;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** bench's torch options: {@code --with torch} adds torch rows timed in the user's Python. */
public final class TorchOptions {
    @Option(names = "--with", paramLabel = "torch", description = "torch: add torch-eager, torch-compile and torch-compile-graph rows, timed by gluelab's harness in --python")
    String with;

    @Option(names = "--python", description = "the Python with torch for --with torch (default: GLUELAB_PYTHON, else the active virtual environment's, else the first of python3 on PATH and /usr/bin/python3 that imports torch)")
    String python;

    @Option(names = "--compile-mode", description = "torch.compile mode: default, reduce-overhead, max-autotune, max-autotune-no-cudagraphs (default: " + DEFAULT_COMPILE_MODE + ")")
    String compileMode;

    @Option(names = "--torch-variants", description = "torch rows to add (default: " + DEFAULT_VARIANTS + ")")
    String variants;

    private static final String DEFAULT_COMPILE_MODE = "default", DEFAULT_VARIANTS = "torch-eager,torch-compile,torch-compile-graph";

    /** Checks the options and starts the torch side (before any measuring), or null without --with. */
    TorchSide start(Device device) {
        if (with == null) {
            // Without --with torch no torch row is timed, so these would be ignored without a word.
            if (compileMode != null) throw new IllegalArgumentException("--compile-mode '" + compileMode + "' needs --with torch");
            if (variants != null) throw new IllegalArgumentException("--torch-variants '" + variants + "' needs --with torch");
            return null;
        }
        if (compileMode == null) compileMode = DEFAULT_COMPILE_MODE;
        if (variants == null) variants = DEFAULT_VARIANTS;
        if (!with.equals("torch")) throw new IllegalArgumentException("--with takes 'torch', got '" + with + "'");
        TorchSide.checkMode(compileMode);
        torchVariants();
        return TorchSide.start(gluelab.torch.PythonFinder.standard().find(python, gluelab.torch.PythonSource.FLAG), device);
    }

    private List<TorchVariant> torchVariants() { return Arrays.stream(variants.split(",")).map(TorchVariant::parse).toList(); }

    /** Adds the torch rows and prints what only they have (versions, side-by-side table, compile costs, skips); returns all rows. */
    BenchResult addRows(TorchSide torch, BenchPlan plan, Calibration cal, BenchResult gluelab, Progress progress, boolean json) {
        if (torch == null) return gluelab;
        TorchSide.Combined c = torch.bench(plan, cal, gluelab, torchVariants(), compileMode, progress);
        java.io.PrintStream out = json ? System.err : System.out;
        // With --json the rows go to stdout; what only the torch side has goes to stderr.
        out.println("torch side: " + torch.versions().describe());
        out.println(c.table().printAll());
        if (c.torch().precompile().graphs() > 0) out.println(c.torch().precompile().describe());
        if (!c.torch().compiles().isEmpty()) out.println(c.compiles().printAll());
        Map<String, List<String>> byReason = new LinkedHashMap<>();
        for (Skipped s : c.torch().skipped()) byReason.computeIfAbsent(s.variant() + ": " + s.reason(), k -> new ArrayList<>()).add(s.subject());
        byReason.forEach((why, subjects) -> out.println("skipped " + why + " (" + String.join(", ", subjects) + ")"));
        return c.result();
    }
}
