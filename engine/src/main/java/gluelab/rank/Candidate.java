package gluelab.rank;

/**
 * One row to rank: an op measured in its current form, its floor, and how often the layer runs it.
 * gap = (measured - ideal) x count; share = measured x count / layer; score = gap x share.
 */
public record Candidate(String op, String pass, String variant, long tokens, int count, double measuredUs,
                        double idealUs, double layerUs) {
    public Candidate {
        if (count < 1) throw new IllegalArgumentException(op + ": count must be >= 1");
        if (!(measuredUs > 0)) throw new IllegalArgumentException(op + ": measured time must be > 0 us, got " + measuredUs);
        if (idealUs < 0) throw new IllegalArgumentException(op + ": ideal time must be >= 0");
        if (!(layerUs > 0)) throw new IllegalArgumentException("layer time must be > 0 us, got " + layerUs);
    }

    public double gapUs() { return Math.max(0, measuredUs - idealUs) * count; }

    public double ratio() { return idealUs > 0 ? measuredUs / idealUs : Double.POSITIVE_INFINITY; }

    public double share() { return measuredUs * count / layerUs; }

    public double score() { return gapUs() * share(); }

    /** Gap as a fraction of the layer: what fixing this op could save at most. */
    public double gapShare() { return gapUs() / layerUs; }
}
