package gluelab.units;

/** A unit chosen once for a table column (times: {@link TimeScale}, bytes: {@link ByteScale}): its header and its cells. */
public interface ColumnScale {
    /** The value as the column shows it in this unit; NaN for NaN or infinite. */
    double cell(double value);

    /** A column header with this unit: {@code header("ideal")} is "ideal (us)". */
    String header(String name);
}
