package gluelab.device.cuda.compile;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.junit.jupiter.api.Assertions.*;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** The nvcc fallback compiles the catalogue and reports errors with line numbers; needs only the toolkit, no GPU. */
@Tag("slow")
public class NvccCompilerTest {
    /** nvcc, or the test is skipped where the toolkit is not installed. */
    public static NvccCompiler nvcc() {
        try {
            return NvccCompiler.find();
        } catch (IllegalStateException e) {
            assumeTrue(false, "no nvcc here: " + e.getMessage());
            return null;
        }
    }

    @Test
    void compilesTheCatalogueForHopper() throws Exception {
        NvccCompiler c = nvcc();
        String src;
        try (InputStream in = getClass().getResourceAsStream("/gluelab/kernels/glue.cu")) {
            src = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        byte[] cubin = c.compileCubin(src, "glue.cu", "sm_90", List.of("-std=c++17"));
        assertEquals(0x7f, cubin[0]);
        assertEquals('E', cubin[1], "a cubin is an ELF file");
        assertTrue(c.id().startsWith("nvcc "), c.id());
    }

    @Test
    void compileErrorsNameTheLine() {
        NvccCompiler c = nvcc();
        var e = assertThrows(CompileException.class, () -> c.compileCubin("extern \"C\" __global__ void k(float* p) {\n  p[0] = nope;\n}\n", "mine.cu", "sm_90", List.of()));
        assertTrue(e.getMessage().contains("mine.cu(2)"), e.getMessage());
    }

    @Test
    void theCacheKeyChangesWithWhatTheCodeIs() {
        String a = CompileCache.key("src", "sm_90", List.of("-std=c++17"), "nvcc 13.0");
        assertEquals(a, CompileCache.key("src", "sm_90", List.of("-std=c++17"), "nvcc 13.0"));
        assertNotEquals(a, CompileCache.key("src2", "sm_90", List.of("-std=c++17"), "nvcc 13.0"));
        assertNotEquals(a, CompileCache.key("src", "sm_80", List.of("-std=c++17"), "nvcc 13.0"));
        assertNotEquals(a, CompileCache.key("src", "sm_90", List.of(), "nvcc 13.0"));
        assertNotEquals(a, CompileCache.key("src", "sm_90", List.of("-std=c++17"), "nvrtc 13.0"));
    }
}
