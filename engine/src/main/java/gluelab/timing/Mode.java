package gluelab.timing;

/**
 * COLD: the last-level cache is flushed before each sample and one launch is timed. HOT: launches
 * run back to back and each sample is one batch's time divided by its size.
 */
public enum Mode {
    COLD, HOT;

    public String id() { return name().toLowerCase(java.util.Locale.ROOT); }
}
