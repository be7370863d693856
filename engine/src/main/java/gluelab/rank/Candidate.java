package gluelab.rank;

import gluelab.ops.MeasureKey;
import gluelab.ops.OpId;
import gluelab.ops.Pass;
import gluelab.ops.Replay;
import gluelab.ops.Variant;
import gluelab.tensor.DType;

/**
 * One row to rank: an op measured in its current form, its floor, and how often the layer runs it.
 * gap = (measured - ideal) x count; share = measured x count / layer; score = gap x share.
 * {@code caveat} says why its measurement is not to be trusted as it stands (timeout, too few
 * samples, noise above the bound), or is empty.
 */
public record Candidate(MeasureKey key, int count, double measuredUs, double idealUs, double layerUs, String caveat) {
    public Candidate {
        if (count < 1) throw new IllegalArgumentException(key.op() + ": count must be >= 1");
        if (!(measuredUs > 0)) throw new IllegalArgumentException(key.op() + ": measured time must be > 0 us, got " + measuredUs);
        if (idealUs < 0) throw new IllegalArgumentException(key.op() + ": ideal time must be >= 0");
        if (!(layerUs > 0)) throw new IllegalArgumentException("layer time must be > 0 us, got " + layerUs);
        caveat = caveat == null ? "" : caveat;
    }

    /** A direct bf16 row written by hand (notebooks, examples). */
    public Candidate(String op, String pass, String variant, long tokens, int count, double measuredUs, double idealUs, double layerUs) {
        this(new MeasureKey(OpId.of(op), Pass.parse(pass), Variant.parse(variant), Replay.DIRECT, tokens, DType.BF16), count, measuredUs, idealUs, layerUs, "");
    }

    public OpId op() { return key.op(); }

    public Pass pass() { return key.pass(); }

    public Variant variant() { return key.variant(); }

    public long tokens() { return key.tokens(); }

    public double gapUs() { return Math.max(0, measuredUs - idealUs) * count; }

    public double ratio() { return idealUs > 0 ? measuredUs / idealUs : Double.POSITIVE_INFINITY; }

    public double share() { return measuredUs * count / layerUs; }

    public double score() { return gapUs() * share(); }

    /** Gap as a fraction of the layer: what fixing this op could save at most. */
    public double gapShare() { return gapUs() / layerUs; }
}
