package gluelab.sweep;

/** A shard's state with the reason (a FAILED marker's text, a scheduler's state) and where it ran. */
public record ShardStatus(Shard shard, ShardState state, String detail) {
    public String name() { return shard.name(); }
}
