package gluelab.workflow.stack;

/**
 * Compiled graphs of the region a change touches against the recompile limit (workflow step 6):
 * every shape x call site x grad mode counts; aim for at most 6 of 8.
 */
public record GraphCount(String region, int graphs, int limit) {
    /** The share of the limit to aim for (6 of torch's default 8). */
    public static final double AIM = 0.75;

    public GraphCount {
        if (region == null || region.isBlank()) throw new IllegalArgumentException("a graph count needs its region");
        if (graphs < 0) throw new IllegalArgumentException("graphs must be >= 0, got " + graphs);
        if (limit <= 0) throw new IllegalArgumentException("limit must be > 0, got " + limit);
    }

    public boolean withinLimit() { return graphs <= limit; }

    public int aim() { return (int) Math.floor(AIM * limit); }

    public boolean withinAim() { return graphs <= aim(); }

    /** "graphs q_norm_rope: 4 of limit 8 (aim <= 6)". */
    public String describe() {
        return "graphs " + region + ": " + graphs + " of limit " + limit + " (aim <= " + aim() + ")"
                + (withinLimit() ? withinAim() ? "" : ", over the aim" : ", OVER THE LIMIT");
    }
}
