package gluelab.ops;

import gluelab.tensor.DType;

import java.util.Comparator;

/**
 * What one measured row is: op, pass, variant, how it was replayed, token count and activation
 * dtype. The plan makes these, the runner measures them, records store them (as readable JSON
 * fields) and tables, rankings and charts group by them; nothing parses a label back into one.
 */
public record MeasureKey(OpId op, Pass pass, Variant variant, Replay replay, long tokens, DType dtype) {
    /** Plan order: tokens, op, pass, variant, replay. */
    public static final Comparator<MeasureKey> ORDER = Comparator.comparingLong(MeasureKey::tokens).thenComparing(MeasureKey::op)
            .thenComparing(MeasureKey::pass).thenComparing(MeasureKey::variant).thenComparing(MeasureKey::replay);

    public MeasureKey {
        if (op == null) throw new IllegalArgumentException("measurement key needs an op");
        if (pass == null || variant == null || replay == null || dtype == null) {
            throw new IllegalArgumentException("measurement key of " + op + " needs pass, variant, replay and dtype");
        }
        if (tokens <= 0) throw new IllegalArgumentException("measurement key of " + op + ": tokens must be > 0, got " + tokens);
    }

    public MeasureKey withReplay(Replay r) { return new MeasureKey(op, pass, variant, r, tokens, dtype); }

    public boolean graph() { return replay == Replay.GRAPH; }

    /** The variant as a table or chart series names it: "eager", "eager graph". */
    public String series() { return variant.id() + (graph() ? " graph" : ""); }

    /** For people: "rmsnorm fwd eager graph T=2048 bf16". */
    @Override public String toString() { return op + " " + pass.id() + " " + series() + " T=" + tokens + " " + dtype.id(); }
}
