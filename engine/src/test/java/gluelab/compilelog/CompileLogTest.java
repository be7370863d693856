package gluelab.compilelog;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

/** Reads the dynamo logs that make_logs.py wrote on the H200 with torch 2.11 (test resources). */
public class CompileLogTest {
    public static Path log(String name) {
        try {
            return Path.of(CompileLogTest.class.getResource("/compilelog/" + name + ".log").toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    static GraphBudget budget(String name) { return GraphBudget.of(CompileLogParser.read(log(name))); }

    @Test void perBlockCompileWithLayerIdxGuardHitsTheLimitAndFailsHard() {
        GraphBudget b = budget("layer_idx_guard");
        assertEquals(8, b.limit());
        BudgetEntry forward = b.entries().getFirst();
        assertEquals(1, b.entries().size());
        assertTrue(forward.codeObject().startsWith("forward (make_logs.py:40)"), forward.codeObject());
        assertEquals(8, forward.graphs(), "one graph per layer index 0..7");
        assertEquals(8, forward.recompiles(), "7 that made graphs, the 8th stopped by the limit");
        assertTrue(forward.limitHit());
        assertEquals(0, forward.headroom());
        ReasonGroup g = forward.reasons().getFirst();
        assertEquals("self.layer_idx == N", g.pattern());
        assertEquals(8, g.count());
        assertEquals(List.of("0", "1", "2", "3", "4", "5", "6", "7"), g.values());
        assertTrue(b.has(CompileSymptom.Kind.PER_LAYER_ATTRIBUTE));
        assertTrue(b.has(CompileSymptom.Kind.RECOMPILE_LIMIT));
        assertTrue(b.has(CompileSymptom.Kind.HARD_FAILURE));
        CompileSymptom layer = b.symptoms().stream().filter(s -> s.kind() == CompileSymptom.Kind.PER_LAYER_ATTRIBUTE).findFirst().orElseThrow();
        assertTrue(layer.fix().contains("hoist the index out"), layer.fix());
        assertTrue(layer.fix().contains("layer_idx"), layer.fix());
        Failure limit = b.failures().getFirst();
        assertEquals("0/8", limit.compileId());
        assertTrue(limit.message().contains("self.layer_idx == 7"), limit.message());
        String text = BudgetText.text(b);
        assertTrue(text.contains("self.layer_idx == N  x8"), text);
        assertTrue(BudgetText.markdown(b).contains("| limit hit |"));
    }

    @Test void hoistingTheIndexLeavesOneGraph() {
        for (String name : List.of("layer_idx_fixed", "static_address_ids")) {
            GraphBudget b = budget(name);
            assertEquals(1, b.entries().size(), name);
            BudgetEntry e = b.entries().getFirst();
            assertEquals(1, e.graphs(), name);
            assertEquals(0, e.recompiles(), name);
            assertEquals(7, e.headroom(), name);
            assertTrue(e.codeObject().startsWith("forward"), e.codeObject());
            assertTrue(b.symptoms().isEmpty(), name + ": " + b.symptoms());
        }
    }

    @Test void reduceOverheadPerBlockOverwritesTheOutput() {
        GraphBudget b = budget("reduce_overhead");
        CompileSymptom s = b.symptoms().stream().filter(x -> x.kind() == CompileSymptom.Kind.CUDAGRAPH_OVERWRITE).findFirst().orElseThrow();
        assertTrue(s.evidence().contains("make_logs.py:109 in f"), s.evidence());
        assertTrue(s.fix().contains("cudagraph_mark_step_begin()"), s.fix());
        assertTrue(s.fix().contains("clone"), s.fix());
        assertEquals(2, b.graphs(), "f and g: one graph each");
        assertFalse(budget("reduce_overhead_fixed").has(CompileSymptom.Kind.CUDAGRAPH_OVERWRITE));
    }

    @Test void llamaBlockShowsTheGraphBreakAndTheShapeRecompile() {
        GraphBudget b = budget("llama_block");
        CompileSymptom brk = b.symptoms().stream().filter(x -> x.kind() == CompileSymptom.Kind.GRAPH_BREAK).findFirst().orElseThrow();
        assertTrue(brk.evidence().contains("make_logs.py:156"), brk.evidence());
        assertTrue(brk.evidence().contains("Tensor.item()"), brk.evidence());
        assertTrue(brk.fix().contains("capture_scalar_outputs"), brk.fix());
        CompileSymptom shape = b.symptoms().stream().filter(x -> x.kind() == CompileSymptom.Kind.DYNAMIC_SHAPE).findFirst().orElseThrow();
        assertTrue(shape.fix().contains("mark_dynamic(x, 1)"), shape.fix());
        assertTrue(b.has(CompileSymptom.Kind.VALUE_GUARD), "the .item() value guarded after the break: " + b.symptoms());
        assertTrue(b.entries().stream().anyMatch(e -> e.codeObject().startsWith("torch_dynamo_resume_in_forward_at_156")), b.entries().toString());
    }

    @Test void aFileWithoutTorchLinesIsNamed(@TempDir Path dir) throws IOException {
        Path f = dir.resolve("notes.txt");
        Files.writeString(f, "hello\nworld\n");
        var e = assertThrows(CompileLogException.class, () -> CompileLogParser.read(f));
        assertTrue(e.getMessage().startsWith(f + ": no torch log lines in 2 lines"), e.getMessage());
        Path bin = dir.resolve("bin.log");
        Files.write(bin, new byte[]{'o', 'k', '\n', (byte) 0xff, (byte) 0xfe, '\n'});
        e = assertThrows(CompileLogException.class, () -> CompileLogParser.read(bin));
        assertTrue(e.getMessage().contains(bin + ":2: not UTF-8 text at byte 3"), e.getMessage());
        e = assertThrows(CompileLogException.class, () -> CompileLogParser.read(dir.resolve("missing.log")));
        assertTrue(e.getMessage().contains("missing.log: no such file"), e.getMessage());
    }

    @Test void aBrokenRecompileLineIsNamedWithItsLine() {
        var lines = List.of("V1130 08:49:14.884000 871 torch/_dynamo/guards.py:4760] [0/1] [__recompiles] Recompiling function forward");
        var e = assertThrows(CompileLogException.class, () -> CompileLogParser.parse("x.log", lines));
        assertTrue(e.getMessage().startsWith("x.log:1: a 'Recompiling function' line without 'in FILE:LINE'"), e.getMessage());
    }
}
