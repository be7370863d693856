package gluelab.sweep;

/**
 * One independent piece of a sweep: one op at one token count for one model, in one process
 * (process 1..n of the confirming repeats). Its passes and variants are screened together, as a
 * bench group is. {@code index} is its place in the plan (the Slurm array task id).
 */
public record Shard(int index, String model, String op, long tokens, int process) {
    public Shard {
        if (index < 0) throw new IllegalArgumentException("shard index must be >= 0, got " + index);
        if (process < 1) throw new IllegalArgumentException("shard process must be >= 1, got " + process);
    }

    /** The shard's folder and record id: {@code llama-3-8b.rmsnorm.T2048.p1}. */
    public String name() { return model + "." + op + ".T" + tokens + ".p" + process; }

    @Override public String toString() { return "#" + index + " " + name(); }
}
