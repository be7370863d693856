package gluelab.backend.cuda;

import java.util.Locale;

/**
 * The flush before each cold sample: a memset over {@code multiple} times the L2's size. Twice is
 * the default; a larger flush is there to test whether lines of a small row survive the flush
 * (a level that differs per process on rows that fit in L2), set by {@code GLUELAB_L2_FLUSH}.
 */
record L2Flush(int multiple) {
    static final String ENV = "GLUELAB_L2_FLUSH";
    static final int DEFAULT = 2, MAX = 16;

    L2Flush {
        if (multiple < 1 || multiple > MAX) throw new IllegalArgumentException(rule("" + multiple));
    }

    /** From {@value #ENV}, or the default when it is unset or blank. */
    static L2Flush fromEnvironment() { return parse(System.getenv(ENV)); }

    static L2Flush parse(String text) {
        if (text == null || text.isBlank()) return new L2Flush(DEFAULT);
        try {
            return new L2Flush(Integer.parseInt(text.trim().toLowerCase(Locale.ROOT).replaceFirst("x$", "")));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(rule(text), e);
        }
    }

    long bytes(long l2Bytes) { return multiple * l2Bytes; }

    private static String rule(String got) {
        return ENV + " must be a whole number of L2 sizes from 1 to " + MAX + " (e.g. 4 or 4x), got '" + got + "'";
    }
}
