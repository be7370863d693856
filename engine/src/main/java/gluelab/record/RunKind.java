package gluelab.record;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;

import java.util.Arrays;
import java.util.Locale;

/**
 * What made a record, as records hold it ({@code "kind": "demo"}). A record written by a version
 * that knew a kind this one does not still loads, as {@link #OTHER}: the kind is never read to
 * decide anything, so losing its spelling loses no measurement.
 */
public enum RunKind {
    /** {@code gluelab demo}. */
    DEMO,
    /** {@code gluelab bench}, {@code %bench} recorded, or the facade's {@code record(outDir, devlog)}. */
    BENCH,
    /** Workflow step 01 ({@code lab.bench(..).record(ex, Step.BASELINES)}). */
    BASELINES,
    /** Workflow step 05's bench rows. */
    FIX,
    /** One shard of a sweep. */
    SHARD,
    /** Shards merged into one experiment. */
    SWEEP,
    /** A kind this version does not know (from an older or newer record). */
    OTHER;

    @JsonValue public String id() { return name().toLowerCase(Locale.ROOT); }

    /** As records spell it, wherever a kind is shown. */
    @Override public String toString() { return id(); }

    /** The kind named {@code id}; fails naming the known kinds. */
    public static RunKind parse(String id) {
        for (RunKind k : values()) if (k != OTHER && k.id().equals(id)) return k;
        throw new IllegalArgumentException("unknown run kind '" + id + "', expected one of "
                + Arrays.stream(values()).filter(k -> k != OTHER).map(RunKind::id).toList());
    }

    /** The kind a record holds; an unknown one loads as {@link #OTHER}. */
    @JsonCreator public static RunKind fromRecord(String id) {
        for (RunKind k : values()) if (k.id().equals(id)) return k;
        return OTHER;
    }
}
