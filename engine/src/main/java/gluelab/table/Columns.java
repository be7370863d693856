package gluelab.table;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * The column vocabulary: every column more than one table shows, each with one name, its unit and
 * what it means. A table's own columns (a trace's {@code A_share_pct}) are declared beside it the
 * same way, with {@link Column}'s factories.
 */
public final class Columns {
    private Columns() {}

    public static final Column OP = Column.text("op", "the glue op, by its catalogue name");
    public static final Column PASS = Column.text("pass", "fwd or bwd");
    public static final Column VARIANT = Column.text("variant", "how the op ran: eager (the framework's kernels), fused (one kernel), a torch variant");
    public static final Column REPLAY = Column.text("replay", "direct launches, or a captured graph replayed");
    public static final Column TOKENS = Column.count("tokens", "rows of the op's input (tokens in the batch)");
    public static final Column MEDIAN = Column.time("median", "the median time per call over the samples");
    public static final Column MIN = Column.time("min", "the fastest sample");
    public static final Column MEASURED = Column.time("measured", "the measured median time per call");
    public static final Column IDEAL = Column.time("ideal", "the floor: bytes moved at the calibrated bandwidth, or FLOPs at peak, whichever is longer");
    public static final Column GAP = Column.time("gap", "measured minus ideal");
    public static final Column PCT_OF_FLOOR = Column.percent("pct_of_floor", "ideal / measured x 100: 100 is at the floor");
    public static final Column GB_PER_S = new Column("GB_per_s", Unit.GB_PER_S, "bytes the floor counts over the measured time");
    public static final Column NOISE_PCT = Column.percent("noise_pct", "the median's noise the stop rule judged (its confidence half-width over the median)")
            .rounded(Rounding.significant(2));
    public static final Column REL_STDEV_PCT = Column.percent("rel_stdev_pct", "the samples' standard deviation over their mean").rounded(Rounding.significant(2));
    public static final Column SAMPLES = Column.count("samples", "timed samples behind the median");
    public static final Column KERNELS = Column.count("kernels", "kernel launches per call");
    public static final Column PEAK_MEM = Column.bytes("peak_mem", "the device memory the call held at its peak");
    public static final Column BYTES_MOVED = Column.bytes("moved", "bytes the lowering reads and writes");
    public static final Column FLOOR_BYTES = Column.bytes("floor_bytes", "bytes the floor counts: each input read once, each output written once");
    public static final Column GFLOP = Column.number("GFLOP", "floating-point work, 10^9 operations");
    public static final Column BOUND = Column.text("bound", "what sets the floor: memory or compute");
    public static final Column STOP = Column.text("stop", "why sampling stopped: converged, max samples, timeout");
    public static final Column SPEEDUP = Column.ratio("speedup", "eager over fused: above 1 the fused kernel is faster");
    public static final Column SHARE_PCT = Column.percent("share_pct", "share of the layer's time").rounded(Rounding.places(2));
    public static final Column COUNT = Column.count("count", "times the op runs per layer");
    public static final Column VERDICT = Column.text("verdict", "what the row's figures say, judged against the tolerance beside it");
    public static final Column TENSOR = Column.text("tensor", "the output or gradient compared");
    public static final Column REL_L2_VS_FP64 = Column.number("rel_l2_vs_fp64", "relative L2 error against the fp64 reference");
    public static final Column MAX_ULP_VS_FP64 = Column.number("max_ulp_vs_fp64", "largest error against fp64, in units of the output dtype's last place")
            .rounded(Rounding.places(2));
    public static final Column REL_L2_VS_EAGER = Column.number("rel_l2_vs_eager", "relative L2 difference from the eager variant");
    public static final Column MAX_ULP_VS_EAGER = Column.number("max_ulp_vs_eager", "largest difference from the eager variant, in ulps")
            .rounded(Rounding.places(2));
    public static final Column REL_L2_LIMIT = Column.number("rel_l2_limit", "the tolerance: the largest relative L2 error a verdict of ok allows");
    public static final Column NOISY = Column.caveat("noisy",
            "why the row's figure is not to be trusted as it stands (noise over the bound, too few samples, stopped on the timeout); empty when sound");
    public static final Column CAVEAT = Column.caveat("caveat",
            "what limits the row's claim (noisy, not confirmed, device not quiet, timed out); empty when sound");
    public static final Column ERROR = Column.caveat("error", "why it failed; empty when it did not");
    public static final Column FINISHED = new Column("finished", Unit.TIMESTAMP, "when it finished, to the second (UTC)");

    /** Every column of the vocabulary. */
    public static final List<Column> ALL = List.of(OP, PASS, VARIANT, REPLAY, TOKENS, MEDIAN, MIN, MEASURED, IDEAL, GAP, PCT_OF_FLOOR, GB_PER_S,
            NOISE_PCT, REL_STDEV_PCT, SAMPLES, KERNELS, PEAK_MEM, BYTES_MOVED, FLOOR_BYTES, GFLOP, BOUND, STOP, SPEEDUP, SHARE_PCT, COUNT, VERDICT,
            TENSOR, REL_L2_VS_FP64, MAX_ULP_VS_FP64, REL_L2_VS_EAGER, MAX_ULP_VS_EAGER, REL_L2_LIMIT, NOISY, CAVEAT, ERROR, FINISHED);

    private static final Map<String, Column> BY_NAME = ALL.stream().collect(Collectors.toUnmodifiableMap(Column::name, Function.identity()));

    public static Optional<Column> named(String name) { return Optional.ofNullable(BY_NAME.get(name)); }

    /** True for a shown column that carries a row's caveat: a caveat column of the vocabulary or of a table ({@code caveat}, {@code noisy}). */
    public static boolean isCaveat(String shownName) {
        return named(shownName).map(c -> c.unit() == Unit.CAVEAT).orElse(false);
    }
}
