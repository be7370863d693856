package gluelab.rank;

/**
 * What the ranking says of one candidate. A gap worth a change measured on a noisy row (timeout,
 * too few samples, noise over the bound) is {@link #REMEASURE}: the gap itself may be the noise.
 */
public enum Verdict {
    FIX("fix"),
    REMEASURE("remeasure"),
    BELOW_STOP_RULE("below stop rule");

    private final String id;

    Verdict(String id) { this.id = id; }

    public String id() { return id; }
}
