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

    record Markdown(Path file, String text) implements ShownFile {}

    record Png(Path file, byte[] bytes) implements ShownFile {}

    /** Reads {@code file}: {@code .md} as markdown, {@code .png} as an image; anything else is refused by name. */
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
}
