package gluelab.units;

import java.util.Locale;

/** A bandwidth; kept in bytes per second, written and read by people in GB/s (10^9 bytes). */
public record Bandwidth(double bytesPerSecond) {
    public Bandwidth {
        if (!(bytesPerSecond > 0) || Double.isInfinite(bytesPerSecond)) {
            throw new IllegalArgumentException("bandwidth must be a finite number > 0, got " + bytesPerSecond / 1e9 + " GB/s");
        }
    }

    public static Bandwidth gbPerSecond(double gbs) { return gbPerSecond(gbs, "bandwidth"); }

    /** From what a user gave as {@code input} (an option name), in GB/s; the error names the input. */
    public static Bandwidth gbPerSecond(double gbs, String input) {
        if (!(gbs > 0) || Double.isInfinite(gbs)) throw new IllegalArgumentException(input + " must be a finite number of GB/s > 0, got " + gbs);
        return new Bandwidth(gbs * 1e9);
    }

    public double gbPerSecond() { return bytesPerSecond / 1e9; }

    /** Seconds to move {@code bytes} at this bandwidth. */
    public double seconds(long bytes) { return bytes / bytesPerSecond; }

    @Override public String toString() { return String.format(Locale.ROOT, "%.1f GB/s", gbPerSecond()); }
}
