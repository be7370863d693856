package gluelab.workflow.writeup;

import gluelab.workflow.stack.ChangeStack;
import gluelab.workflow.stack.StackSamples;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

class PrTextTest {
    @Test
    void generatedTextsPassEveryRuleWithTheirChartsBesideThem(@TempDir Path dir) throws Exception {
        ChangeStack stack = StackSamples.stack();
        List<Path> prs = PrText.write(stack, dir.resolve("pr"));
        assertEquals(List.of(dir.resolve("pr/q-norm-rope.md"), dir.resolve("pr/router-glue.md")), prs);
        for (Path p : prs) {
            assertEquals(List.of(), PrChecker.check(p), Files.readString(p));
            String id = p.getFileName().toString().replace(".md", "");
            assertTrue(Files.size(p.resolveSibling(id + ".png")) > 1000);
            assertTrue(Files.exists(p.resolveSibling(id + ".svg")));
        }
        String text = Files.readString(prs.getFirst());
        if (System.getenv("SHOW_PR") != null) System.out.println(text);
        assertTrue(text.contains("TLDR: Fuse q norm and RoPE into one region: fwd+bwd at 16k tokens, 1497 -> 1044 us (-30.3%, 1.43x faster)"), text);
        assertTrue(text.contains("4. Cost: 1497 us at 16k tokens (fwd+bwd), 6.00% of the layer."), text);
        assertTrue(text.contains("4. Unchanged: the model code, the numerics and the other regions."), text);
        assertTrue(text.contains("- region q_norm_rope: kimi-k2 (inherits it from dsv3-ours)"), text);
        assertTrue(text.contains("16k tokens, graph replay: 1402 -> 1021 us"), text);
        assertTrue(text.contains("graphs q_norm_rope: 4 of limit 8 (aim <= 6)"), text);
        assertTrue(text.contains("1. q-norm-rope  16k tokens: 1497 -> 1044 us (-30.3%, 1.43x faster)  <- this PR"), text);
        assertTrue(text.contains("![q-norm-rope: before vs after](q-norm-rope.png)"), text);
        // what the numbers do not show is named: router-glue has no graph-replay row
        assertTrue(Files.readString(prs.get(1)).contains("- CUDA-graph replay of the whole fwd+bwd"));
    }
}
