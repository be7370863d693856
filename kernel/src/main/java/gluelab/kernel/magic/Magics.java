package gluelab.kernel.magic;

import java.util.ArrayList;
import java.util.List;

/** Splits magic lines the way a shell does: whitespace-separated words, quotes group. */
public final class Magics {
    private Magics() {}

    public static List<String> words(String line) {
        List<String> out = new ArrayList<>();
        StringBuilder cur = new StringBuilder();
        char quote = 0;
        boolean any = false;
        for (char c : line.toCharArray()) {
            if (quote != 0) {
                if (c == quote) quote = 0;
                else cur.append(c);
            } else if (c == '"' || c == '\'') {
                quote = c;
                any = true;
            } else if (Character.isWhitespace(c)) {
                if (any || !cur.isEmpty()) out.add(cur.toString());
                cur.setLength(0);
                any = false;
            } else {
                cur.append(c);
                any = true;
            }
        }
        if (quote != 0) throw new IllegalArgumentException("unterminated quote in: " + line);
        if (any || !cur.isEmpty()) out.add(cur.toString());
        return out;
    }
}
