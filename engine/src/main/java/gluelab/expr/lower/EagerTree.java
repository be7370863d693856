package gluelab.expr.lower;

import gluelab.expr.Expr;
import gluelab.expr.ExprException;
import gluelab.expr.Op;
import gluelab.expr.Region;
import gluelab.tensor.TensorSpec;

import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A region as PyTorch eager runs it: one kernel per primitive, every intermediate written to
 * memory in its node's dtype and read back by the next kernel. A slice is a view (no kernel):
 * its reader reads through it. Each kernel is itself a one-primitive region, so it lowers, compiles
 * and is costed like any region.
 */
public record EagerTree(Region source, List<Kernel> kernels, Map<String, TensorSpec> intermediates) {
    /** One eager kernel: its one-primitive region and which tensors (by slot name) it reads and writes. */
    public record Kernel(String label, Region region, List<String> reads, String writes, RegionCost cost) {}

    public static EagerTree of(Region r) {
        Map<Expr, String> slot = new IdentityHashMap<>();
        for (Expr in : r.inputs()) slot.put(in, in.name());
        for (Map.Entry<String, Expr> o : r.outputs().entrySet()) {
            Expr e = o.getValue();
            if (e.op() == Op.INPUT) throw new ExprException("output '" + o.getKey() + "' of region '" + r.name() + "' is the input '" + e.name() + "' itself; no kernel writes it");
        }
        // An output aliasing another (dx = dresidual) is written once, into the first name's slot.
        r.written().forEach((n, e) -> slot.put(e, n));
        Map<String, TensorSpec> scratch = new LinkedHashMap<>();
        List<Kernel> kernels = new ArrayList<>();
        int t = 0;
        for (Expr e : r.nodes()) {
            if (e.op().kind() == Op.Kind.LEAF || (e.op() == Op.SLICE && !slot.containsKey(e))) continue;
            String out = slot.get(e);
            if (out == null) {
                out = "t" + t++;
                slot.put(e, out);
                scratch.put(out, TensorSpec.of(out, e.dtype(), e.shape().sizes()));
            }
            List<String> reads = new ArrayList<>();
            Map<Expr, Expr> leaves = new IdentityHashMap<>();
            List<Expr> args = new ArrayList<>();
            for (Expr a : e.args()) args.add(operand(a, slot, leaves, reads));
            Expr node = e.withArgs(args);
            Region one = Region.of(e.op().id(), Map.of(out, node));
            kernels.add(new Kernel(e.op().id(), one, List.copyOf(reads), out, RegionCost.of(one)));
        }
        return new EagerTree(r, List.copyOf(kernels), scratch);
    }

    /** The operand as the kernel sees it: a materialised tensor, read through any slices over it. */
    private static Expr operand(Expr a, Map<Expr, String> slot, Map<Expr, Expr> leaves, List<String> reads) {
        if (a.op() == Op.CONST || a.op() == Op.PARAM) return a;
        if (a.op() == Op.SLICE && !slot.containsKey(a)) return a.withArgs(List.of(operand(a.arg(0), slot, leaves, reads)));
        Expr leaf = leaves.get(a);
        if (leaf == null) {
            String name = slot.get(a);
            leaf = Expr.input(name, a.shape(), a.dtype(), false);
            leaves.put(a, leaf);
            reads.add(name);
        }
        return leaf;
    }

    public int kernelCount() { return kernels.size(); }

    public RegionCost cost() {
        RegionCost c = new RegionCost(0, 0, 0);
        for (Kernel k : kernels) c = c.plus(k.cost());
        return c;
    }
}
