package gluelab.table;

/**
 * One column of the vocabulary: its name (one spelling everywhere), its unit, and what it means, as
 * nvbench's summaries carry a name, a hint and a description. Times and bytes are named without
 * their unit; a table writes the unit its values need: {@code ideal (ms)}, or {@code ideal_us} in CSV.
 */
public record Column(String name, Unit unit, String description, Rounding rounding) {
    public Column {
        if (name == null || name.isBlank()) throw new IllegalArgumentException("a column needs a name");
        if (unit == null) throw new IllegalArgumentException("column " + name + " needs a unit");
        description = description == null ? "" : description;
    }

    public Column(String name, Unit unit, String description) { this(name, unit, description, defaultRounding(unit)); }

    public static Column text(String name, String description) { return new Column(name, Unit.TEXT, description); }

    public static Column count(String name, String description) { return new Column(name, Unit.COUNT, description); }

    public static Column time(String name, String description) { return new Column(name, Unit.TIME, description); }

    public static Column bytes(String name, String description) { return new Column(name, Unit.BYTES, description); }

    public static Column percent(String name, String description) { return new Column(name, Unit.PERCENT, description); }

    public static Column ratio(String name, String description) { return new Column(name, Unit.RATIO, description); }

    public static Column number(String name, String description) { return new Column(name, Unit.NUMBER, description); }

    public static Column caveat(String name, String description) { return new Column(name, Unit.CAVEAT, description); }

    /** The same column rounded otherwise (noise to 2 significant digits, a share to 2 places). */
    public Column rounded(Rounding r) { return new Column(name, unit, description, r); }

    /** The same meaning under another name, for a table with two of it side by side ({@code median_a}, {@code median_b}). */
    public Column named(String other) { return new Column(other, unit, description, rounding); }

    /** The CSV header: the name with the base unit of a scaled column ({@code ideal_us}, {@code peak_mem_bytes}). */
    public String csvHeader() { return unit.scaled() ? name + "_" + unit.base() : name; }

    private static Rounding defaultRounding(Unit u) {
        return switch (u) {
            case PERCENT, GB_PER_S -> Rounding.places(1);
            case RATIO -> Rounding.places(2);
            default -> Rounding.significant(3);
        };
    }
}
