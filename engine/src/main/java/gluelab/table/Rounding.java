package gluelab.table;

import gluelab.units.Numbers;

/** How a column's numbers are rounded for people: to decimal places or to significant digits. */
public record Rounding(boolean significant, int digits) {
    public Rounding {
        if (digits < 0 || digits > 15) throw new IllegalArgumentException("rounding digits must be 0..15, got " + digits);
    }

    public static Rounding places(int n) { return new Rounding(false, n); }

    public static Rounding significant(int n) { return new Rounding(true, n); }

    public double apply(double v) { return significant ? Numbers.significant(v, digits) : Numbers.places(v, digits); }
}
