package gluelab.backend.cuda;

import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

/** The file and entry points a catalogue op's PR names: those of its family that serve it, each defined in the file. */
class FusedSourcesTest {
    @Test void eachOpNamesTheEntryPointsThatServeIt() throws Exception {
        assertEquals(new FusedSources.Source("kernels/src/main/cuda/swiglu_cast.cu", List.of("fused_swiglu_fwd", "fused_swiglu_bwd")), FusedSources.of("swiglu").orElseThrow());
        assertEquals(List.of("fused_cast_bf16_f32"), FusedSources.of("cast").orElseThrow().kernels());
        assertEquals(List.of("fused_rmsnorm_fwd", "fused_rmsnorm_bwd"), FusedSources.of("add_rmsnorm").orElseThrow().kernels(), "the family's kernels serve both norms");
        assertEquals(List.of("fused_qnorm_rope_fwd", "fused_qnorm_rope_bwd"), FusedSources.of("qnorm_rope_complex").orElseThrow().kernels());
        assertTrue(FusedSources.of("no_such_op").isEmpty());
        for (String op : List.of("rmsnorm", "add_rmsnorm", "swiglu", "cast", "qnorm_rope_complex", "cat", "moe_routing")) {
            var s = FusedSources.of(op).orElseThrow();
            String source = Files.readString(Path.of("..").resolve(s.file()));
            for (String k : s.kernels()) assertTrue(source.contains(" " + k + "("), op + ": " + k + " in " + s.file());
        }
    }
}
