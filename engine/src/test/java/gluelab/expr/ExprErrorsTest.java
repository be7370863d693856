package gluelab.expr;

import gluelab.expr.lower.RowPlan;
import gluelab.tensor.DType;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.*;

/** Bad expressions fail where they are written, naming the node and the shapes, before anything compiles. */
class ExprErrorsTest {
    final Glue g = Glue.dims("T", 8, "D", 16, "H", 2, "HD", 8, "F", 12);

    @Test
    void shapeMismatchNamesBothNodesAndShapes() {
        Expr x = g.input("x", "bf16", "T", "D"), u = g.input("u", "bf16", "T", "F");
        ExprException e = assertThrows(ExprException.class, () -> x.add(u));
        assertTrue(e.getMessage().contains("add of") && e.getMessage().contains("'x'") && e.getMessage().contains("'u'"), e.getMessage());
        assertTrue(e.getMessage().contains("[T=8, D=16]") && e.getMessage().contains("[T=8, F=12]"), e.getMessage());
    }

    @Test
    void reductionOverAMissingOrInnerDim() {
        Expr x = g.input("x", "fp32", "T", "D");
        ExprException missing = assertThrows(ExprException.class, () -> x.sum("H"));
        assertTrue(missing.getMessage().contains("sum over H") && missing.getMessage().contains("not a dim of this node")
                && missing.getMessage().contains("[T=8, D=16]"), missing.getMessage());
        ExprException inner = assertThrows(ExprException.class, () -> x.mean("T"));
        assertTrue(inner.getMessage().contains("not the last dim"), inner.getMessage());
    }

    @Test
    void aCycleThroughNamedResultsIsFoundWhenTheRegionIsBuilt() {
        Expr x = g.input("x", "fp32", "T", "D");
        Expr a = g.let("a", g.ref("b", x).mul(2.0));
        g.let("b", a.add(x));
        Region r = g.region("loop").out("y", a);
        ExprException e = assertThrows(ExprException.class, r::nodes);
        assertTrue(e.getMessage().contains("cycle") && e.getMessage().contains("mul[T=8, D=16]") && e.getMessage().contains("add[T=8, D=16]"), e.getMessage());
    }

    @Test
    void namedResultsResolveInAnyOrder() {
        Expr x = g.input("x", "fp32", "T", "D");
        Expr y = g.ref("h", x).mul(3.0);
        g.let("h", x.add(1.0));
        assertEquals(4, g.region("r").out("y", y).nodes().size() - 1, "x, const, add, const, mul: the ref is gone");
    }

    @Test
    void unsupportedDtypesAreRefused() {
        ExprException e = assertThrows(ExprException.class, () -> g.input("idx", DType.I32, "T"));
        assertTrue(e.getMessage().contains("input 'idx'") && e.getMessage().contains("i32"), e.getMessage());
        Expr x = g.input("x", "bf16", "T", "D");
        assertThrows(ExprException.class, () -> x.cast(DType.I64));
    }

    @Test
    void regionLevelErrorsComeFromThePlanNotTheCompiler() {
        Expr x = g.input("x", "fp32", "T", "D"), w = g.input("w", "fp32", "D");
        Expr dw = x.mul(w).sumTo(w.shape());
        ExprException e = assertThrows(ExprException.class, () -> RowPlan.of(g.region("bad").out("y", x.mul(dw))));
        assertTrue(e.getMessage().contains("sum over rows"), e.getMessage());
        Expr s = g.input("s", "fp32", "T", "H"), q = g.input("q", "fp32", "T", "H", "HD");
        ExprException along = assertThrows(ExprException.class, () -> RowPlan.of(g.region("bad2").out("y", q.mul(s)).out("z", s.sum())));
        assertTrue(along.getMessage().contains("row dim"), along.getMessage());
    }

    @Test
    void slicesOutsideTheRowAndOddPairs() {
        Expr x = g.input("x", "fp32", "T", "D");
        assertTrue(assertThrows(ExprException.class, () -> x.slice(10, 8)).getMessage().contains("runs outside the last dim D=16"));
        Expr odd = g.dim("O", 5).input("o", "fp32", "T", "O");
        assertTrue(assertThrows(ExprException.class, odd::pairs).getMessage().contains("odd"));
    }
}
