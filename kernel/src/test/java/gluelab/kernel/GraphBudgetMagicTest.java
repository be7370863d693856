package gluelab.kernel;

import gluelab.compilelog.GraphBudget;
import gluelab.kernel.display.Renderers;
import gluelab.kernel.eval.Evaluator;
import org.dflib.jjava.jupyter.kernel.display.Renderer;
import org.dflib.jjava.jupyter.kernel.display.mime.MIMEType;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.*;

@Tag("slow")
class GraphBudgetMagicTest {
    /** The engine's real dynamo log of the seed repro (torch 2.11, H200). */
    static final Path SEED_LOG = Path.of("../engine/src/test/resources/compilelog/layer_idx_guard.log").toAbsolutePath().normalize();
    static Evaluator e;
    static CellRunner cells;

    @BeforeAll static void open() {
        e = new Evaluator();
        cells = new CellRunner(e);
    }

    @AfterAll static void close() { e.close(); }

    @Test void rendersTheBudgetOfALog() throws Exception {
        Object v = cells.run("%graphbudget " + SEED_LOG);
        GraphBudget b = assertInstanceOf(GraphBudget.class, v);
        assertEquals(8, b.graphs());
        Renderer r = new Renderer();
        Renderers.install(r);
        String html = (String) Renderers.render(r, b).getData(MIMEType.TEXT_HTML);
        assertTrue(html.contains("limit hit"), html);
        assertTrue(html.contains("self.layer_idx == N"), html);
        assertTrue(String.valueOf(cells.run("%lsmagic")).contains("%graphbudget FILE"));
    }

    @Test void aMissingFileIsNamedAndTheSessionGoesOn() throws Exception {
        var ex = assertThrows(IllegalArgumentException.class, () -> cells.run("%graphbudget /no/such.log"));
        assertTrue(ex.getMessage().contains("/no/such.log: no such file"), ex.getMessage());
        assertEquals(3, cells.run("1 + 2"));
    }
}
