package gluelab.cli;

import gluelab.lab.RunReport;
import gluelab.record.ExperimentRecord;
import gluelab.sweep.Merge;
import gluelab.sweep.MergeOutput;
import gluelab.sweep.ShardStatus;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;

@Command(name = "merge", mixinStandardHelpOptions = true,
        description = "Merge shard records (sweep folders, shard folders or run folders) into one experiment per model: same tables, ranking, charts and findings as one run. Refuses shards from different devices, code versions, calibrations or conditions unless --allow-mixed; names missing and FAILED shards (exit 1 when any).")
public final class MergeCommand implements Callable<Integer> {
    @Parameters(arity = "1..*", paramLabel = "DIR", description = "folders holding shard records") List<Path> dirs;

    @Option(names = "--out", description = "where the merged run folders go (default: DIR/merged for one sweep folder, else ./merged)") Path out;

    @Option(names = "--allow-mixed", description = "merge shards from different devices, code versions, calibrations or conditions (the record says so)")
    boolean allowMixed;

    @Override public Integer call() {
        PathOptions.folder(out, "--out");
        Merge.Result result = Merge.of(dirs, allowMixed);
        Path target = out != null ? out : dirs.size() == 1 && gluelab.sweep.SweepDir.isSweep(dirs.getFirst())
                ? gluelab.sweep.SweepDir.open(dirs.getFirst()).merged() : Path.of("merged");
        return print(result, MergeOutput.publish(result, target, RunReport.RENDERER));
    }

    /** Prints each merged experiment's ranking and what was left out; 0 when complete, 1 otherwise. */
    static int print(Merge.Result result, List<Path> dirs) {
        for (int i = 0; i < dirs.size(); i++) {
            ExperimentRecord r = result.experiments().get(i);
            System.out.println(new RunReport(r).ranking().table().printAll());
            System.out.println("merged " + r.parameters().get("shards") + " shard(s) of " + r.model() + " into " + dirs.get(i));
        }
        for (String m : result.mixed()) System.out.println("mixed (allowed): " + m);
        for (ShardStatus s : result.notMerged()) System.out.println("not merged: " + s.name() + " " + s.state() + (s.detail().isEmpty() ? "" : ": " + s.detail()));
        for (String u : result.unloadable()) System.out.println("not merged: " + u);
        return result.complete() ? 0 : 1;
    }
}
