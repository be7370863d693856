package gluelab.workflow.confirm;

import gluelab.device.Device;
import gluelab.devlog.Devlog;
import gluelab.model.ModelSpec;
import gluelab.ops.Replay;
import gluelab.progress.Progress;
import gluelab.tensor.TensorSpec;
import gluelab.timing.Noise;
import gluelab.timing.QuietCheck;
import gluelab.timing.TimingConfig;
import gluelab.torch.ModelEntry;
import gluelab.torch.ModelFix;
import gluelab.torch.ModelVariantTiming;
import gluelab.torch.PythonChoice;
import gluelab.torch.TorchBridge;
import gluelab.torch.TorchException;
import gluelab.torch.TorchSide;
import gluelab.workflow.experiment.ExperimentFolder;
import gluelab.workflow.experiment.ExperimentPlan;
import gluelab.workflow.experiment.ModelSubject;
import gluelab.workflow.experiment.Step;
import gluelab.workflow.model.ModelFixResult;
import gluelab.workflow.model.ModelPlan;

import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.*;
import java.util.function.Consumer;

/**
 * Step 07 on the analyst's model: the fixes and the model as written, timed fwd+bwd at every planned
 * token count in {@value #PROCESSES} fresh Python processes through the torch bridge, one after
 * another (each a new interpreter, CUDA context and compile), with the device read before and after
 * each, launched normally and (on CUDA) as a CUDA-graph replay of the whole step. A process that is
 * killed, crashes or ran throttled is FAILED and its numbers are never used.
 */
public final class ModelConfirmation {
    public static final int PROCESSES = Confirmation.PROCESSES;
    public static final String FILE = "model-confirm";
    private static final DateTimeFormatter ID = DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss").withZone(ZoneOffset.UTC);

    /** Sees each Python process as it starts timing (a test kills one here). */
    public interface Listener {
        void measuring(int index, long pid);
    }

    private final Device device;
    private final PythonChoice python;
    private Progress progress = Progress.NONE;
    private int processes = PROCESSES;
    /** How the flag of a result saved before the last process starts. */
    public static final String PARTIAL = "partial: ";
    private Listener listener = (i, p) -> {};
    private gluelab.torch.StepLimits limits;

    /** Confirms on {@code device} with the Python {@code python} (each process starts it afresh). */
    public ModelConfirmation(Device device, PythonChoice python) {
        this.device = device;
        this.python = python;
    }

    public ModelConfirmation progress(Progress p) { progress = p == null ? Progress.NONE : p; return this; }

    public ModelConfirmation processes(int n) {
        if (n < 1) throw new IllegalArgumentException("a confirmation needs at least one process, got " + n);
        processes = n;
        return this;
    }

    public ModelConfirmation listener(Listener l) { listener = l; return this; }

    /** The step limits of the model's code in each process (default: those of the timing's measurement timeout, as step 05's). */
    public ModelConfirmation limits(gluelab.torch.StepLimits l) { limits = l; return this; }

    /** Confirms {@code fixes} of the experiment's model into {@code steps/07-confirm/model-confirm-ID/}, the devlog, and the step marked done. */
    public ModelConfirmResult run(ExperimentFolder ex, ModelSpec spec, List<ModelFix> fixes, TimingConfig timing) {
        return run(ex, spec, fixes, ex.plan().tokens(), Map.of(), timing);
    }

    /**
     * Confirms {@code fixes} (some or all of {@code fix}'s) at the token counts step 05 measured; a token
     * count it did not measure (the step stopped part-way, or its rows failed) is named in the result's
     * flags and the devlog, not timed.
     */
    public ModelConfirmResult run(ExperimentFolder ex, ModelSpec spec, ModelFixResult fix, List<ModelFix> fixes, TimingConfig timing) {
        try (var running = ex.running(Step.CONFIRM)) {
            List<Long> planned = ex.plan().tokens();
            Map<Long, String> notMeasured = fix.notMeasured(planned);
            List<Long> tokens = planned.stream().filter(t -> !notMeasured.containsKey(t)).toList();
            if (tokens.isEmpty()) throw new IllegalArgumentException("step 05 measured no fix of experiment '" + ex.name() + "' at any planned token count ("
                    + notMeasured.entrySet().stream().map(e -> "T=" + e.getKey() + ": " + e.getValue()).toList() + "): run step 05 again before confirming");
            return run(ex, spec, fixes, tokens, notMeasured, timing);
        }
    }

    private ModelConfirmResult run(ExperimentFolder ex, ModelSpec spec, List<ModelFix> fixes, List<Long> tokens, Map<Long, String> notConfirmed, TimingConfig timing) {
        if (fixes.isEmpty()) throw new IllegalArgumentException("no fixes to confirm: run step 05 (gluelab model fix NAME --fix ...) first");
        ExperimentPlan plan = ex.plan();
        ModelSubject s = plan.modelSubject();
        Map<Long, List<TensorSpec>> inputsAt = new LinkedHashMap<>();
        for (long t : tokens) inputsAt.put(t, ModelPlan.inputs(s, spec, t));
        String id = "model-confirm-" + ID.format(Instant.now()) + "-" + Long.toHexString(System.nanoTime() & 0xfff);
        Path dir = ex.stepDir(Step.CONFIRM).resolve(id);
        for (var e : notConfirmed.entrySet()) ex.devlog().decision("confirmation " + id + ": T=" + e.getKey() + " not confirmed: step 05 measured no fix there (" + e.getValue() + ")");
        Path file = dir.resolve(FILE + ".json");
        // Saved after every process, so a run cut short (a killed CLI, a time limit) keeps the processes that finished, as unconfirmed rows.
        ModelConfirmResult r = withNotConfirmed(run(id, ModelPlan.entry(ex), inputsAt, fixes, timing, ex.devlog(),
                sofar -> withNotConfirmed(sofar, notConfirmed).save(file)), notConfirmed);
        r.save(file);
        Map<String, String> files = Map.of(FILE, ex.dir().relativize(file).toString());
        if (r.nothingMeasured()) ex.failed(Step.CONFIRM, files, "nothing measured: " + r.summary());
        else ex.done(Step.CONFIRM, List.of(), files, r.summary());
        return r;
    }

    /**
     * What a run of step 07 stopped now leaves, as the stop line says it: "2 of 3 processes kept in
     * steps/07-confirm/model-confirm-ID/model-confirm.json, flagged partial (not a confirmation)", or "no process had finished".
     * Each run writes a folder of its own, so an earlier finished confirmation is never touched; the newest folder written
     * since {@code since} (this process's start) is this run's.
     */
    public static gluelab.workflow.model.KeptSoFar keptSoFar(ExperimentFolder ex, Instant since, int planned) {
        Path steps = ex.dir().resolve(ExperimentFolder.STEPS_DIR).resolve(Step.CONFIRM.notebook());
        try (var dirs = java.nio.file.Files.list(steps)) {
            Optional<Path> mine = dirs.filter(d -> d.getFileName().toString().startsWith(FILE + "-")).map(d -> d.resolve(FILE + ".json"))
                    .filter(f -> {
                        try {
                            return java.nio.file.Files.isRegularFile(f) && !java.nio.file.Files.getLastModifiedTime(f).toInstant().isBefore(since);
                        } catch (java.io.IOException e) {
                            return false;
                        }
                    }).max(Comparator.comparing(f -> f.getParent().getFileName().toString()));
            if (mine.isPresent()) {
                int ran = ModelConfirmResult.load(mine.get()).processes().size();
                return new gluelab.workflow.model.KeptSoFar(ran + " of " + planned + " processes kept in " + ex.dir().relativize(mine.get())
                        + ", flagged partial (not a confirmation)", false);
            }
        } catch (java.io.IOException | RuntimeException e) {
            // no folder of step 07, or one that does not read: nothing of this run to name
        }
        return new gluelab.workflow.model.KeptSoFar("no process had finished", false);
    }

    /** {@code r}, the result of the first {@code ran} of {@code planned} processes, flagged as a confirmation that has not finished. */
    static ModelConfirmResult partial(ModelConfirmResult r, int ran, int planned) {
        List<String> flags = new ArrayList<>(r.flags());
        flags.add(PARTIAL + ran + " of " + planned + " processes had run when this was saved; the confirmation did not finish");
        return new ModelConfirmResult(r.format(), r.id(), r.model(), r.fixes(), r.tokens(), r.before(), r.after(), r.processes(), r.rows(), flags, r.finished());
    }

    /** {@code r} with a flag per planned token count it did not time because step 05 measured no fix there. */
    static ModelConfirmResult withNotConfirmed(ModelConfirmResult r, Map<Long, String> notConfirmed) {
        if (notConfirmed.isEmpty()) return r;
        List<String> flags = new ArrayList<>(r.flags());
        notConfirmed.forEach((t, why) -> flags.add("T=" + t + ModelConfirmResult.NOT_CONFIRMED + "step 05 measured no fix there (" + why + ")"));
        return new ModelConfirmResult(r.format(), r.id(), r.model(), r.fixes(), r.tokens(), r.before(), r.after(), r.processes(), r.rows(), flags, r.finished());
    }

    ModelConfirmResult run(String id, ModelEntry entry, Map<Long, List<TensorSpec>> inputsAt, List<ModelFix> fixes, TimingConfig timing, Devlog devlog) {
        return run(id, entry, inputsAt, fixes, timing, devlog, sofar -> {});
    }

    /** As above; {@code sofar} sees the result of the processes run so far after each but the last, flagged as partial. */
    ModelConfirmResult run(String id, ModelEntry entry, Map<Long, List<TensorSpec>> inputsAt, List<ModelFix> fixes, TimingConfig timing, Devlog devlog,
                           Consumer<ModelConfirmResult> sofar) {
        devlog.note("confirmation " + id + " started: " + fixes.stream().map(ModelFix::name).toList() + " of " + entry.shortName() + " in " + processes
                + " fresh Python processes on " + device.id());
        QuietCheck before = QuietCheck.of(device, "before", Set.of());
        if (!before.quiet()) devlog.note("confirmation " + id + ": device not quiet before: " + String.join("; ", before.findings()));
        List<ModelConfirmResult.PythonRun> runs = new ArrayList<>();
        for (int i = 1; i <= processes; i++) {
            progress.update("confirm", i - 1, processes, "process " + i + " of " + processes);
            ModelConfirmResult.PythonRun run = runProcess(i, entry, inputsAt, fixes, timing);
            runs.add(run);
            if (run.ok()) {
                devlog.measurement("confirmation " + id + " process " + i + " (pid " + run.pid() + ", " + run.clocks() + "): " + String.join("; ",
                        run.timing().rows().stream().filter(x -> !x.failed()).map(x -> String.format(Locale.ROOT, "%s T=%d %s fwd+bwd %.1f us", x.variant(), x.tokens(),
                                x.replay().launch(), x.us())).toList()));
            } else {
                devlog.deadEnd("confirmation " + id + " process " + i + " (pid " + run.pid() + ") FAILED: " + run.reason() + "; its results are not used");
            }
            if (i < processes) sofar.accept(partial(aggregate(id, entry.shortName(), fixes, List.copyOf(inputsAt.keySet()), before, before, runs,
                    device.capabilities().graphReplay() ? null : device.id() + " has no CUDA-graph replay (its capabilities), so the graph rows are not measured"), i, processes));
        }
        progress.update("confirm", processes, processes, "done");
        QuietCheck after = QuietCheck.of(device, "after", Set.of());
        ModelConfirmResult r = aggregate(id, entry.shortName(), fixes, List.copyOf(inputsAt.keySet()), before, after, runs,
                device.capabilities().graphReplay() ? null : device.id() + " has no CUDA-graph replay (its capabilities), so the graph rows are not measured");
        for (String f : r.flags()) devlog.decision("confirmation " + id + ": " + f);
        devlog.note("confirmation " + id + " finished: " + r.summary());
        return r;
    }

    private ModelConfirmResult.PythonRun runProcess(int index, ModelEntry entry, Map<Long, List<TensorSpec>> inputsAt, List<ModelFix> fixes, TimingConfig timing) {
        Map<String, String> before = readings();
        long t0 = System.nanoTime();
        long pid = -1;
        try (TorchSide torch = TorchSide.start(python, device)) {
            TorchBridge bridge = torch.bridge();
            long p = pid = bridge.pid();
            Progress seen = (task, done, total, detail) -> {
                if (task.equals("measuring")) listener.measuring(index, p);
                progress.update(task, done, total, detail);
            };
            // no restart: a process that dies or is ended for its silence (hung in C code) is FAILED, none of its numbers used
            ModelVariantTiming timed = ModelVariantTiming.run(bridge, entry, inputsAt, fixes, true, timing, torch.flushBytes(),
                    limits != null ? limits : gluelab.torch.StepLimits.forMeasurement(timing.stop().timeoutSeconds()), false, seen);
            Map<String, String> after = readings();
            double seconds = (System.nanoTime() - t0) * 1e-9;
            Optional<String> throttled = QuietCheck.throttled(after).or(() -> QuietCheck.throttled(before));
            if (throttled.isPresent()) return new ModelConfirmResult.PythonRun(index, pid, ProcessRun.State.FAILED, throttled.get(), seconds, before, after, null);
            return new ModelConfirmResult.PythonRun(index, pid, ProcessRun.State.OK, "", seconds, before, after, timed);
        } catch (TorchException e) {
            String reason = e.getMessage().lines().findFirst().orElse("the torch harness failed");
            return new ModelConfirmResult.PythonRun(index, pid, ProcessRun.State.FAILED, reason, (System.nanoTime() - t0) * 1e-9, before, Map.of(), null);
        }
    }

    /** The device's readings (clocks, clock-event reasons, other processes: a GPU's) and the host's load average, as a process starts and ends. */
    private Map<String, String> readings() {
        Map<String, String> r = new LinkedHashMap<>(QuietCheck.deviceReadings(device));
        double load = gluelab.device.HostLoad.oneMinute();
        if (load >= 0) r.put("host.load_average_1m", String.format(Locale.ROOT, "%.2f", load));
        return r;
    }

    /** Per fix, token count and launch kind, each side's median over the finished processes within {@link Confirmation#WITHIN} of the best. */
    static ModelConfirmResult aggregate(String id, String model, List<ModelFix> fixes, List<Long> tokens, QuietCheck before, QuietCheck after,
                                        List<ModelConfirmResult.PythonRun> runs, String graphSkipped) {
        List<ModelConfirmResult.PythonRun> ok = runs.stream().filter(ModelConfirmResult.PythonRun::ok).toList();
        List<ModelConfirmResult.Row> rows = new ArrayList<>();
        for (ModelFix f : fixes) {
            for (long t : tokens) {
                for (Replay replay : List.of(Replay.DIRECT, Replay.GRAPH)) {
                    if (replay == Replay.GRAPH && graphSkipped != null) {
                        rows.add(new ModelConfirmResult.Row(f.name(), t, replay, Double.NaN, 0, Double.NaN, 0, ok.size(), graphSkipped, ""));
                        continue;
                    }
                    List<ModelVariantTiming.Row> base = timed(ok, ModelVariantTiming.BASELINE, t, replay), fixed = timed(ok, f.name(), t, replay);
                    Side b = consensus(base), c = consensus(fixed);
                    rows.add(new ModelConfirmResult.Row(f.name(), t, replay, b.us(), b.n(), c.us(), c.n(), ok.size(), "",
                            caveat(base, fixed, ok, t, f.name(), replay, before, after), Noise.of(b.noise(), c.noise())));
                }
            }
        }
        List<String> flags = new ArrayList<>();
        for (ModelConfirmResult.PythonRun p : runs) if (!p.ok()) flags.add("process " + p.index() + " (pid " + p.pid() + ") FAILED: " + p.reason() + "; not used");
        if (ok.size() < runs.size()) flags.add("confirmed by " + ok.size() + " of " + runs.size() + " processes");
        if (!before.quiet()) flags.add("device not quiet before: " + String.join("; ", before.findings()));
        if (!after.quiet()) flags.add("device not quiet after: " + String.join("; ", after.findings()));
        ModelConfirmResult partial = new ModelConfirmResult(ModelConfirmResult.FORMAT, id, model, fixes, tokens, before, after, runs, rows, flags, Instant.now().toString());
        for (String h : partial.hostTime()) flags.add("host time: " + h + " wins launched normally but not under CUDA graphs");
        return new ModelConfirmResult(ModelConfirmResult.FORMAT, id, model, fixes, tokens, before, after, runs, rows, flags, partial.finished());
    }

    private static List<ModelVariantTiming.Row> timed(List<ModelConfirmResult.PythonRun> ok, String variant, long tokens, Replay replay) {
        return ok.stream().flatMap(p -> p.timing().row(variant, tokens, replay).stream()).filter(r -> !r.failed()).toList();
    }

    /**
     * One side of a row: the median of the processes within {@link Confirmation#WITHIN} of the best, how many, and its
     * relative noise: the larger of those processes' own (each measurement's stop-rule noise) and their spread (slowest
     * kept over fastest, minus one). NaN, 0 and NaN when no process timed it.
     */
    record Side(double us, int n, double noise) {}

    static Side consensus(List<ModelVariantTiming.Row> rows) {
        List<ModelVariantTiming.Row> sorted = rows.stream().sorted(java.util.Comparator.comparingDouble(ModelVariantTiming.Row::us)).toList();
        if (sorted.isEmpty()) return new Side(Double.NaN, 0, Double.NaN);
        double best = sorted.getFirst().us();
        List<ModelVariantTiming.Row> kept = sorted.stream().filter(r -> r.us() <= best * (1 + Confirmation.WITHIN)).toList();
        int n = kept.size();
        double median = n % 2 == 1 ? kept.get(n / 2).us() : (kept.get(n / 2 - 1).us() + kept.get(n / 2).us()) / 2;
        double own = kept.stream().mapToDouble(r -> r.run().noise()).reduce(0, Noise::of);
        return new Side(median, n, Noise.of(own, kept.getLast().us() / best - 1));
    }

    /** What weakens a row: noisy measurements, fewer than three processes, a variant that failed in a process, a device not quiet. */
    private static String caveat(List<ModelVariantTiming.Row> base, List<ModelVariantTiming.Row> fixed, List<ModelConfirmResult.PythonRun> ok, long t, String fix,
                                 Replay replay, QuietCheck before, QuietCheck after) {
        List<String> why = new ArrayList<>();
        List<ModelVariantTiming.Row> all = new ArrayList<>(base);
        all.addAll(fixed);
        long noisy = all.stream().filter(r -> r.run().noisy().isPresent()).count();
        if (noisy > 0) why.add("noisy: " + noisy + " of " + all.size() + " measurements (" + all.stream().flatMap(r -> r.run().noisy().stream()).findFirst().orElse("") + ")");
        ok.stream().flatMap(p -> p.timing().row(fix, t, replay).stream()).filter(ModelVariantTiming.Row::failed).findFirst()
                .ifPresent(r -> why.add("the fix failed in a process: " + r.error()));
        int n = Math.min(base.size(), fixed.size());
        if (n < ModelConfirmResult.CONFIRMING) why.add("unconfirmed: " + n + " of " + ModelConfirmResult.CONFIRMING + " processes");
        if (!before.quiet() || !after.quiet()) why.add("device not quiet");
        return String.join("; ", why);
    }
}
