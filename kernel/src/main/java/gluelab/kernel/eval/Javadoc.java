package gluelab.kernel.eval;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** A Javadoc comment as Shift-Tab shows it: the first sentence, then each parameter's line, as plain text. */
final class Javadoc {
    private static final Pattern PARAM = Pattern.compile("(?m)^\\s*@param\\s+(\\S+)\\s+((?:(?!^\\s*@)[\\s\\S])*)");

    /** A full stop and a space that end a sentence, not an abbreviation's ("e.g. ", "i.e. "). */
    private static final Pattern SENTENCE_END = Pattern.compile("(?<!\\be\\.g|\\bi\\.e|\\betc)\\.\\s");

    private Javadoc() {}

    static String summary(String javadoc) {
        if (javadoc == null || javadoc.isBlank()) return "";
        String body = javadoc.strip();
        int tag = body.indexOf("\n @");
        if (tag < 0 && body.startsWith("@")) return "";
        if (tag >= 0) body = body.substring(0, tag);
        String text = plain(body);
        Matcher end = SENTENCE_END.matcher(text);
        return end.find() ? text.substring(0, end.start() + 1) : text;
    }

    /** "name: text" for each {@code @param} tag, in order. */
    static List<String> params(String javadoc) {
        List<String> out = new ArrayList<>();
        if (javadoc == null) return out;
        Matcher m = PARAM.matcher(javadoc);
        while (m.find()) {
            String text = plain(m.group(2));
            if (!text.isEmpty()) out.add(m.group(1) + ": " + text);
        }
        return out;
    }

    private static String plain(String html) {
        return html.replaceAll("\\{@(?:link|linkplain)\\s+#?([^}\\s]*)[^}]*}", "$1").replace('#', '.')
                .replaceAll("\\{@(?:code|literal)\\s+([^}]*)}", "$1").replaceAll("<[^>]+>", "")
                .replaceAll("\\s+", " ").strip();
    }
}
