package gluelab.expr.run;

import gluelab.device.Buffer;
import gluelab.device.Launch;
import gluelab.backend.cpu.CpuBuffer;
import gluelab.backend.cpu.CpuParallel;
import gluelab.expr.Expr;
import gluelab.expr.Signature;
import gluelab.expr.cpu.RowLoop;
import gluelab.expr.lower.RowPlan;
import gluelab.tensor.Tensor;

import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/** A region on the CPU device: its row plan, run by {@link RowLoop} over the bound tensors. */
record CpuRegion(Signature signature, RowPlan plan, CpuParallel parallel) implements CompiledRegion {
    @Override public Launch bind(List<Buffer> inputs, List<Buffer> outputs, float[] params) {
        Map<Expr, Tensor> bound = new IdentityHashMap<>();
        List<Expr> ins = plan.region().inputs();
        for (int i = 0; i < ins.size(); i++) bound.put(ins.get(i), tensor(inputs.get(i)));
        List<Expr> outs = List.copyOf(plan.region().written().values());
        for (int i = 0; i < outs.size(); i++) bound.put(outs.get(i), tensor(outputs.get(i)));
        Map<Expr, Float> p = new IdentityHashMap<>();
        List<Expr> ps = plan.region().params();
        for (int i = 0; i < ps.size(); i++) p.put(ps.get(i), params[i]);
        RowLoop loop = new RowLoop(plan, bound, p, parallel);
        return new Launch() {
            @Override public void run() { loop.run(); }

            @Override public int kernels() { return 1; }

            @Override public long scratchBytes() { return 0; }
        };
    }

    private static Tensor tensor(Buffer b) {
        if (b instanceof CpuBuffer c) return c.tensor();
        throw new IllegalArgumentException("buffer " + b.spec() + " does not belong to the CPU device");
    }
}
