package gluelab.bench;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/** Token-count lists as users write them: "2048,4096", "2k,4k,16k" (k = 1024). */
public final class Tokens {
    public static final long MAX = 1L << 24;

    private Tokens() {}

    public static List<Long> parse(String text) {
        if (text == null || text.isBlank()) throw new IllegalArgumentException("token counts are empty; write e.g. 2048,4096 or 2k,4k");
        List<Long> out = new ArrayList<>();
        Map<Long, String> spelled = new HashMap<>();
        for (String part : text.split(",", -1)) {
            String p = part.trim().toLowerCase(Locale.ROOT);
            if (p.isEmpty()) throw new IllegalArgumentException("token counts '" + text + "' have an empty entry; write e.g. 2048,4096 or 2k,4k");
            long mult = 1;
            if (p.endsWith("k")) {
                mult = 1024;
                p = p.substring(0, p.length() - 1);
            }
            long v;
            try {
                v = Math.multiplyExact(Long.parseLong(p), mult);
            } catch (NumberFormatException e) {
                if (p.matches("\\+?[0-9]+")) throw tooLarge(part.trim());
                throw new IllegalArgumentException("token count '" + part.trim() + "' is not a whole number (write e.g. 2048 or 2k)");
            } catch (ArithmeticException e) {
                // 18014398509481985k wrapped round to 1024 and 9007199254740992k to a negative count.
                throw tooLarge(part.trim());
            }
            out.add(check(v, part.trim()));
            String before = spelled.putIfAbsent(v, part.trim());
            if (before != null) {
                throw new IllegalArgumentException("token counts '" + text + "' give " + v + " twice ('" + before + "' and '" + part.trim()
                        + "'); list each count once");
            }
        }
        return out;
    }

    /** Checks every count, and that none repeats: a repeated count would measure each of its rows twice. */
    public static List<Long> checkAll(List<Long> counts) {
        Set<Long> seen = new HashSet<>();
        for (long t : counts) {
            check(t, Long.toString(t));
            if (!seen.add(t)) throw new IllegalArgumentException("token counts " + counts + " give " + t + " twice; list each count once");
        }
        return counts;
    }

    private static IllegalArgumentException tooLarge(String as) {
        return new IllegalArgumentException("token count '" + as + "' overflows a 64-bit count; the limit is " + MAX);
    }

    public static long check(long v, String as) {
        if (v <= 0) throw new IllegalArgumentException("token count " + as + " must be > 0");
        if (v > MAX) throw new IllegalArgumentException("token count " + as + " is over the limit of " + MAX);
        return v;
    }
}
