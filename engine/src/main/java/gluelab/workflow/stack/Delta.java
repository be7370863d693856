package gluelab.workflow.stack;

import gluelab.ops.Replay;
import gluelab.units.Micros;
import gluelab.units.TimeScale;

import java.util.Locale;

/**
 * One comparison of a change: before -> after at one token count, launched directly or replayed from
 * a CUDA graph. {@code caveat} says what weakens the numbers ("noisy: 2 of 6 measurements over their
 * bound; device not quiet"), "" when nothing does; every line that quotes them carries it.
 */
public record Delta(long tokens, Replay replay, Micros before, Micros after, String caveat) {
    public Delta {
        caveat = caveat == null ? "" : caveat.strip();
        if (caveat.contains("\n")) throw new IllegalArgumentException("a caveat is one line, got " + caveat);
        if (tokens <= 0) throw new IllegalArgumentException("tokens must be > 0, got " + tokens);
        if (replay == null) throw new IllegalArgumentException("replay is missing (direct or graph)");
        if (before == null || after == null) throw new IllegalArgumentException((before == null ? "before" : "after") + " time is missing");
        if (before.us() <= 0) throw new IllegalArgumentException("before must be > 0 us, got " + before.us());
        if (after.us() <= 0) throw new IllegalArgumentException("after must be > 0 us (0 would read as infinitely faster), got " + after.us());
    }

    /** A comparison with nothing against it. */
    public Delta(long tokens, Replay replay, Micros before, Micros after) { this(tokens, replay, before, after, ""); }

    public static Delta of(long tokens, Replay replay, double beforeUs, double afterUs) {
        return new Delta(tokens, replay, Micros.of(beforeUs), Micros.of(afterUs));
    }

    /** The same numbers with {@code caveat} against them. */
    public Delta withCaveat(String caveat) { return new Delta(tokens, replay, before, after, caveat); }

    public boolean caveated() { return !caveat.isEmpty(); }

    /** " (caveat: ...)" to follow a quote of these numbers, or "". */
    public String caveatNote() { return caveated() ? " (" + CAVEAT + caveat + ")" : ""; }

    /** What opens every caveat in a text, so a reader and {@code pr check} find it. */
    public static final String CAVEAT = "caveat: ";

    /** Time saved; negative when the change made it slower. */
    public double savedUs() { return before.minusUs(after); }

    /** after / before - 1: -0.69 for 69% less time. */
    public double change() { return after.us() / before.us() - 1; }

    /** "2k", "32k", "3000": token counts as people write them. */
    public static String tokens(long tokens) { return tokens % 1024 == 0 ? tokens / 1024 + "k" : Long.toString(tokens); }

    /** "32k tokens" or "32k tokens, graph replay". */
    public String workload() { return tokens(tokens) + " tokens" + (replay == Replay.GRAPH ? ", graph replay" : ""); }

    /** The direction with both numbers: "1.43x faster (1497 vs 1044 us)", "2.7x slower (1089 vs 2987 us)". */
    public String direction() { return direction(scale()); }

    /** {@link #direction()} with the numbers in {@code scale}. */
    public String direction(TimeScale scale) {
        double a = before.us(), b = after.us();
        if (a == b) return "no change (" + Micros.pair(before, " vs ", after, scale) + ")";
        String ratio = b == 0 ? "all of it removed" : String.format(Locale.ROOT, "%.2fx %s", a > b ? a / b : b / a, a > b ? "faster" : "slower");
        return ratio + " (" + Micros.pair(before, " vs ", after, scale) + ")";
    }

    /** The unit these two numbers read in alone: the larger one's. */
    public TimeScale scale() { return TimeScale.of(before.us(), after.us()); }

    /** One unit for several deltas quoted together (a stack summary): the largest time's. */
    public static TimeScale scale(java.util.Collection<Delta> deltas) {
        return TimeScale.of(deltas.stream().mapToDouble(d -> Math.max(d.before.us(), d.after.us())).toArray());
    }

    /**
     * "1497 -> 1044 us (-30.3%, 1.43x faster)": the numbers line of a PR's code blocks; with a
     * caveat, the ratio is approximate and the caveat follows: "10.4 -> 0.941 ms (-91.0%, ~11.08x
     * faster) (caveat: noisy: 6 of 6 measurements over their bound; device not quiet)".
     */
    public String describe() { return describe(scale()); }

    /** {@link #describe()} with the numbers in {@code scale}, shared by the lines quoted beside it. */
    public String describe(TimeScale scale) {
        String dir = direction(scale);
        return Micros.pair(before, " -> ", after, scale) + " (" + String.format(Locale.ROOT, "%+.1f%%", 100 * change()) + ", "
                + (caveated() ? "~" : "") + dir.substring(0, dir.indexOf(" (")) + ")" + caveatNote();
    }
}
