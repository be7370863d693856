package gluelab.record;

import java.util.List;
import java.util.Map;

/**
 * A self-describing run: what was asked (parameters), where it ran (environment), and every
 * measurement with raw samples. Tables, rankings and charts are derived from it, never stored
 * instead of it, so loading a record rebuilds them without running anything.
 */
public record ExperimentRecord(int formatVersion, String id, String kind, gluelab.model.ModelSpec spec, Map<String, String> parameters,
                               Map<String, String> telemetry, Environment environment, List<Row> rows, double stopFraction,
                               String finishedAt) {
    /** 2: rows keyed by {@link gluelab.ops.MeasureKey} (replay a field, not a variant suffix), measurements with noise and stop rule. */
    public static final int FORMAT = 2;

    public ExperimentRecord {
        parameters = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(parameters));
        rows = List.copyOf(rows);
        telemetry = telemetry == null ? Map.of() : java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(telemetry));
    }

    public String model() { return spec.name(); }
}
