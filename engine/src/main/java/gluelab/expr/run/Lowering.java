package gluelab.expr.run;

import java.util.Locale;

/** How a region runs: one kernel per primitive with intermediates in memory, or one fused kernel. */
public enum Lowering {
    EAGER, FUSED;

    public String id() { return name().toLowerCase(Locale.ROOT); }
}
