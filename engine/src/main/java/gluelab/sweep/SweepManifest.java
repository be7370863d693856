package gluelab.sweep;

/** What {@code sweep.json} holds: the sweep's id and its resolved plan (the shard list follows from it). */
public record SweepManifest(int format, String id, SweepPlan plan, String createdAt) {
    public static final int FORMAT = 1;
}
