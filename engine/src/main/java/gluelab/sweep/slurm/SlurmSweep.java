package gluelab.sweep.slurm;

import com.fasterxml.jackson.core.type.TypeReference;
import gluelab.progress.Progress;
import gluelab.files.AtomicFiles;
import gluelab.files.Json;
import gluelab.sweep.*;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.*;

/**
 * A sweep run as Slurm job arrays: submit (one shard per array task, arrays no larger than the
 * cluster's MaxArraySize), status from the shard folders, squeue and sacct (or scontrol where the
 * cluster keeps no accounting), wait, and resubmission of the shards that did not finish.
 * The submissions are kept in {@code slurm/submissions.json} in the sweep folder.
 */
public final class SlurmSweep {
    private static final String SUBMISSIONS = "submissions.json";

    private final SweepDir dir;
    private final SlurmCommands slurm;

    public SlurmSweep(SweepDir dir, SlurmCommands slurm) {
        this.dir = dir;
        this.slurm = slurm;
    }

    public SweepDir dir() { return dir; }

    public List<Submission> submissions() {
        Path f = dir.root().resolve("slurm").resolve(SUBMISSIONS);
        if (!Files.isRegularFile(f)) return List.of();
        try {
            return Json.MAPPER.readValue(f.toFile(), new TypeReference<List<Submission>>() {});
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read " + f + ": " + e.getMessage(), e);
        }
    }

    /** Submits every shard not yet done, as one or more job arrays; returns the new submissions. */
    public List<Submission> submit(SlurmOptions options, WorkerCommand worker) {
        List<Shard> todo = dir.shards().stream().filter(s -> dir.fileStatus(s).state() != ShardState.DONE).toList();
        return submit(todo, options, worker);
    }

    /** Submits exactly these shards (a resubmission of the failed or cancelled ones). */
    public List<Submission> submit(List<Shard> shards, SlurmOptions options, WorkerCommand worker) {
        if (shards.isEmpty()) throw new IllegalArgumentException("nothing to submit: every shard of " + dir.root() + " is done");
        int chunk = maxArraySize();
        List<Submission> all = new ArrayList<>(submissions());
        List<Submission> added = new ArrayList<>();
        for (int from = 0; from < shards.size(); from += chunk) {
            List<Integer> indices = shards.subList(from, Math.min(shards.size(), from + chunk)).stream().map(Shard::index).toList();
            int n = all.size();
            Path slurmDir = dir.root().resolve("slurm");
            Path list = slurmDir.resolve("array-" + n + ".shards"), script = slurmDir.resolve("array-" + n + ".sbatch");
            AtomicFiles.write(list, String.join("\n", indices.stream().map(String::valueOf).toList()) + "\n");
            AtomicFiles.write(script, SbatchScript.render(dir, indices.size(), list, options, worker));
            String out = slurm.check("sbatch", "--parsable", "--output=" + SbatchScript.output(dir), script.toAbsolutePath().toString()).trim();
            String jobId = out.split(";")[0].trim();
            if (!jobId.matches("\\d+")) throw new IllegalStateException("sbatch printed '" + out + "' instead of a job id");
            Submission s = new Submission(jobId, indices, script.toString(), options, Instant.now().toString());
            all.add(s);
            added.add(s);
            AtomicFiles.write(slurmDir.resolve(SUBMISSIONS), Json.write(all));
        }
        return added;
    }

    /** Resubmits the shards that failed, were cancelled or got lost, with the last submission's options. */
    public List<Submission> resubmit(List<Shard> only, WorkerCommand worker) {
        List<Submission> subs = submissions();
        if (subs.isEmpty()) throw new IllegalArgumentException(dir.root() + " was never submitted to Slurm; use 'gluelab sweep submit'");
        List<Shard> todo = only;
        if (todo.isEmpty()) {
            todo = status().stream().filter(s -> s.state() == ShardState.FAILED || s.state() == ShardState.CANCELLED || s.state() == ShardState.LOST)
                    .map(ShardStatus::shard).toList();
        }
        return submit(todo, subs.getLast().options(), worker);
    }

    /** Every shard's state: its folder first (DONE, or a FAILED marker), then what Slurm says about its latest task. */
    public List<ShardStatus> status() {
        List<Submission> subs = submissions();
        Map<String, String[]> tasks = schedulerStates(subs);
        List<ShardStatus> out = new ArrayList<>();
        for (Shard s : dir.shards()) {
            ShardStatus file = dir.fileStatus(s);
            String task = null;
            for (Submission sub : subs) {
                String t = sub.taskOf(s.index());
                if (t != null) task = t;
            }
            if (file.state() == ShardState.DONE || task == null) {
                out.add(task == null ? file : new ShardStatus(s, file.state(), "task " + task));
                continue;
            }
            String[] st = tasks.get(task);
            String slurmState = st == null ? null : st[0];
            String where = "task " + task + (slurmState == null ? "" : " " + slurmState + (st[1].isEmpty() ? "" : " (" + st[1] + ")"));
            ShardState state = combine(file, slurmState);
            String why = state == ShardState.LOST ? ": no trace in squeue, sacct or scontrol and no record (cancelled while pending, or purged)"
                    : file.detail().isEmpty() || file.state() == ShardState.RUNNING ? "" : ": " + file.detail();
            out.add(new ShardStatus(s, state, where + why));
        }
        return out;
    }

    private static ShardState combine(ShardStatus file, String slurmState) {
        ShardState live = slurmState == null ? null : switch (slurmState) {
            case "PENDING", "REQUEUED", "SUSPENDED", "CONFIGURING", "RESIZING" -> ShardState.PENDING;
            case "RUNNING", "COMPLETING", "STAGE_OUT", "SIGNALING" -> ShardState.RUNNING;
            default -> null;
        };
        if (live != null) return live;
        if (file.state() == ShardState.FAILED) return ShardState.FAILED;
        // A stopped task's marker says "cancelled"; Slurm knows whether scancel or a time limit, node failure or preemption stopped it.
        if (file.state() == ShardState.CANCELLED) return slurmState == null || slurmState.equals("CANCELLED") ? ShardState.CANCELLED : ShardState.FAILED;
        if (slurmState == null) return ShardState.LOST;
        // COMPLETED without a published record, FAILED, TIMEOUT, NODE_FAIL, OUT_OF_MEMORY, BOOT_FAIL, DEADLINE, PREEMPTED
        return slurmState.equals("CANCELLED") ? ShardState.CANCELLED : ShardState.FAILED;
    }

    /** Task id ("12_3") to {state, reason or exit code}, from squeue, then sacct, else scontrol. */
    Map<String, String[]> schedulerStates(List<Submission> subs) {
        Map<String, String[]> out = new HashMap<>();
        if (subs.isEmpty()) return out;
        String ids = String.join(",", subs.stream().map(Submission::jobId).toList());
        SlurmCommands.Output sacct = slurm.run("sacct", "-n", "-P", "-X", "-j", ids, "-o", "JobID,State,ExitCode");
        if (sacct.exitCode() == 0 && !sacct.stderr().contains("disabled")) {
            for (String line : sacct.stdout().lines().toList()) {
                String[] p = line.split("\\|", -1);
                if (p.length >= 3 && p[0].matches("\\d+_\\d+")) out.put(p[0], new String[]{p[1].split(" ")[0], "exit " + p[2]});
            }
        } else {
            for (Submission s : subs) {
                SlurmCommands.Output sc = slurm.run("scontrol", "-o", "show", "job", s.jobId());
                if (sc.exitCode() != 0) continue;
                for (String line : sc.stdout().lines().toList()) {
                    Map<String, String> kv = fields(line);
                    String task = kv.get("ArrayTaskId");
                    if (task == null || !task.matches("\\d+")) continue;
                    out.put(kv.get("ArrayJobId") + "_" + task, new String[]{kv.getOrDefault("JobState", "?"), "exit " + kv.getOrDefault("ExitCode", "?")});
                }
            }
        }
        SlurmCommands.Output sq = slurm.run("squeue", "-h", "-r", "-j", ids, "-o", "%i|%T|%r");
        if (sq.exitCode() == 0) {
            for (String line : sq.stdout().lines().toList()) {
                String[] p = line.split("\\|", -1);
                if (p.length >= 3 && p[0].matches("\\d+_\\d+")) out.put(p[0], new String[]{p[1], p[2].equals("None") ? "" : p[2]});
            }
        }
        return out;
    }

    private static Map<String, String> fields(String line) {
        Map<String, String> kv = new HashMap<>();
        for (String tok : line.trim().split("\\s+")) {
            int eq = tok.indexOf('=');
            if (eq > 0) kv.put(tok.substring(0, eq), tok.substring(eq + 1));
        }
        return kv;
    }

    /** Polls until no shard is pending or running, or {@code timeout} passes; returns the last status. */
    public List<ShardStatus> await(Duration timeout, Duration poll, Progress progress) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            List<ShardStatus> st = status();
            long finished = st.stream().filter(s -> s.state().finished()).count();
            long running = st.stream().filter(s -> s.state() == ShardState.RUNNING).count();
            progress.update("sweep", finished, st.size(), running + " running, " + st.stream().filter(s -> s.state() == ShardState.PENDING).count() + " pending");
            if (finished == st.size() || st.stream().noneMatch(s -> s.state() == ShardState.PENDING || s.state() == ShardState.RUNNING)) return st;
            if (System.nanoTime() > deadline) return st;
            try {
                Thread.sleep(poll.toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new java.util.concurrent.CancellationException("stopped waiting; the jobs keep running");
            }
        }
    }

    /** The cluster's MaxArraySize (array task ids must be below it); 1001, Slurm's default, when unknown. */
    int maxArraySize() {
        SlurmCommands.Output o = slurm.run("scontrol", "show", "config");
        if (o.exitCode() == 0) {
            for (String line : o.stdout().lines().toList()) {
                if (line.trim().startsWith("MaxArraySize")) {
                    try {
                        return Math.max(1, Integer.parseInt(line.substring(line.indexOf('=') + 1).trim()));
                    } catch (NumberFormatException ignored) {
                        break;
                    }
                }
            }
        }
        return 1001;
    }
}
