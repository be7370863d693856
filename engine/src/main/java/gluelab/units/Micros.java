package gluelab.units;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;

/**
 * A time in microseconds, the unit every glue measurement is quoted in. Written for people in a
 * unit that keeps the number readable: 1089 us, 75.1 us, 240.1 ms ({@link TimeScale}).
 */
public record Micros(double us) implements Comparable<Micros> {
    public Micros {
        if (!(us >= 0) || Double.isInfinite(us)) throw new IllegalArgumentException("a time must be a finite number of us >= 0, got " + us);
    }

    @JsonCreator public static Micros of(double us) { return new Micros(us); }

    public static Micros ms(double ms) { return new Micros(ms * 1000); }

    @JsonValue public double us() { return us; }

    public double ms() { return us / 1000; }

    public double seconds() { return us / 1e6; }

    /** {@code this - other}, which may be negative, so a plain double. */
    public double minusUs(Micros other) { return us - other.us; }

    /** "1089 us", "75.1 us", "240.1 ms", "13.8 s": the unit is {@link TimeScale#forMax}'s. */
    @Override public String toString() { return TimeScale.forMax(us).format(us); }

    /** Both numbers in one unit, the larger one's: "1089 vs 2987 us", "240.1 -> 75.1 ms". */
    public static String pair(Micros a, String between, Micros b) {
        return pair(a, between, b, TimeScale.of(a.us, b.us));
    }

    /** Both numbers in {@code scale}, chosen for a whole summary so its lines share one unit. */
    public static String pair(Micros a, String between, Micros b, TimeScale scale) {
        return scale.number(a.us) + between + scale.number(b.us) + " " + scale.symbol();
    }

    @Override public int compareTo(Micros o) { return Double.compare(us, o.us); }
}
