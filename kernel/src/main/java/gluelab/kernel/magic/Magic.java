package gluelab.kernel.magic;

/**
 * A magic registered in jjava's {@code MagicsRegistry}: its name and its one-line help (what
 * {@code %lsmagic} lists). A class implements jjava's {@code LineMagic}, {@code CellMagic} or both.
 */
public interface Magic {
    String name();

    String help();

    /** Whether the line magic takes the rest of its line as written (code), not split into words. */
    default boolean rawLine() { return false; }
}
