package gluelab.cli;

import gluelab.experiment.ExperimentFolder;
import picocli.CommandLine.*;

import java.nio.file.Path;
import java.util.concurrent.Callable;

@Command(name = "experiment", mixinStandardHelpOptions = true,
        description = "Show an experiment folder: its plan and which workflow steps (00-11) have run, with their records and summaries.")
public final class ExperimentCommand implements Callable<Integer> {
    @Parameters(paramLabel = "NAME", description = "experiment name") String name;

    @Option(names = "--experiments-root", description = "folder of experiments (default: $GLUELAB_EXPERIMENTS, else out/experiments)") Path root;

    @Override public Integer call() {
        Path base = root == null ? ExperimentFolder.defaultRoot() : root;
        if (!java.nio.file.Files.isDirectory(base.resolve(name))) throw new IllegalArgumentException("no experiment '" + name + "' in " + base.toAbsolutePath());
        ExperimentFolder ex = ExperimentFolder.open(name, base);
        System.out.println(ex);
        if (ex.hasPlan()) {
            var p = ex.plan();
            System.out.println("plan: model " + p.model() + ", tokens " + p.tokens() + ", stop fraction " + p.stopFraction() + ", device " + p.device() + ", created " + p.created());
        }
        System.out.println(ex.status().print(100));
        return 0;
    }
}
