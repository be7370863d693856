package gluelab.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.*;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

class FallbackFontTest {
    @Test void theRuntimeGetsTheFontAndAGenericFontconfigNamingItForEveryLogicalFont(@TempDir Path runtime) throws Exception {
        assumeTrue(FallbackFont.CANDIDATES.stream().anyMatch(Files::isRegularFile), "no DejaVuSans.ttf here (Debian: fonts-dejavu-core)");
        assertTrue(FallbackFont.install(runtime).startsWith("fallback font: "));
        assertTrue(Files.size(runtime.resolve("lib/fonts/DejaVuSans.ttf")) > 100_000);
        // The generic name: Java reads it only where fontconfig finds no fonts (an OS-specific name would replace the host's fonts).
        String config = Files.readString(runtime.resolve("conf/fonts/fontconfig.properties"));
        assertTrue(config.contains("filename.DejaVu_Sans=$JRE_LIB_FONTS/DejaVuSans.ttf"), config);
        for (String logical : new String[] {"serif", "sansserif", "monospaced", "dialog", "dialoginput"}) {
            assertTrue(config.contains(logical + ".bolditalic.latin-1=DejaVu Sans"), logical);
        }
    }
}
