package gluelab.bench;

import gluelab.calibrate.Calibration;
import gluelab.device.Device;
import gluelab.devlog.Devlog;
import gluelab.progress.Progress;
import gluelab.rank.Ranking;
import gluelab.record.Environment;
import gluelab.record.ExperimentRecord;
import gluelab.record.RecordPublisher;
import gluelab.record.Row;
import gluelab.record.RunKind;
import gluelab.tune.Tuner;
import gluelab.tune.TuneResult;
import gluelab.tune.Tuning;

import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * The one runner (JMH's {@code Runner} to {@link BenchPlan}'s Options): tune where the plan says
 * so, measure, add a peer's rows, and, when asked, record and publish. {@code gluelab bench},
 * {@code demo}, {@code %bench}, the notebook facade and a sweep shard all run plans through here,
 * so they differ only in the plan and options they build.
 */
public final class BenchSession {
    private static final DateTimeFormatter ID = DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss").withZone(ZoneOffset.UTC);

    /** How a run is kept: where it is published, its kind, its stop rule, its id (null: a fresh one) and parameters beyond the plan's. */
    public record Recording(RecordPublisher publisher, RunKind kind, double stopFraction, String id, Map<String, String> extraParameters) {
        public Recording {
            if (publisher == null) throw new IllegalArgumentException("a recording needs a publisher");
            if (kind == null) throw new IllegalArgumentException("a recording needs a run kind");
            if (!(stopFraction > 0 && stopFraction < 1)) throw new IllegalArgumentException("stop fraction must be in (0, 1), got " + stopFraction);
            extraParameters = extraParameters == null ? Map.of() : Map.copyOf(new LinkedHashMap<>(extraParameters));
        }

        public Recording(RecordPublisher publisher, RunKind kind, double stopFraction) { this(publisher, kind, stopFraction, null, Map.of()); }

        /** This recording under a given id with {@code parameters} added to the plan's (a shard's identity). */
        public Recording as(String runId, Map<String, String> parameters) {
            return new Recording(publisher, kind, stopFraction, runId, new LinkedHashMap<>(parameters));
        }
    }

    /** A run's outcome: its rows, and where it was recorded (null folder and record when it was not). */
    public record Outcome(BenchResult result, Path dir, ExperimentRecord record) {
        /** The record's ranking under its stop rule (as {@code gluelab report} shows it). */
        public Ranking ranking() {
            if (record == null) throw new IllegalStateException("this run was not recorded; rank its rows with Ranking.of");
            return gluelab.report.RecordRanking.of(record);
        }
    }

    private final Device device;
    private final Calibration calibration;
    private Progress progress = Progress.NONE;
    private Devlog devlog;
    private PeerRows peer;
    private Consumer<Row> onRow = row -> {};
    private Tuner.Options tuneOptions = Tuner.Options.defaults();
    private boolean tuneEveryDevice;
    private final List<TuneResult> tuned = new ArrayList<>();
    /** The device rows of the run in progress, as they land: what a stopped run keeps. */
    private final List<Row> soFar = new java.util.concurrent.CopyOnWriteArrayList<>();
    /** The recorded run in progress, to save its partial record when it is stopped; null when none. */
    private volatile InFlight inFlight;

    private record InFlight(String id, BenchPlan plan, Recording how, Instant started) {}

    private BenchSession(Device device, Calibration calibration) {
        this.device = device;
        this.calibration = calibration;
    }

    /** A runner on {@code device} with its floors from {@code calibration}. */
    public static BenchSession on(Device device, Calibration calibration) { return new BenchSession(device, calibration); }

    public BenchSession progress(Progress p) { progress = p == null ? Progress.NONE : p; return this; }

    /** Logs each measurement as it lands, the runner's notes, and a recorded run's start, end or failure. */
    public BenchSession devlog(Devlog d) { devlog = d; return this; }

    /** Adds a peer's rows after the device's (torch's); null for none. */
    public BenchSession peer(PeerRows p) { peer = p; return this; }

    /** Hands each device row to {@code c} as soon as it is measured. */
    public BenchSession onRow(Consumer<Row> c) { onRow = c == null ? row -> {} : c; return this; }

    /** Tune where the plan tunes also on a device whose space does not tune unasked (the CPU: bench --tune). */
    public BenchSession tuneEveryDevice(boolean t) { tuneEveryDevice = t; return this; }

    /** The tuner's options where the plan tunes (the defaults unless set). */
    public BenchSession tuneOptions(Tuner.Options o) { tuneOptions = o; return this; }

    /** What the last run tuned (empty when its plan does not tune, or the device has no tuner). */
    public List<TuneResult> tuned() { return List.copyOf(tuned); }

    public static String newId(RunKind kind) {
        return kind.id() + "-" + ID.format(Instant.now()) + "-" + Long.toHexString(System.nanoTime() & 0xfff);
    }

    /** The device rows measured so far by the run in progress (or the last run). */
    public List<Row> measuredSoFar() { return List.copyOf(soFar); }

    /**
     * Saves what the recorded run in progress measured so far as its partial record, marked FAILED
     * with {@code why} (a run stopped by a signal); the partial folder, or null when no recorded run
     * is in progress or nothing was measured yet.
     */
    public Path keepPartial(String why) {
        InFlight f = inFlight;
        List<Row> rows = measuredSoFar();
        if (f == null || rows.isEmpty()) return null;
        Map<String, String> params = new LinkedHashMap<>(f.plan().parameters(device));
        params.putAll(f.how().extraParameters());
        params.put("notes", why + " after " + rows.size() + " measurements; the rest were not measured");
        ExperimentRecord partial = ExperimentRecord.builder(f.id(), f.how().kind(), f.plan().spec()).parameters(params)
                .environment(Environment.capture(device.facts(), calibration, f.started())).rows(rows).stopFraction(f.how().stopFraction()).build();
        return f.how().publisher().keepPartial(partial, why);
    }

    /** Tune (where the plan says so) -> measure -> peer rows. */
    public BenchResult run(BenchPlan plan) { return measure(plan, new ArrayList<>()); }

    /** Tune -> measure -> peer rows -> record -> render, published whole (FAILED marker and devlog dead end on failure). */
    public Outcome record(BenchPlan plan, Recording how) {
        String id = how.id() != null ? how.id() : newId(how.kind());
        Instant started = Instant.now();
        log(d -> d.note("run " + id + " started: " + how.kind().id() + " of " + plan.spec().name() + " on " + device.id() + " ("
                + device.facts().name() + "), tokens " + plan.tokens() + ", calibration " + calibration.describe()));
        BenchResult[] measured = new BenchResult[1];
        inFlight = new InFlight(id, plan, how, started);
        try {
            var published = how.publisher().publish(id, () -> {
                Map<String, String> telemetry = new LinkedHashMap<>();
                device.telemetry().forEach((k, v) -> telemetry.put("before." + k, v));
                List<String> notes = new ArrayList<>();
                measured[0] = measure(plan, notes);
                device.telemetry().forEach((k, v) -> telemetry.put("after." + k, v));
                Map<String, String> params = new LinkedHashMap<>(plan.parameters(device));
                params.putAll(how.extraParameters());
                if (!notes.isEmpty()) params.put("notes", String.join("; ", notes));
                return ExperimentRecord.builder(id, how.kind(), plan.spec()).parameters(params).telemetry(telemetry)
                        .environment(Environment.capture(device.facts(), calibration, started)).rows(measured[0].rows())
                        .stopFraction(how.stopFraction()).build();
            });
            log(d -> d.note("run " + id + " finished: " + published.record().rows().size() + " measurements, record in " + published.dir()));
            return new Outcome(measured[0], published.dir(), published.record());
        } catch (RuntimeException e) {
            log(d -> d.deadEnd("run " + id + " FAILED: " + e));
            throw e;
        } finally {
            inFlight = null;
        }
    }

    private BenchResult measure(BenchPlan plan, List<String> notes) {
        tuned.clear();
        soFar.clear();
        plan.checkRuns(device);
        if (plan.tune() && Tuning.tunesBeforeBench(device, tuneEveryDevice)) {
            // The hand kernels (fused) and the generated regions (region) that the plan measures; cached picks cost nothing.
            progress.update("tune", 0, 1, "the plan's fused kernels and regions (cached picks are reused)");
            tuned.addAll(tune(device, plan, tuneOptions, progress));
            progress.update("tune", 1, 1, tuned.size() + " tunings");
        }
        Consumer<String> noteSink = BenchRunner.STDERR_NOTES.andThen(notes::add);
        if (devlog != null) noteSink = noteSink.andThen(devlog::note);
        Consumer<Row> rows = devlog == null ? onRow : onRow.andThen(row -> devlog.measurement(row.describe()));
        rows = rows.andThen(soFar::add);
        BenchResult own = new BenchRunner(device, calibration, noteSink).run(plan, progress, rows);
        return peer == null ? own : peer.add(plan, calibration, own, progress);
    }

    /** Tunes the plan's variants that have a tunable space (fused: the hand kernels; region: the generated regions); {@code gluelab tune} runs this alone. */
    public static List<TuneResult> tune(Device device, BenchPlan plan, Tuner.Options options, Progress progress) {
        return Tuning.run(device, plan.spec(), plan.ops(), plan.passes(), plan.tokens(), plan.dtype(), plan.variants(), options, progress);
    }

    private void log(Consumer<Devlog> entry) { if (devlog != null) entry.accept(devlog); }
}
