package gluelab.record;

import gluelab.model.ModelSpec;

import java.time.Instant;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A self-describing run: what was asked (parameters), where it ran (environment), and every
 * measurement with raw samples. Tables, rankings and charts are derived from it, never stored
 * instead of it, so loading a record rebuilds them without running anything. Code builds one
 * through {@link #builder}; the canonical constructor is what JSON loading uses.
 */
public record ExperimentRecord(int formatVersion, String id, RunKind kind, ModelSpec spec, Map<String, String> parameters,
                               Map<String, String> telemetry, Environment environment, List<Row> rows, double stopFraction,
                               String finishedAt) {
    /** 2: rows keyed by {@link gluelab.ops.MeasureKey} (replay a field, not a variant suffix), measurements with noise and stop rule. */
    public static final int FORMAT = 2;

    public ExperimentRecord {
        parameters = Collections.unmodifiableMap(new LinkedHashMap<>(parameters));
        rows = List.copyOf(rows);
        telemetry = telemetry == null ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(telemetry));
    }

    public String model() { return spec.name(); }

    /** A record of run {@code id}; what is not set is empty, finished now, with stop fraction 0.01. */
    public static Builder builder(String id, RunKind kind, ModelSpec spec) { return new Builder(id, kind, spec); }

    /** This record's fields in a builder, to derive a changed copy. */
    public Builder toBuilder() {
        return builder(id, kind, spec).parameters(parameters).telemetry(telemetry).environment(environment).rows(rows)
                .stopFraction(stopFraction).finishedAt(finishedAt);
    }

    public static final class Builder {
        private final String id;
        private final RunKind kind;
        private final ModelSpec spec;
        private Map<String, String> parameters = Map.of(), telemetry = Map.of();
        private Environment environment;
        private List<Row> rows = List.of();
        private double stopFraction = 0.01;
        private String finishedAt;

        private Builder(String id, RunKind kind, ModelSpec spec) {
            if (id == null || id.isBlank()) throw new IllegalArgumentException("a record needs an id");
            if (kind == null) throw new IllegalArgumentException("record " + id + " needs a run kind");
            if (spec == null) throw new IllegalArgumentException("record " + id + " needs a model spec");
            this.id = id;
            this.kind = kind;
            this.spec = spec;
        }

        public Builder parameters(Map<String, String> p) { parameters = p; return this; }

        public Builder telemetry(Map<String, String> t) { telemetry = t; return this; }

        public Builder environment(Environment e) { environment = e; return this; }

        public Builder rows(List<Row> r) { rows = r; return this; }

        public Builder stopFraction(double f) { stopFraction = f; return this; }

        public Builder finishedAt(String instant) { finishedAt = instant; return this; }

        public ExperimentRecord build() {
            if (environment == null) throw new IllegalArgumentException("record " + id + " needs the environment it ran in");
            return new ExperimentRecord(FORMAT, id, kind, spec, parameters, telemetry, environment, rows, stopFraction,
                    finishedAt != null ? finishedAt : Instant.now().toString());
        }
    }
}
