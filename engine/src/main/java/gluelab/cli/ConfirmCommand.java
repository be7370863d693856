package gluelab.cli;

import gluelab.workflow.confirm.Comparison;
import gluelab.workflow.confirm.ConfirmResult;
import gluelab.workflow.experiment.ExperimentFolder;
import gluelab.workflow.experiment.Step;
import gluelab.workflow.fix.FixResult;
import gluelab.lab.Gluelab;
import gluelab.progress.ConsoleProgress;
import gluelab.timing.TimingConfig;
import picocli.CommandLine.*;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

@Command(name = "confirm", mixinStandardHelpOptions = true,
        description = {"Workflow step 07: confirm comparisons in fresh processes (3 by default) on a quiet device, into an experiment.",
                "Each comparison is an op's whole fwd+bwd step, baseline vs candidate variant, launched normally and as a CUDA-graph replay (GPU)."})
public final class ConfirmCommand implements Callable<Integer> {
    @Option(names = "--experiment", required = true, description = "experiment name (its plan gives the model)") String experiment;

    @Option(names = "--experiments-root", description = EnvironmentHelp.EXPERIMENTS_ROOT) Path root;

    @Option(names = "--compare", split = ",", paramLabel = "OP:TOKENS:BASELINE:CANDIDATE",
            description = "comparisons, e.g. rmsnorm:4096:eager:fused") List<String> compare;

    @Option(names = "--from-fix", description = "confirm the catalogue variants that won in step 05 (05-fix)") boolean fromFix;

    @Option(names = "--processes", defaultValue = "3", description = "fresh processes (default: ${DEFAULT-VALUE})") int processes;

    @Option(names = "--timeout", defaultValue = "600", description = "seconds one process may run before it is killed and marked FAILED (default: ${DEFAULT-VALUE})") int timeout;

    @Option(names = "--quick", description = "short timing (smoke runs, CI)") boolean quick;

    @Mixin DeviceOptions deviceOptions;

    @Override public Integer call() {
        if (timeout < 1) throw new IllegalArgumentException("--timeout must be at least 1 second, got " + timeout);
        ExperimentFolder ex = root == null ? ExperimentFolder.open(experiment) : ExperimentFolder.open(experiment, root);
        List<Comparison> comparisons = new ArrayList<>();
        if (compare != null) for (String c : compare) comparisons.add(parse(c));
        if (compare != null && !compare.isEmpty()) {
            // Checked before any process starts: later steps read the plan's token counts.
            List<Long> planned = ex.plan().tokens();
            for (int i = 0; i < compare.size(); i++) {
                long t = comparisons.get(i).tokens();
                if (!planned.contains(t)) throw new IllegalArgumentException("--compare '" + compare.get(i) + "': experiment '" + experiment
                        + "' plans token counts " + planned + "; confirm at one of them, or start an experiment whose plan has " + t);
            }
        }
        if (fromFix) comparisons.addAll(Comparison.fromFixes(FixResult.load(ex.file(Step.FIX, "fix"))));
        if (comparisons.isEmpty()) throw new IllegalArgumentException("nothing to confirm: give --compare OP:TOKENS:BASELINE:CANDIDATE or --from-fix");
        ex.plan();
        try (Gluelab lab = Gluelab.open(deviceOptions.device)) {
            lab.progress(new ConsoleProgress(System.err));
            var job = lab.confirmJob(ex, comparisons, quick ? TimingConfig.quick() : TimingConfig.defaults());
            ConfirmResult r = gluelab.workflow.confirm.Confirmation.on(lab.device()).progress(lab.progress()).processes(processes)
                    .timeout(Duration.ofSeconds(timeout)).run(ex, job);
            System.out.println(r.processTable().print(100));
            System.out.println(r.table().print(100));
            for (String f : r.flags()) System.out.println("! " + f);
            System.out.println(r.summary());
            System.out.println("saved: " + ex.file(Step.CONFIRM, "confirm"));
            return r.processesOk() == 0 ? 1 : 0;
        }
    }

    static Comparison parse(String text) {
        String[] p = text.split(":");
        if (p.length != 4) throw new IllegalArgumentException("--compare '" + text + "': expected OP:TOKENS:BASELINE:CANDIDATE, e.g. rmsnorm:4096:eager:fused");
        long tokens;
        try {
            tokens = gluelab.bench.Tokens.parse(p[1]).getFirst();
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("--compare '" + text + "': tokens '" + p[1] + "': " + e.getMessage(), e);
        }
        return Comparison.of(p[0], tokens, p[2], p[3]);
    }
}
