package gluelab.check;

import gluelab.device.Buffer;
import gluelab.device.Device;
import gluelab.device.Launch;
import gluelab.device.OpInstance;
import gluelab.ops.GlueOp;
import gluelab.ops.OpShape;
import gluelab.ops.Pass;
import gluelab.ops.Variant;
import gluelab.tensor.DType;
import gluelab.tensor.Tensor;
import gluelab.tensor.TensorSpec;

import java.util.*;

/**
 * Runs a variant on a device on small deterministic inputs and compares every output with the
 * fp64 reference (computed from the inputs exactly as stored) and with the eager variant.
 */
public final class Checker {
    /** Prepares the launch that is checked; the device's own prepare unless a caller (the autotuner) pins a kernel config. */
    @FunctionalInterface
    public interface Preparer {
        Launch prepare(OpInstance instance, Map<String, Buffer> args);
    }

    private final Device device;
    private final Preparer preparer;

    public Checker(Device device) { this(device, device::prepare); }

    public Checker(Device device, Preparer preparer) {
        this.device = device;
        this.preparer = preparer;
    }

    /** Relative L2 tolerance vs fp64 per activation dtype: a few ulps of accumulated rounding. */
    public static double tolerance(DType dtype) {
        return switch (dtype) {
            case BF16 -> 1.6e-2;
            case FP16 -> 2e-3;
            case FP32 -> 1e-5;
            default -> 1e-12;
        };
    }

    public Correctness check(GlueOp op, OpShape shape, Pass pass, Variant variant) {
        long seed = 1234;
        Map<String, Tensor> host = new LinkedHashMap<>();
        try {
            for (TensorSpec s : op.inputs(shape, pass)) host.put(s.name(), Tensor.allocate(s));
            op.fillInputs(shape, pass, host, seed);
            Map<String, double[]> in = new HashMap<>();
            host.forEach((k, v) -> in.put(k, v.toDoubles()));
            Map<String, double[]> ref = op.reference(shape, pass, in);
            Map<String, double[]> actual = run(op, shape, pass, variant, host);
            Map<String, double[]> eager = variant == Variant.EAGER ? actual : run(op, shape, pass, Variant.EAGER, host);
            List<ErrorStats> vsRef = new ArrayList<>(), vsEager = new ArrayList<>();
            boolean ok = true;
            double tol = tolerance(shape.dtype());
            for (TensorSpec s : op.outputs(shape, pass)) {
                ErrorStats e = ErrorStats.compare(s.name(), "fp64", actual.get(s.name()), ref.get(s.name()), s.dtype());
                vsRef.add(e);
                if (variant != Variant.EAGER) {
                    vsEager.add(ErrorStats.compare(s.name(), "eager", actual.get(s.name()), eager.get(s.name()), s.dtype()));
                }
                ok &= s.dtype().isFloating() ? e.relL2() <= tol : e.mismatches() == 0;
            }
            return new Correctness(op.name(), pass, variant, shape.tokens(), shape.dtype(), tol, vsRef, vsEager, ok);
        } finally {
            host.values().forEach(Tensor::close);
        }
    }

    private Map<String, double[]> run(GlueOp op, OpShape shape, Pass pass, Variant variant, Map<String, Tensor> inputs) {
        Map<String, Buffer> args = new LinkedHashMap<>();
        try {
            for (TensorSpec s : op.inputs(shape, pass)) {
                Buffer b = device.allocate(s);
                args.put(s.name(), b);
                device.upload(inputs.get(s.name()), b);
            }
            for (TensorSpec s : op.outputs(shape, pass)) args.put(s.name(), device.allocate(s));
            try (Launch launch = variant == Variant.EAGER ? device.prepare(new OpInstance(op, shape, pass, variant), args)
                    : preparer.prepare(new OpInstance(op, shape, pass, variant), args)) {
                launch.run();
                device.synchronize();
            }
            Map<String, double[]> out = new HashMap<>();
            for (TensorSpec s : op.outputs(shape, pass)) {
                try (Tensor t = Tensor.allocate(s)) {
                    device.download(args.get(s.name()), t);
                    out.put(s.name(), t.toDoubles());
                }
            }
            return out;
        } finally {
            args.values().forEach(Buffer::close);
        }
    }
}
