package gluelab.backend.cpu;

import gluelab.device.Launch;
import gluelab.tensor.DType;
import gluelab.tensor.Tensor;
import gluelab.tensor.TensorSpec;

import java.util.ArrayList;
import java.util.List;

/**
 * A CPU launch as a list of passes. An eager program has one pass per primitive op, each
 * writing its intermediate to a scratch tensor; a fused program has a single pass.
 */
final class Program implements Launch {
    private final List<Runnable> passes = new ArrayList<>();
    private final List<Tensor> scratch = new ArrayList<>();

    Tensor scratch(String name, DType dtype, long... shape) {
        Tensor t = Tensor.allocate(TensorSpec.of(name, dtype, shape));
        scratch.add(t);
        return t;
    }

    Program pass(Runnable r) {
        passes.add(r);
        return this;
    }

    @Override public void run() {
        for (Runnable r : passes) r.run();
    }

    @Override public int kernels() { return passes.size(); }

    @Override public long scratchBytes() {
        long sum = 0;
        for (Tensor t : scratch) sum += t.spec().bytes();
        return sum;
    }

    @Override public void close() {
        for (Tensor t : scratch) t.close();
        scratch.clear();
    }
}
