package gluelab.units;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;

import java.util.Locale;

/**
 * A time in microseconds, the unit every glue measurement is quoted in. Written for people in a
 * unit that keeps the number readable: 1089 us, 75.1 us, 240.1 ms.
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

    /** "1089 us", "75.1 us", "240.1 ms": the unit is ms from 10 ms up. */
    @Override public String toString() {
        return us >= 10_000 ? number(us / 1000) + " ms" : number(us) + " us";
    }

    /** Both numbers in one unit, the larger one's: "1089 vs 2987 us", "240.1 -> 75.1 ms". */
    public static String pair(Micros a, String between, Micros b) {
        boolean ms = Math.max(a.us, b.us) >= 10_000;
        double f = ms ? 1000 : 1;
        return number(a.us / f) + between + number(b.us / f) + (ms ? " ms" : " us");
    }

    /** No decimals from 1000 up, one from 1 up, three below: 1089, 75.1, 0.531. */
    static String number(double v) {
        return String.format(Locale.ROOT, v >= 1000 ? "%.0f" : v >= 1 ? "%.1f" : "%.3f", v);
    }

    @Override public int compareTo(Micros o) { return Double.compare(us, o.us); }
}
