package gluelab.sweep.slurm;

import gluelab.sweep.SweepDir;
import gluelab.sweep.WorkerCommand;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The batch script of one job array: array task k runs the shard on line k+1 of its shard list,
 * with the runtime that submitted it (the bundle's, on a cluster), so nodes need no Java of their own.
 * {@code exec} hands the task's signals (scancel's SIGTERM) straight to gluelab, which marks the shard.
 */
public final class SbatchScript {
    private SbatchScript() {}

    public static String render(SweepDir dir, int tasks, Path shardList, SlurmOptions o, WorkerCommand worker) {
        List<String> lines = new ArrayList<>();
        lines.add("#!/bin/bash");
        lines.add("#SBATCH --job-name=gluelab-" + dir.id());
        lines.add("#SBATCH --array=0-" + (tasks - 1) + "%" + o.throttle());
        lines.add("#SBATCH --ntasks=1");
        lines.add("#SBATCH --cpus-per-task=" + o.cpusPerTask());
        if (o.gpusPerTask() > 0) lines.add("#SBATCH --gpus-per-task=" + o.gpusPerTask());
        if (o.partition() != null) lines.add("#SBATCH --partition=" + o.partition());
        if (o.time() != null) lines.add("#SBATCH --time=" + o.time());
        for (String extra : o.extraSbatchArgs()) lines.add("#SBATCH " + extra);
        lines.add("# Written by 'gluelab sweep submit': one shard of " + dir.root().toAbsolutePath() + " per array task.");
        lines.add("# Submitted with --output=" + output(dir) + " (given to sbatch, as a path may hold spaces).");
        lines.add("set -euo pipefail");
        lines.add("shard=$(sed -n \"$((SLURM_ARRAY_TASK_ID + 1))p\" " + quote(shardList.toAbsolutePath().toString()) + ")");
        lines.add("if [ -z \"$shard\" ]; then echo \"gluelab: no shard for array task $SLURM_ARRAY_TASK_ID\" >&2; exit 2; fi");
        List<String> cmd = worker.command(List.of("shard", dir.root().toAbsolutePath().toString(), "--index", "SHARD", "--device", o.device()));
        StringBuilder exec = new StringBuilder("exec");
        for (String c : cmd) exec.append(' ').append(c.equals("SHARD") ? "\"$shard\"" : quote(c));
        lines.add(exec.toString());
        return String.join("\n", lines) + "\n";
    }

    /** Where each array task's stdout and stderr go; passed to sbatch as an argument, not a #SBATCH line. */
    public static String output(SweepDir dir) { return dir.logs().toAbsolutePath().resolve("slurm-%A_%a.out").toString(); }

    static String quote(String s) { return "'" + s.replace("'", "'\\''") + "'"; }
}
