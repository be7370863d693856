package gluelab.backend.cuda.compile;

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
        // The base module, with the shared headers from an include folder (-I).
        java.util.Map<String, String> headers = new java.util.TreeMap<>();
        for (String h : new String[]{"glue_types.cuh", "glue_sums.cuh", "glue_config.cuh", "glue_staging.cuh", "glue_dw.cuh"}) headers.put(h, resource(h));
        byte[] cubin = c.compileCubin(new SourceUnit("base.cu", resource("base.cu"), headers), "sm_90", List.of("-std=c++17"));
        assertEquals(0x7f, cubin[0]);
        assertEquals('E', cubin[1], "a cubin is an ELF file");
        assertTrue(c.id().startsWith("nvcc "), c.id());
    }

    private String resource(String name) throws Exception {
        try (InputStream in = getClass().getResourceAsStream("/gluelab/kernels/" + name)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    @Test
    void compileErrorsNameTheLine() {
        NvccCompiler c = nvcc();
        var e = assertThrows(CompileException.class, () -> c.compileCubin(SourceUnit.of("mine.cu", "extern \"C\" __global__ void k(float* p) {\n  p[0] = nope;\n}\n"), "sm_90", List.of()));
        assertTrue(e.getMessage().contains("mine.cu(2)"), e.getMessage());
    }

    @Test
    void theCacheKeyChangesWithWhatTheCodeIs() {
        SourceUnit src = new SourceUnit("k.cu", "src", java.util.Map.of("h.cuh", "header"));
        String a = CompileCache.key(src, "sm_90", List.of("-std=c++17"), "nvcc 13.0");
        assertEquals(a, CompileCache.key(new SourceUnit("k.cu", "src", java.util.Map.of("h.cuh", "header")), "sm_90", List.of("-std=c++17"), "nvcc 13.0"));
        assertNotEquals(a, CompileCache.key(src.withText("src2"), "sm_90", List.of("-std=c++17"), "nvcc 13.0"));
        assertNotEquals(a, CompileCache.key(new SourceUnit("k.cu", "src", java.util.Map.of("h.cuh", "header 2")), "sm_90", List.of("-std=c++17"), "nvcc 13.0"),
                "a changed header is a different kernel");
        assertNotEquals(a, CompileCache.key(new SourceUnit("k.cu", "src", java.util.Map.of()), "sm_90", List.of("-std=c++17"), "nvcc 13.0"));
        assertNotEquals(a, CompileCache.key(src, "sm_80", List.of("-std=c++17"), "nvcc 13.0"));
        assertNotEquals(a, CompileCache.key(src, "sm_90", List.of(), "nvcc 13.0"));
        assertNotEquals(a, CompileCache.key(src, "sm_90", List.of("-std=c++17"), "nvrtc 13.0"));
    }
}
