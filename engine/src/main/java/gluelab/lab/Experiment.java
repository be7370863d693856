package gluelab.lab;

import gluelab.bench.BenchPlan;
import gluelab.bench.BenchResult;
import gluelab.bench.BenchRunner;
import gluelab.calibrate.Calibration;
import gluelab.device.Device;
import gluelab.devlog.Devlog;
import gluelab.progress.Progress;
import gluelab.record.*;

import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Runs a bench plan as a recorded experiment: every measurement goes to the devlog as it lands,
 * the record and its rendering are built in a partial folder and published atomically; on
 * failure the partial folder keeps a FAILED marker and the devlog says what happened.
 */
public final class Experiment {
    private static final DateTimeFormatter ID = DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss").withZone(ZoneOffset.UTC);

    public record Outcome(Path dir, ExperimentRecord record, BenchResult result) {}

    private Experiment() {}

    public static String newId(String kind) {
        return kind + "-" + ID.format(Instant.now()) + "-" + Long.toHexString(System.nanoTime() & 0xfff);
    }

    public static Outcome run(String kind, BenchPlan plan, Device device, Calibration cal, RecordStore store, Devlog devlog,
                              Progress progress, double stopFraction) {
        String id = newId(kind);
        Path partial = store.begin(id);
        devlog.note("run " + id + " started: " + kind + " of " + plan.spec().name() + " on " + device.id() + " (" + device.facts().name()
                + "), tokens " + plan.tokens() + ", calibration " + cal.describe());
        Map<String, String> telemetry = new LinkedHashMap<>();
        device.telemetry().forEach((k, v) -> telemetry.put("before." + k, v));
        try {
            BenchResult result = new BenchRunner(device, cal).run(plan, progress, row -> devlog.measurement(String.format(
                    "%s %s %s T=%d: median %.1f us (min %.1f, rel stdev %.2f%%, n=%d, %s), ideal %.1f us, %.1f%% of floor, %d kernels",
                    row.op(), row.pass(), row.variant(), row.tokens(), row.measuredUs(), row.measurement().summary().min() * 1e6,
                    100 * row.measurement().summary().relStdev(), row.measurement().summary().count(),
                    row.measurement().stopReason().name().toLowerCase(), row.idealUs(), row.percentOfFloor(), row.measurement().kernels())));
            Map<String, String> params = new LinkedHashMap<>();
            params.put("model", plan.spec().name());
            params.put("ops", String.join(",", plan.ops().stream().map(o -> o.name()).toList()));
            params.put("tokens", String.join(",", plan.tokens().stream().map(String::valueOf).toList()));
            params.put("variants", String.join(",", plan.variants().stream().map(v -> v.id()).toList()));
            params.put("passes", String.join(",", plan.passes().stream().map(p -> p.id()).toList()));
            params.put("dtype", plan.dtype().id());
            params.put("mode", plan.timing().mode().id());
            params.put("warmupSeconds", Double.toString(plan.timing().warmupSeconds()));
            params.put("minSamples", Integer.toString(plan.timing().stop().minSamples()));
            params.put("minSeconds", Double.toString(plan.timing().stop().minSeconds()));
            params.put("maxRelStdev", Double.toString(plan.timing().stop().maxRelStdev()));
            params.put("timeoutSeconds", Double.toString(plan.timing().stop().timeoutSeconds()));
            params.put("checkTokens", Long.toString(plan.checkTokens()));
            params.put("device", device.id());
            device.telemetry().forEach((k, v) -> telemetry.put("after." + k, v));
            ExperimentRecord record = new ExperimentRecord(ExperimentRecord.FORMAT, id, kind, plan.spec(), params, telemetry,
                    Environment.capture(device.facts(), cal), result.rows(), stopFraction, Instant.now().toString());
            RecordStore.save(partial, record);
            RunReport.render(record, partial);
            Path dir = store.commit(partial, record);
            devlog.note("run " + id + " finished: " + result.rows().size() + " measurements, record in " + dir);
            return new Outcome(dir, record, result);
        } catch (RuntimeException e) {
            RecordStore.fail(partial, e);
            devlog.deadEnd("run " + id + " FAILED: " + e);
            throw e;
        }
    }
}
