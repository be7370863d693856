package gluelab.workflow.confirm;

import gluelab.device.Device;
import gluelab.devlog.Devlog;
import gluelab.timing.Noise;
import gluelab.timing.QuietCheck;
import gluelab.workflow.experiment.ExperimentFolder;
import gluelab.workflow.experiment.Step;
import gluelab.files.AtomicFiles;
import gluelab.files.Json;
import gluelab.ops.Replay;
import gluelab.ops.Variant;
import gluelab.progress.Progress;
import gluelab.sweep.WorkerCommand;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.*;
import java.util.concurrent.TimeUnit;

/**
 * Step 07's confirmation: runs a job in {@value #PROCESSES} fresh processes, one after another
 * (new JVMs, so new device contexts), reads the device before and after, and reports per comparison
 * and launch kind the median of the processes within {@link #WITHIN} of the best, with n. A process
 * that crashes, is killed, times out, leaves no result or ran throttled is {@code FAILED} and its
 * numbers are never used (nothing is carried over from an earlier process).
 */
public final class Confirmation {
    public static final int PROCESSES = 3;
    /** Processes within this fraction of the best are kept; also the smallest change counted as a win. */
    public static final double WITHIN = 0.01;
    private static final DateTimeFormatter ID = DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss").withZone(ZoneOffset.UTC);

    /** Sees each process as it starts timing (a test kills one here). */
    public interface Listener {
        void measuring(int index, Process process);
    }

    private final Device device;
    private final WorkerCommand command;
    private Progress progress = Progress.NONE;
    private Duration timeout = Duration.ofMinutes(10);
    private int processes = PROCESSES;
    private Listener listener = (i, p) -> {};

    /** Confirms on {@code device}'s kind; the processes open the job's device themselves. */
    public Confirmation(Device device, WorkerCommand command) {
        this.device = device;
        this.command = command;
    }

    /** With this JVM's runtime and class path for the processes. */
    public static Confirmation on(Device device) { return new Confirmation(device, WorkerCommand.current()); }

    public Confirmation progress(Progress p) { progress = p == null ? Progress.NONE : p; return this; }

    /** How long one process may run before it is killed and marked FAILED. */
    public Confirmation timeout(Duration d) { timeout = d; return this; }

    public Confirmation processes(int n) {
        if (n < 1) throw new IllegalArgumentException("a confirmation needs at least one process, got " + n);
        processes = n;
        return this;
    }

    public Confirmation listener(Listener l) { listener = l; return this; }

    /** Confirms into experiment {@code ex}: the result under {@code steps/07-confirm/}, the devlog, and the step marked done. */
    public ConfirmResult run(ExperimentFolder ex, ConfirmJob job) {
        try (var running = ex.running(Step.CONFIRM)) {
            String id = "confirm-" + ID.format(Instant.now()) + "-" + Long.toHexString(System.nanoTime() & 0xfff);
            Path dir = ex.stepDir(Step.CONFIRM).resolve(id);
            ConfirmResult r = run(id, job, dir, ex.devlog());
            Path file = dir.resolve("confirm.json");
            ex.done(Step.CONFIRM, List.of(), Map.of("confirm", ex.dir().relativize(file).toString()), r.summary());
            return r;
        }
    }

    /** The latest confirmation of experiment {@code ex}. */
    public static ConfirmResult latest(ExperimentFolder ex) { return ConfirmResult.load(ex.file(Step.CONFIRM, "confirm")); }

    /** Confirms {@code job}, keeping the processes' files and the result ({@code confirm.json}) in {@code dir}. */
    public ConfirmResult run(String id, ConfirmJob job, Path dir, Devlog devlog) {
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create " + dir + ": " + e.getMessage(), e);
        }
        Path jobFile = dir.resolve("job.json");
        AtomicFiles.write(jobFile, Json.write(job));
        devlog.note("confirmation " + id + " started: " + job.comparisons() + " in " + processes + " fresh processes on " + job.device());
        QuietCheck before = QuietCheck.of(device, "before", Set.of());
        if (!before.quiet()) devlog.note("confirmation " + id + ": device not quiet before: " + String.join("; ", before.findings()));
        List<ProcessRun> runs = new ArrayList<>();
        for (int i = 1; i <= processes; i++) {
            progress.update("confirm", i - 1, processes, "process " + i + " of " + processes);
            ProcessRun run = runProcess(i, jobFile, dir);
            runs.add(run);
            if (run.ok()) {
                devlog.measurement("confirmation " + id + " process " + i + " (pid " + run.pid() + ", " + run.clocks() + "): "
                        + String.join("; ", run.timed().stream().map(t -> String.format(Locale.ROOT, "%s T=%d %s %s fwd+bwd %.2f us",
                        t.op(), t.tokens(), t.variant().id(), t.replay().id(), t.medianUs())).toList()));
            } else {
                devlog.deadEnd("confirmation " + id + " process " + i + " (pid " + run.pid() + ") FAILED: " + run.reason() + "; its results are not used");
            }
        }
        progress.update("confirm", processes, processes, "done");
        QuietCheck after = QuietCheck.of(device, "after", Set.of());
        ConfirmResult result = aggregate(id, job, before, after, runs, device.capabilities().graphReplay() ? null
                : device.id() + " has no CUDA-graph replay (its capabilities), so the graph row is not measured");
        result.save(dir.resolve("confirm.json"));
        for (String f : result.flags()) devlog.decision("confirmation " + id + ": " + f);
        devlog.note("confirmation " + id + " finished: " + result.summary());
        return result;
    }

    private ProcessRun runProcess(int index, Path jobFile, Path dir) {
        Path out = dir.resolve("process-" + index + ".json");
        Path log = dir.resolve("process-" + index + ".log");
        try {
            Files.deleteIfExists(out);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot clear " + out + ": " + e.getMessage(), e);
        }
        ProcessBuilder pb = new ProcessBuilder(command.command(ConfirmWorker.class.getName(), List.of(jobFile.toString(), out.toString())))
                .redirectErrorStream(false)
                .redirectError(log.toFile());
        pb.environment().putAll(command.env());
        long t0 = System.nanoTime();
        Process p;
        try {
            p = pb.start();
        } catch (IOException e) {
            return ProcessRun.failed(index, -1, 0, "could not start: " + e.getMessage());
        }
        Thread reader = Thread.ofVirtual().start(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                    if (line.strip().equals(ConfirmWorker.MEASURING)) listener.measuring(index, p);
                }
            } catch (IOException ignored) {
                // The process ended; its exit status says how.
            }
        });
        boolean finished;
        try {
            finished = p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new java.util.concurrent.CancellationException("confirmation interrupted; process " + index + " (pid " + p.pid() + ") killed");
        }
        if (!finished) {
            p.destroyForcibly();
            try {
                p.waitFor(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        try {
            reader.join(Duration.ofSeconds(5));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        double seconds = (System.nanoTime() - t0) * 1e-9;
        if (!finished) return ProcessRun.failed(index, p.pid(), seconds, "timed out after " + timeout.toSeconds() + " s (killed)");
        int code = p.exitValue();
        if (code != 0) return ProcessRun.failed(index, p.pid(), seconds, exitReason(code) + lastLine(log));
        if (!Files.isRegularFile(out)) return ProcessRun.failed(index, p.pid(), seconds, "exited 0 without a result" + lastLine(log));
        WorkerOutput w;
        try {
            w = Json.MAPPER.readValue(out.toFile(), WorkerOutput.class);
        } catch (IOException e) {
            return ProcessRun.failed(index, p.pid(), seconds, "unreadable result " + out + ": " + e.getMessage());
        }
        Optional<String> throttled = QuietCheck.throttled(w.after()).or(() -> QuietCheck.throttled(w.before()));
        if (throttled.isPresent()) {
            return new ProcessRun(index, p.pid(), ProcessRun.State.FAILED, throttled.get(), seconds, w.before(), w.after(), w.timed());
        }
        return new ProcessRun(index, p.pid(), ProcessRun.State.OK, "", seconds, w.before(), w.after(), w.timed());
    }

    static String exitReason(int code) {
        return switch (code) {
            case 137 -> "killed (SIGKILL, exit 137)";
            case 143 -> "terminated (SIGTERM, exit 143)";
            case 134 -> "aborted (SIGABRT, exit 134)";
            case 139 -> "crashed (SIGSEGV, exit 139)";
            default -> "crashed (exit " + code + ")";
        };
    }

    private static String lastLine(Path log) {
        try {
            List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8).stream().filter(l -> !l.isBlank() && !l.startsWith("WARNING: Using incubator")).toList();
            return lines.isEmpty() ? "" : ": " + lines.getLast().strip();
        } catch (IOException | UncheckedIOException e) {
            return "";
        }
    }

    /** Per comparison and launch kind, each side's median over the finished processes within {@link #WITHIN} of the best. */
    static ConfirmResult aggregate(String id, ConfirmJob job, QuietCheck before, QuietCheck after, List<ProcessRun> runs, String graphSkipped) {
        List<ProcessRun> ok = runs.stream().filter(ProcessRun::ok).toList();
        List<ConfirmedRow> rows = new ArrayList<>();
        for (Comparison c : job.comparisons()) {
            for (Replay replay : List.of(Replay.DIRECT, Replay.GRAPH)) {
                if (replay == Replay.GRAPH && graphSkipped != null) {
                    rows.add(ConfirmedRow.skipped(c, replay, graphSkipped));
                    continue;
                }
                double[] base = consensus(ok, c, c.baseline(), replay), cand = consensus(ok, c, c.candidate(), replay);
                double ideal = ok.stream().flatMap(p -> p.timed().stream()).filter(t -> t.is(c, c.baseline(), replay)).mapToDouble(Timed::idealUs).findFirst().orElse(Double.NaN);
                rows.add(new ConfirmedRow(c, replay, base[0], (int) base[1], cand[0], (int) cand[1], ok.size(), ideal, null, Noise.of(base[2], cand[2])));
            }
        }
        List<String> flags = new ArrayList<>();
        for (ProcessRun p : runs) if (!p.ok()) flags.add("process " + p.index() + " (pid " + p.pid() + ") FAILED: " + p.reason() + "; not used");
        if (ok.size() < runs.size()) flags.add("confirmed by " + ok.size() + " of " + runs.size() + " processes");
        if (!before.quiet()) flags.add("device not quiet before: " + String.join("; ", before.findings()));
        if (!after.quiet()) flags.add("device not quiet after: " + String.join("; ", after.findings()));
        ConfirmResult partial = new ConfirmResult(ConfirmResult.FORMAT, id, job, before, after, runs, rows, flags, Instant.now().toString());
        for (Comparison c : partial.hostTime()) {
            flags.add("host time: " + c + " wins launched normally (" + fmt(partial.row(c, Replay.DIRECT).orElseThrow().deltaPercent())
                    + "%) but not under CUDA graphs (" + fmt(partial.row(c, Replay.GRAPH).orElseThrow().deltaPercent()) + "%)");
        }
        return new ConfirmResult(ConfirmResult.FORMAT, id, job, before, after, runs, rows, flags, partial.finished());
    }

    /**
     * {median of the processes within WITHIN of the best, how many, their relative noise}: the noise the larger of those
     * processes' own (each measurement's stop-rule noise) and their spread (slowest kept over fastest, minus one); NaN, 0
     * and NaN when none timed it.
     */
    static double[] consensus(List<ProcessRun> ok, Comparison c, Variant v, Replay replay) {
        List<Timed> sorted = ok.stream().flatMap(p -> p.timed().stream()).filter(t -> t.is(c, v, replay)).sorted(Comparator.comparingDouble(Timed::medianUs)).toList();
        if (sorted.isEmpty()) return new double[]{Double.NaN, 0, Double.NaN};
        double best = sorted.getFirst().medianUs();
        List<Timed> kept = sorted.stream().filter(t -> t.medianUs() <= best * (1 + WITHIN)).toList();
        int n = kept.size();
        double median = n % 2 == 1 ? kept.get(n / 2).medianUs() : (kept.get(n / 2 - 1).medianUs() + kept.get(n / 2).medianUs()) / 2;
        double own = kept.stream().mapToDouble(t -> t.measurement().noise()).reduce(0, Noise::of);
        return new double[]{median, n, Noise.of(own, kept.getLast().medianUs() / best - 1)};
    }

    private static String fmt(double v) { return String.format(Locale.ROOT, "%+.1f", v); }
}
