package gluelab.kernel.eval;

/** The first sentence of a Javadoc comment as plain text, for Shift-Tab. */
final class Javadoc {
    private Javadoc() {}

    static String summary(String javadoc) {
        if (javadoc == null || javadoc.isBlank()) return "";
        String body = javadoc.strip();
        int tag = body.indexOf("\n @");
        if (tag < 0 && body.startsWith("@")) return "";
        if (tag >= 0) body = body.substring(0, tag);
        String text = body.replaceAll("\\{@(?:code|link|linkplain|literal)\\s+([^}]*)}", "$1").replaceAll("<[^>]+>", "")
                .replaceAll("\\s+", " ").strip();
        int end = text.indexOf(". ");
        return end < 0 ? text : text.substring(0, end + 1);
    }
}
