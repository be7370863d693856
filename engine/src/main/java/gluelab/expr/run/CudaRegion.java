package gluelab.expr.run;

import gluelab.device.Buffer;
import gluelab.device.Device;
import gluelab.device.Launch;
import gluelab.backend.cuda.GeneratedModule;
import gluelab.expr.Expr;
import gluelab.expr.Signature;
import gluelab.expr.cuda.CudaSource;
import gluelab.expr.cuda.LaunchConfig;
import gluelab.expr.lower.Role;
import gluelab.expr.lower.RowPlan;
import gluelab.tensor.DType;
import gluelab.tensor.TensorSpec;

import java.util.ArrayList;
import java.util.List;

/** A region's generated kernel on a CUDA device: zero the workspaces, the main kernel, store the workspaces. */
record CudaRegion(Signature signature, RowPlan plan, CudaSource.Generated generated, GeneratedModule module, Device device) implements CompiledRegion {
    static CudaRegion compile(Device device, Signature sig, RowPlan plan, LaunchConfig c) {
        CudaSource.Generated g = CudaSource.generate(plan, c);
        return new CudaRegion(sig, plan, g, GeneratedModule.compile(device, g.source(), "region_" + sig.key() + ".cu"), device);
    }

    @Override public Launch bind(List<Buffer> inputs, List<Buffer> outputs, float[] params) {
        LaunchConfig c = generated.config();
        long rows = plan.rows();
        // A flat region's kernel walks tiles of its rows x length elements; it is told the element count.
        long elements = rows * plan.maxLength();
        long groups = c.isFlat() ? (elements + c.tile() - 1) / c.tile() : (rows + c.rowsPerBlock() - 1) / c.rowsPerBlock();
        // A capped grid is one resident wave (as the hand kernels size theirs): no more blocks an SM than its registers and shared memory hold.
        int perSm = c.blocksPerSm() > 0 ? Math.min(c.blocksPerSm(), module.residentBlocks(CudaSource.MAIN, c.blockThreads())) : 0;
        int grid = (int) Math.max(1, Math.min(groups, perSm > 0 ? (long) perSm * module.sms() : Integer.MAX_VALUE));
        List<Expr> outs = List.copyOf(plan.region().written().values());
        List<Buffer> workspaces = new ArrayList<>();
        List<Object> main = new ArrayList<>(inputs);
        List<Object> ws = new ArrayList<>(), finals = new ArrayList<>(), zeroed = new ArrayList<>();
        long columns = 0;
        for (int i = 0; i < outs.size(); i++) {
            Expr o = outs.get(i);
            if (plan.role(o) == Role.ACCUMULATE) {
                boolean partial = CudaSource.usesPartials(o);
                // A vector sum keeps one fp32 partial row per block; other sums add into their target by atomics.
                Buffer w = device.allocate(TensorSpec.of("ws" + i, DType.FP32, (partial ? grid : 1) * o.shape().elements()));
                workspaces.add(w);
                main.add(w);
                ws.add(w);
                finals.add(outputs.get(i));
                if (partial) columns = Math.max(columns, o.shape().elements());
                else zeroed.add(w);
            } else {
                main.add(outputs.get(i));
            }
        }
        for (float p : params) main.add(p);
        main.add(c.isFlat() ? elements : rows);
        List<Launch> steps = new ArrayList<>();
        if (!ws.isEmpty()) {
            List<Object> zero = new ArrayList<>(ws);
            zero.add(0L);
            if (!zeroed.isEmpty()) steps.add(module.launch(CudaSource.ZERO, module.sms() * 2, 256, zero));
        }
        steps.add(module.launch(CudaSource.MAIN, grid, c.blockThreads(), main));
        if (!ws.isEmpty()) {
            List<Object> fin = new ArrayList<>(ws);
            fin.addAll(finals);
            fin.add((long) grid);
            int blocks = (int) Math.max((columns + 31) / 32, zeroed.isEmpty() ? 1 : module.sms() * 2L);
            steps.add(module.launch(CudaSource.FINALIZE, blocks, 1024, fin));
        }
        return new Sequence(List.copyOf(steps), List.copyOf(workspaces));
    }
}
