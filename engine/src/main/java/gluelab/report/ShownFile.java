package gluelab.report;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A file an experiment step wrote, to be shown in a notebook as the reader would open it: a
 * markdown file (findings doc, PR text, skill feedback) rendered, a PNG chart as the image.
 */
public sealed interface ShownFile permits ShownFile.Markdown, ShownFile.Png {
    Path file();

    /** {@code text} as in the file; {@link #inlined()} with its local PNG links as data URIs, for rendering. */
    record Markdown(Path file, String text) implements ShownFile {
        public String inlined() { return inlineImages(file, text); }
    }

    record Png(Path file, byte[] bytes) implements ShownFile {}

    /** A markdown image link to a local PNG, e.g. {@code ![chart](pr/x.png)}. */
    java.util.regex.Pattern LOCAL_PNG = java.util.regex.Pattern.compile("!\\[([^\\]]*)]\\(([^)\\s:]+\\.png)\\)");

    /**
     * Reads {@code file}: {@code .md} as markdown, {@code .png} as an image; anything else is refused
     * by name. A markdown file's links to PNGs beside it are inlined, since a notebook shows the text
     * away from the folder its links are relative to.
     */
    static ShownFile of(Path file) {
        String name = file.getFileName().toString();
        try {
            if (name.endsWith(".md")) return new Markdown(file, Files.readString(file));
            if (name.endsWith(".png")) return new Png(file, Files.readAllBytes(file));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file + ": " + e.getMessage(), e);
        }
        throw new IllegalArgumentException(file + " is neither markdown (.md) nor a PNG chart (.png)");
    }

    static String inlineImages(Path file, String text) {
        Path dir = file.toAbsolutePath().getParent();
        java.util.regex.Matcher m = LOCAL_PNG.matcher(text);
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            Path png = dir.resolve(m.group(2)).normalize();
            String link = m.group();
            if (png.startsWith(dir) && Files.isRegularFile(png)) {
                try {
                    link = "![" + m.group(1) + "](data:image/png;base64," + java.util.Base64.getEncoder().encodeToString(Files.readAllBytes(png)) + ")";
                } catch (IOException e) {
                    throw new UncheckedIOException("cannot read " + png + " (linked from " + file + "): " + e.getMessage(), e);
                }
            }
            m.appendReplacement(out, java.util.regex.Matcher.quoteReplacement(link));
        }
        return m.appendTail(out).toString();
    }
}
