package gluelab.cli;

import gluelab.bench.Tokens;
import gluelab.workflow.experiment.ExperimentFolder;
import gluelab.lab.Gluelab;
import gluelab.rank.Ranking;
import picocli.CommandLine.*;

import java.nio.file.Path;
import java.util.concurrent.Callable;

@Command(name = "experiment", mixinStandardHelpOptions = true,
        description = {"Show an experiment folder: its plan and which workflow steps (00-11) have run, with their records and summaries.",
                "With --model and --tokens, write its plan first (step 00; a plan already there must match)."})
public final class ExperimentCommand implements Callable<Integer> {
    @Parameters(paramLabel = "NAME", description = "experiment name") String name;

    @Option(names = "--experiments-root", description = "folder of experiments (default: $GLUELAB_EXPERIMENTS, else out/experiments)") Path root;

    @Option(names = "--model", description = "step 00: the plan's model spec") String model;

    @Option(names = "--tokens", description = "step 00: the plan's token counts, e.g. 2k,4k,16k") String tokens;

    @Option(names = "--stop", defaultValue = "" + Ranking.DEFAULT_STOP_FRACTION,
            description = "step 00: stop when the remaining gap is under this fraction of the layer (default: ${DEFAULT-VALUE})") double stop;

    @Mixin DeviceOptions deviceOptions;

    @Override public Integer call() {
        Path base = root == null ? ExperimentFolder.defaultRoot() : root;
        if ((model == null) != (tokens == null)) throw new IllegalArgumentException("give both --model and --tokens to write a plan");
        if (model == null && !java.nio.file.Files.isDirectory(base.resolve(name)))
            throw new IllegalArgumentException("no experiment '" + name + "' in " + base.toAbsolutePath() + " (give --model and --tokens to start one)"
                    + elsewhere(name));
        long[] t = model == null ? null : Tokens.parse(tokens).stream().mapToLong(Long::longValue).toArray();
        boolean existed = java.nio.file.Files.isDirectory(base.resolve(name));
        ExperimentFolder ex = ExperimentFolder.open(name, base);
        if (model != null) {
            try (Gluelab lab = Gluelab.open(deviceOptions.device)) {
                lab.plan(ex, model, stop, t);
            } catch (RuntimeException e) {
                // A plan that could not be written must not leave an empty experiment behind to be mistaken for one.
                if (!existed) removeIfEmpty(base.resolve(name));
                throw e;
            }
        }
        System.out.println(ex);
        if (ex.hasPlan()) {
            var p = ex.plan();
            System.out.println("plan: model " + p.model() + ", tokens " + p.tokens() + ", stop fraction " + p.stopFraction() + ", device " + p.device() + ", created " + p.created());
        }
        System.out.println(ex.status().print(100));
        return 0;
    }

    /** Removes the folders {@code folder} holds and then itself, where none holds a file; a file keeps it all. */
    private static void removeIfEmpty(Path folder) {
        try (var paths = java.nio.file.Files.walk(folder)) {
            for (Path p : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
                if (!java.nio.file.Files.isDirectory(p)) return;
                java.nio.file.Files.delete(p);
            }
        } catch (java.io.IOException | java.io.UncheckedIOException ignored) {
            // Left as it is: the error being reported matters more.
        }
    }

    /** Where else the experiment may be: a kernel started outside any repository keeps them beside its notebooks. */
    static String elsewhere(String name) {
        Path nb = Path.of("notebooks").resolve(ExperimentFolder.DEFAULT_ROOT).resolve(name);
        if (java.nio.file.Files.isDirectory(nb)) return "; there is one in " + nb
                + " (--experiments-root notebooks/" + ExperimentFolder.DEFAULT_ROOT + ", or set " + ExperimentFolder.HOME_ENV + " for both)";
        return "; set " + ExperimentFolder.HOME_ENV + " to keep the CLI's and the notebooks' experiments in one place";
    }
}
