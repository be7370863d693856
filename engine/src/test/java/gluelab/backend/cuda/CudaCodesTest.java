package gluelab.backend.cuda;

import gluelab.backend.eager.EagerOps;
import gluelab.tensor.DType;
import org.junit.jupiter.api.Test;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.*;

/** The Java <-> CUDA contract: every code the engine passes equals the CUDA sources' #define, and each define is used as a case label. */
class CudaCodesTest {
    /** The base module with the headers it includes (the DT_ codes live in glue_types.cuh, the eager codes in base.cu). */
    static String glue() {
        var base = new KernelSources().unit(KernelSources.BASE);
        return String.join("\n", base.headers().values()) + "\n" + base.text();
    }

    static Map<String, Integer> defines(String src, String prefix) {
        Map<String, Integer> m = new LinkedHashMap<>();
        Matcher d = Pattern.compile("(?m)^#define " + prefix + "([A-Z0-9_]+) (\\d+)\\s*$").matcher(src);
        while (d.find()) m.put(d.group(1), Integer.parseInt(d.group(2)));
        return m;
    }

    @Test
    void dtypeCodesMatchGlueCu() throws Exception {
        Map<String, Integer> dt = defines(glue(), "DT_");
        assertFalse(dt.isEmpty());
        for (DType t : DType.values()) {
            Integer code = dt.get(t.name());
            if (code == null) assertThrows(IllegalArgumentException.class, () -> CudaCodes.dtype(t), t + " has no DT_ define, so no code");
            else assertEquals(code, CudaCodes.dtype(t), "DT_" + t.name());
        }
        for (String name : dt.keySet()) assertDoesNotThrow(() -> DType.valueOf(name), "DT_" + name + " names no DType");
    }

    @Test
    void unaryBinaryAndBroadcastCodesMatchGlueCuAndItsCaseLabels() throws Exception {
        String src = glue();
        Map<String, Integer> un = defines(src, "UN_"), bin = defines(src, "BIN_"), bc = defines(src, "BC_");
        assertEquals(EagerOps.Unary.values().length, un.size(), "one UN_ define per Unary: " + un);
        for (EagerOps.Unary u : EagerOps.Unary.values()) {
            assertEquals(un.get(u.name()), CudaCodes.unary(u), "UN_" + u.name());
            assertTrue(src.contains("case UN_" + u.name() + ":"), "unary_op handles UN_" + u.name());
        }
        assertEquals(EagerOps.Binary.values().length, bin.size(), "one BIN_ define per Binary: " + bin);
        for (EagerOps.Binary b : EagerOps.Binary.values()) {
            assertEquals(bin.get(b.name()), CudaCodes.binary(b), "BIN_" + b.name());
            assertTrue(src.contains("case BIN_" + b.name() + ":"), "binary_op handles BIN_" + b.name());
        }
        assertEquals(CudaCodes.Broadcast.values().length, bc.size(), "one BC_ define per broadcast mode: " + bc);
        for (CudaCodes.Broadcast m : CudaCodes.Broadcast.values()) {
            assertEquals(bc.get(m.name()), m.code, "BC_" + m.name());
        }
        // prim_broadcast tests three modes by name; the fourth (DIV_ROWS) is its else branch.
        for (String m : new String[]{"MUL_ROWS", "MUL_COLS", "EXPAND_ROWS"}) assertTrue(src.contains("mode == BC_" + m), "prim_broadcast handles BC_" + m);
    }
}
