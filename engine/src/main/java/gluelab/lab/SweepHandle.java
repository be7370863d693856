package gluelab.lab;

import gluelab.progress.Progress;
import gluelab.sweep.*;
import gluelab.sweep.slurm.SlurmCommands;
import gluelab.sweep.slurm.SlurmSweep;
import tech.tablesaw.api.Table;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * A running or submitted sweep as a notebook holds it: {@code status()} is a table of shards,
 * {@code toString()} the counts, {@code await()} blocks with progress, {@code collect()} merges what
 * finished into one experiment per model. Local sweeps run on a background thread; Slurm sweeps are
 * read from the scheduler each time.
 */
public final class SweepHandle {
    private final SweepDir dir;
    private final SlurmSweep slurm;
    private final CompletableFuture<List<ShardStatus>> local;

    private SweepHandle(SweepDir dir, SlurmSweep slurm, CompletableFuture<List<ShardStatus>> local) {
        this.dir = dir;
        this.slurm = slurm;
        this.local = local;
    }

    /** Starts a local sweep (one worker process per device) in the background. */
    public static SweepHandle startLocal(SweepDir dir, List<String> devices, WorkerCommand worker, Progress progress) {
        LocalSweep sweep = new LocalSweep(dir, devices, worker, progress);
        CompletableFuture<List<ShardStatus>> f = new CompletableFuture<>();
        Thread.ofPlatform().daemon().name("sweep-" + dir.id()).start(() -> {
            try {
                f.complete(sweep.run());
            } catch (Throwable t) {
                f.completeExceptionally(t);
            }
        });
        return new SweepHandle(dir, null, f);
    }

    /** A sweep from its folder: submitted to Slurm (read from the scheduler), or run here earlier. */
    public static SweepHandle at(SweepDir dir, SlurmCommands commands) {
        return new SweepHandle(dir, new SlurmSweep(dir, commands), null);
    }

    public Path dir() { return dir.root(); }

    public List<ShardStatus> statuses() { return slurm != null ? slurm.status() : dir.fileStatuses(); }

    public Table status() { return StatusTable.table(statuses()); }

    /** True when no shard is waiting, pending or running. */
    public boolean finished() {
        if (local != null) return local.isDone();
        return statuses().stream().allMatch(s -> s.state().finished());
    }

    /** Blocks until the sweep finishes (or {@code timeout}), reporting progress; returns this. */
    public SweepHandle await(Duration timeout, Progress progress) {
        if (slurm != null) {
            slurm.await(timeout, Duration.ofSeconds(5), progress);
        } else {
            try {
                local.get(timeout.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
            } catch (java.util.concurrent.TimeoutException e) {
                return this;
            } catch (java.util.concurrent.ExecutionException e) {
                throw e.getCause() instanceof RuntimeException r ? r : new IllegalStateException(e.getCause());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new java.util.concurrent.CancellationException("stopped waiting; the sweep goes on");
            }
        }
        return this;
    }

    /** Merges the finished shards into {@code merged/<model>/} of the sweep folder; the result names what was left out. */
    public Merge.Result collect(boolean allowMixed) {
        Merge.Result result = Merge.of(List.of(dir.root()), allowMixed, d -> statuses());
        MergeOutput.publish(result, dir.merged(), RunReport.RENDERER);
        return result;
    }

    @Override public String toString() {
        return "sweep " + dir.id() + " (" + dir.root() + "): " + StatusTable.counts(statuses());
    }
}
