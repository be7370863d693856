package gluelab.timing;

/**
 * COLD: the last-level cache is flushed before each sample and one launch is timed. HOT: launches
 * run back to back and each sample is one batch's time divided by its size.
 */
public enum Mode {
    COLD, HOT;

    public String id() { return name().toLowerCase(java.util.Locale.ROOT); }

    public static Mode parse(String text) {
        for (Mode m : values()) if (text != null && m.id().equals(text.trim().toLowerCase(java.util.Locale.ROOT))) return m;
        throw new IllegalArgumentException("unknown mode '" + text + "'; valid values: cold, hot");
    }
}
