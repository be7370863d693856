package gluelab.lab;

import gluelab.bench.BenchPlan;
import gluelab.bench.BenchResult;
import gluelab.bench.BenchRunner;
import gluelab.calibrate.Calibration;
import gluelab.device.Device;
import gluelab.devlog.Devlog;
import gluelab.progress.Progress;
import gluelab.rank.Ranking;
import gluelab.record.*;

import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Runs bench plans as recorded experiments on one device with one calibration (JMH's Runner to
 * {@link BenchPlan}'s Options): every measurement goes to the devlog as it lands, the record and
 * its rendering are built in a partial folder and published atomically; on failure the partial
 * folder keeps a FAILED marker and the devlog says what happened.
 */
public final class RecordedRuns {
    private static final DateTimeFormatter ID = DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss").withZone(ZoneOffset.UTC);

    /** A published run: its folder, record and measured result. */
    public record Outcome(Path dir, ExperimentRecord record, BenchResult result) {
        /** The record's ranking (as {@code gluelab report} shows it). */
        public Ranking ranking() { return new RunReport(record).ranking(); }
    }

    private final Device device;
    private final Calibration calibration;
    private final Devlog devlog;
    private final Progress progress;

    public RecordedRuns(Device device, Calibration calibration, Devlog devlog, Progress progress) {
        this.device = device;
        this.calibration = calibration;
        this.devlog = devlog;
        this.progress = progress == null ? Progress.NONE : progress;
    }

    public static String newId(String kind) {
        return kind + "-" + ID.format(Instant.now()) + "-" + Long.toHexString(System.nanoTime() & 0xfff);
    }

    /** Measures {@code plan} into a new run under {@code store}; the ranking's stop rule is {@code stopFraction}. */
    public Outcome run(String kind, BenchPlan plan, RecordStore store, double stopFraction) {
        if (!(stopFraction > 0 && stopFraction < 1)) throw new IllegalArgumentException("stop fraction must be in (0, 1), got " + stopFraction);
        Instant started = Instant.now();
        String id = newId(kind);
        Path partial = store.begin(id);
        devlog.note("run " + id + " started: " + kind + " of " + plan.spec().name() + " on " + device.id() + " (" + device.facts().name()
                + "), tokens " + plan.tokens() + ", calibration " + calibration.describe());
        Map<String, String> telemetry = new LinkedHashMap<>();
        device.telemetry().forEach((k, v) -> telemetry.put("before." + k, v));
        try {
            List<String> notes = new ArrayList<>();
            BenchResult result = new BenchRunner(device, calibration, BenchRunner.STDERR_NOTES.andThen(devlog::note).andThen(notes::add))
                    .run(plan, progress, row -> devlog.measurement(row.describe()));
            device.telemetry().forEach((k, v) -> telemetry.put("after." + k, v));
            ExperimentRecord record = new ExperimentRecord(ExperimentRecord.FORMAT, id, kind, plan.spec(), parameters(plan, notes), telemetry,
                    Environment.capture(device.facts(), calibration, started), result.rows(), stopFraction, Instant.now().toString());
            RecordStore.save(partial, record);
            new RunReport(record).render(partial);
            Path dir = store.commit(partial, record);
            devlog.note("run " + id + " finished: " + result.rows().size() + " measurements, record in " + dir);
            return new Outcome(dir, record, result);
        } catch (RuntimeException e) {
            RecordStore.fail(partial, e);
            devlog.deadEnd("run " + id + " FAILED: " + e);
            throw e;
        }
    }

    private Map<String, String> parameters(BenchPlan plan, List<String> notes) {
        Map<String, String> params = new LinkedHashMap<>(plan.parameters(device));
        if (!notes.isEmpty()) params.put("notes", String.join("; ", notes));
        return params;
    }
}
