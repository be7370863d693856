package gluelab.device;

import gluelab.ops.Catalogue;
import gluelab.ops.OpShape;
import gluelab.ops.Pass;
import gluelab.ops.Variant;
import gluelab.tensor.DType;
import org.junit.jupiter.api.Test;

import java.util.LinkedHashMap;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.*;

class ConfigPicksTest {
    static OpInstance qnorm(Map<String, Long> dims, Map<String, Object> params) {
        return new OpInstance(Catalogue.parse("qnorm_rope_complex"), new OpShape("qnorm_rope_complex", dims, DType.BF16, params), Pass.FORWARD, Variant.FUSED);
    }

    static <V> Map<String, V> ordered(Object... kv) {
        Map<String, V> m = new LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            @SuppressWarnings("unchecked") V v = (V) kv[i + 1];
            m.put((String) kv[i], v);
        }
        return m;
    }

    @Test
    void aShapeKeysTheSamePickWhateverOrderItsDimsAndParamsWereBuiltIn() {
        // Map.of's order differs between JVMs: the same shape built twice must find the same pick.
        OpInstance a = qnorm(ordered("T", 32768L, "H", 32L, "HD", 128L), ordered("eps", 1e-5, "theta", 500000.0));
        OpInstance b = qnorm(ordered("HD", 128L, "T", 32768L, "H", 32L), ordered("theta", 500000.0, "eps", 1e-5));
        assertEquals(ConfigPicks.Key.of(a, "sm_90"), ConfigPicks.Key.of(b, "sm_90"));
        assertEquals(ConfigPicks.Key.of(a, "sm_90").hash(), ConfigPicks.Key.of(b, "sm_90").hash());
        OpInstance other = qnorm(ordered("T", 8192L, "H", 32L, "HD", 128L), ordered("eps", 1e-5, "theta", 500000.0));
        assertNotEquals(ConfigPicks.Key.of(a, "sm_90").hash(), ConfigPicks.Key.of(other, "sm_90").hash(), "tokens are part of the key");
    }

    /** A cache that cannot be written lost the picks without a word (issue 23's probe). */
    @Test
    void aCacheThatCannotBeWrittenSaysThePicksWereNotSaved(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
        java.nio.file.Path file = java.nio.file.Files.writeString(dir.resolve("a-file"), "x");
        ConfigPicks picks = new ConfigPicks(file.resolve("tune"));
        ConfigPicks.Key key = new ConfigPicks.Key("rmsnorm", "fwd", "bf16", "{T=16}", "cpu");
        var err = new java.io.ByteArrayOutputStream();
        var old = System.err;
        System.setErr(new java.io.PrintStream(err, true));
        boolean saved;
        try {
            saved = picks.store(key, "rows8", "{}");
            picks.store(key, "rows8", "{}");
        } finally {
            System.setErr(old);
        }
        assertFalse(saved);
        assertEquals(java.util.Optional.of("rows8"), picks.pick(key), "this run still uses its pick");
        String w = err.toString();
        assertTrue(w.contains("tuned picks are not saved") && w.contains(file.toString()), w);
        assertEquals(1, w.lines().count(), "said once: " + w);
        assertTrue(new ConfigPicks(dir.resolve("ok")).store(key, "rows8", "{}"));
    }
}
