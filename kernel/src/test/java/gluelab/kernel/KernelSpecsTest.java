package gluelab.kernel;

import com.fasterxml.jackson.databind.JsonNode;
import gluelab.kernel.install.KernelSpecs;
import gluelab.files.Json;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.*;

class KernelSpecsTest {
    @Test
    void installWritesAKernelspecAndUninstallRemovesIt(@TempDir Path dir) throws Exception {
        Path kernels = KernelSpecs.kernelsDir(null, dir, null);
        assertEquals(dir.resolve("share/jupyter/kernels"), kernels);
        Path spec = KernelSpecs.install(kernels);
        JsonNode k = Json.MAPPER.readTree(spec.resolve("kernel.json").toFile());
        assertEquals("Java (gluelab)", k.get("display_name").asText());
        assertEquals("message", k.get("interrupt_mode").asText());
        assertEquals("{connection_file}", k.get("argv").get(k.get("argv").size() - 1).asText());
        assertTrue(k.get("argv").toString().contains("gluelab.kernel.KernelMain"));
        assertTrue(k.get("argv").toString().contains("--sun-misc-unsafe-memory-access=allow"), "no sun.misc.Unsafe warnings in the kernel's log");
        byte[] logo = Files.readAllBytes(spec.resolve("logo-64x64.png"));
        var image = javax.imageio.ImageIO.read(new java.io.ByteArrayInputStream(logo));
        assertEquals(64, image.getWidth());
        assertEquals(64, image.getHeight());
        assertTrue(KernelSpecs.list(java.util.List.of()).contains(spec.toAbsolutePath().normalize()), "list finds a --prefix install");
        assertTrue(KernelSpecs.uninstall(kernels));
        assertFalse(Files.exists(spec));
        assertFalse(KernelSpecs.list(java.util.List.of()).contains(spec.toAbsolutePath().normalize()));
        assertFalse(KernelSpecs.uninstall(kernels));
        assertEquals(dir.resolve("jp/kernels"), KernelSpecs.kernelsDir(null, null, dir.resolve("jp")));
    }
}
