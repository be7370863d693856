package gluelab.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A font for the bundle's runtime, for hosts with no fonts at all (a bare GPU host): charts need one
 * to lay out text, and Java fails with "Fontconfig head is null" without. The runtime gets the build
 * host's DejaVu Sans in lib/fonts and a generic conf/fonts/fontconfig.properties naming it for every
 * logical font. Java reads that file only when fontconfig finds no fonts, so hosts with fonts keep theirs.
 */
final class FallbackFont {
    static final List<Path> CANDIDATES = List.of(Path.of("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"),
            Path.of("/usr/share/fonts/dejavu/DejaVuSans.ttf"), Path.of("/usr/share/fonts/TTF/DejaVuSans.ttf"));

    private FallbackFont() {}

    /** Installs the font into {@code runtime}; returns what was done, for the bundle's log. */
    static String install(Path runtime) throws IOException {
        Path font = CANDIDATES.stream().filter(Files::isRegularFile).findFirst().orElse(null);
        if (font == null) {
            return "no DejaVuSans.ttf on this host (Debian: fonts-dejavu-core): charts need fonts on the host that runs the bundle";
        }
        Files.copy(font, Files.createDirectories(runtime.resolve("lib/fonts")).resolve("DejaVuSans.ttf"));
        List<String> lines = new ArrayList<>(List.of("version=1", "# gluelab: used only where fontconfig finds no fonts"));
        for (String family : List.of("serif", "sansserif", "monospaced", "dialog", "dialoginput")) {
            for (String style : List.of("plain", "bold", "italic", "bolditalic")) lines.add(family + "." + style + ".latin-1=DejaVu Sans");
        }
        lines.add("sequence.allfonts=latin-1");
        lines.add("filename.DejaVu_Sans=$JRE_LIB_FONTS/DejaVuSans.ttf");
        Files.write(Files.createDirectories(runtime.resolve("conf/fonts")).resolve("fontconfig.properties"), lines);
        return "fallback font: " + font + " (for hosts without fonts)";
    }
}
