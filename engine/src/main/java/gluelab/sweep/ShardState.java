package gluelab.sweep;

/** Where one shard stands, from its folder and, for scheduled sweeps, from the scheduler. */
public enum ShardState {
    /** Not started: nothing in its folder and no scheduler task seen. */
    WAITING,
    /** Queued by the scheduler. */
    PENDING,
    /** Being measured (its partial folder exists, or the scheduler says it runs). */
    RUNNING,
    /** Its record is published. */
    DONE,
    /** Measuring failed; the FAILED marker or the scheduler says why. */
    FAILED,
    /** Cancelled before finishing (scancel, or the sweep was stopped). */
    CANCELLED,
    /** The scheduler has no trace of it and it left no record: lost (cancelled while queued, or purged). */
    LOST;

    public boolean finished() { return this == DONE || this == FAILED || this == CANCELLED || this == LOST; }
}
