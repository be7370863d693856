package gluelab.workflow.correctness;

import gluelab.check.Checker;
import gluelab.check.Correctness;
import gluelab.check.ErrorStats;
import gluelab.device.Buffer;
import gluelab.device.Device;
import gluelab.device.Launch;
import gluelab.device.OpInstance;
import gluelab.workflow.experiment.ExperimentFolder;
import gluelab.workflow.experiment.Step;
import gluelab.expr.Expr;
import gluelab.expr.Region;
import gluelab.expr.eval.Reference;
import gluelab.expr.workbench.RegionCheck;
import gluelab.expr.run.Lowering;
import gluelab.expr.run.RegionLaunches;
import gluelab.model.ModelSpec;
import gluelab.ops.*;
import gluelab.progress.Progress;
import gluelab.tensor.DType;
import gluelab.tensor.Tensor;
import gluelab.tensor.TensorSpec;

import java.util.*;
import java.util.function.Function;

/**
 * Step 08: every candidate's output and every gradient, in each dtype (bf16 and fp32 by default),
 * against the fp64 reference (rel L2 within the dtype's tolerance) and against eager in the same
 * dtype (max ulp, parity is about 1). With the reference's two traps built in: every input that
 * requires grad must get a gradient (a detached input has none), and a second step with the same
 * inputs must give the same gradients (gradients that accumulate across steps do not).
 *
 * <pre>
 * StepCorrectness.on(lab.device(), lab.spec(model)).tokens(16)
 *     .op("rmsnorm", "fused")
 *     .region("qnorm_rope", dt -> Examples.qnormRopeReal(Glue.of(spec, 16), dt))
 *     .run().table()
 * </pre>
 */
public final class StepCorrectness {
    private record OpCandidate(GlueOp op, Variant variant) {}

    private record RegionCandidate(String name, Function<String, Region> build) {}

    private final Device device;
    private final ModelSpec spec;
    private long tokens = 16;
    private List<DType> dtypes = List.of(DType.BF16, DType.FP32);
    private final List<OpCandidate> ops = new ArrayList<>();
    private final List<RegionCandidate> regions = new ArrayList<>();
    private Progress progress = Progress.NONE;

    private StepCorrectness(Device device, ModelSpec spec) {
        this.device = device;
        this.spec = spec;
    }

    public static StepCorrectness on(Device device, ModelSpec spec) { return new StepCorrectness(device, spec); }

    /** Token count of the catalogue checks (the fp64 reference runs on the host: keep it small). */
    public StepCorrectness tokens(long t) {
        if (t <= 0) throw new IllegalArgumentException("tokens must be positive, got " + t);
        tokens = t;
        return this;
    }

    public StepCorrectness dtypes(String... ids) {
        dtypes = Arrays.stream(ids).map(DType::parse).toList();
        return this;
    }

    public StepCorrectness progress(Progress p) { progress = p == null ? Progress.NONE : p; return this; }

    /** A catalogue op's variant (e.g. fused) against eager and fp64. */
    public StepCorrectness op(String op, String variant) {
        Variant v = Variant.parse(variant);
        if (!v.onDevices()) throw new IllegalArgumentException("variant " + variant + " does not run on gluelab's devices");
        ops.add(new OpCandidate(Catalogue.parse(op), v));
        return this;
    }

    /** An analyst's region, built once per dtype ({@code build} takes the dtype id); its fused lowering against eager and fp64. */
    public StepCorrectness region(String name, Function<String, Region> build) {
        regions.add(new RegionCandidate(name, build));
        return this;
    }

    public CorrectnessResult run() {
        if (ops.isEmpty() && regions.isEmpty()) throw new IllegalArgumentException("nothing to check: add an op or a region");
        List<CheckRow> rows = new ArrayList<>();
        int total = (ops.size() + regions.size()) * dtypes.size(), done = 0;
        for (DType dtype : dtypes) {
            Optional<String> skip = device.capabilities().skip(dtype, device.id()).map(gluelab.ops.Skip::reason);
            for (OpCandidate c : ops) {
                progress.update("correctness", done++, total, c.op().name() + " " + c.variant().id() + " " + dtype.id());
                if (skip.isPresent()) rows.add(new CheckRow(c.op().name(), c.variant().id(), dtype, "", "", null, null, 0, true, skip.get()));
                else rows.addAll(checkOp(c, dtype));
            }
            for (RegionCandidate c : regions) {
                progress.update("correctness", done++, total, c.name() + " fused " + dtype.id());
                if (skip.isPresent()) rows.add(new CheckRow(c.name(), "fused", dtype, "", "", null, null, 0, true, skip.get()));
                else rows.addAll(checkRegion(c, dtype));
            }
        }
        progress.update("correctness", total, total, "done");
        return new CorrectnessResult(CorrectnessResult.FORMAT, rows);
    }

    /** Checks, writes {@code steps/08-correctness/correctness.json} and the devlog, and marks step 08 done. */
    public CorrectnessResult record(ExperimentFolder ex) {
        try (var running = ex.running(Step.CORRECTNESS)) {
            CorrectnessResult r = run();
            var file = ex.stepDir(Step.CORRECTNESS).resolve("correctness.json");
            r.save(file);
            for (CheckRow row : r.failures()) ex.devlog().deadEnd("correctness: " + row.subject() + " " + row.candidate() + " " + row.dtype().id() + " "
                    + row.pass() + " " + row.tensor() + ": " + row.verdict());
            ex.devlog().measurement("correctness: " + r.summary());
            ex.done(Step.CORRECTNESS, List.of(), Map.of("correctness", ex.dir().relativize(file).toString()), r.summary());
            return r;
        }
    }

    /** The verdicts step 08 left in {@code ex}. */
    public static CorrectnessResult latest(ExperimentFolder ex) { return CorrectnessResult.load(ex.file(Step.CORRECTNESS, "correctness")); }

    private List<CheckRow> checkOp(OpCandidate c, DType dtype) {
        List<CheckRow> rows = new ArrayList<>();
        OpShape shape = c.op().shape(spec, tokens, dtype);
        Checker checker = new Checker(device);
        for (Pass pass : Pass.values()) {
            if (!c.op().supports(pass)) continue;
            Correctness k = checker.check(c.op(), shape, pass, c.variant());
            Map<String, ErrorStats> eager = new HashMap<>();
            for (ErrorStats e : k.vsEager()) eager.put(e.tensor(), e);
            for (ErrorStats e : k.vsReference()) {
                boolean ok = e.mismatches() == 0 && e.relL2() <= k.tolerance();
                rows.add(new CheckRow(c.op().name(), c.variant().id(), dtype, pass.id(), e.tensor(), e, eager.get(e.tensor()), k.tolerance(), ok, ""));
            }
        }
        if (c.op().supports(Pass.BACKWARD)) rows.add(repeatOp(c, shape));
        return rows;
    }

    /** Runs the backward twice into the same buffers with the same inputs; a gradient that changes accumulates across steps. */
    private CheckRow repeatOp(OpCandidate c, OpShape shape) {
        GlueOp op = c.op();
        Map<String, Buffer> args = new LinkedHashMap<>();
        Map<String, Tensor> host = new LinkedHashMap<>();
        try {
            for (TensorSpec s : op.inputs(shape, Pass.BACKWARD)) host.put(s.name(), Tensor.allocate(s));
            op.fillInputs(shape, Pass.BACKWARD, host, 99);
            for (var e : host.entrySet()) {
                Buffer b = device.allocate(e.getValue().spec());
                args.put(e.getKey(), b);
                device.upload(e.getValue(), b);
            }
            for (TensorSpec s : op.outputs(shape, Pass.BACKWARD)) {
                Buffer b = device.allocate(s);
                args.put(s.name(), b);
                try (Tensor zero = Tensor.allocate(s)) {
                    device.upload(zero, b);
                }
            }
            try (Launch l = device.prepare(new OpInstance(op, shape, Pass.BACKWARD, c.variant()), args)) {
                l.run();
                device.synchronize();
                Map<String, double[]> first = download(op.outputs(shape, Pass.BACKWARD), args);
                l.run();
                device.synchronize();
                Map<String, double[]> second = download(op.outputs(shape, Pass.BACKWARD), args);
                return repeatRow(op.name(), c.variant().id(), shape.dtype(), first, second);
            }
        } finally {
            host.values().forEach(Tensor::close);
            args.values().forEach(Buffer::close);
        }
    }

    private Map<String, double[]> download(List<TensorSpec> specs, Map<String, Buffer> args) {
        Map<String, double[]> out = new LinkedHashMap<>();
        for (TensorSpec s : specs) {
            try (Tensor t = Tensor.allocate(s)) {
                device.download(args.get(s.name()), t);
                out.put(s.name(), t.toDoubles());
            }
        }
        return out;
    }

    private static CheckRow repeatRow(String subject, String candidate, DType dtype, Map<String, double[]> first, Map<String, double[]> second) {
        double tol = Checker.tolerance(dtype);
        List<String> changed = new ArrayList<>();
        ErrorStats worst = null;
        for (var e : first.entrySet()) {
            ErrorStats s = ErrorStats.compare(e.getKey(), "first step", second.get(e.getKey()), e.getValue(), dtype);
            if (worst == null || s.relL2() > worst.relL2()) worst = s;
            if (!(s.relL2() <= tol)) changed.add(e.getKey() + String.format(Locale.ROOT, " (rel L2 %.2e)", s.relL2()));
        }
        boolean ok = changed.isEmpty();
        return new CheckRow(subject, candidate, dtype, "bwd x2", "all gradients", worst, null, tol, ok,
                ok ? "a second step with the same inputs gives the same gradients (none accumulate)"
                        : "gradients change on a second step with the same inputs: " + changed + "; they accumulate across steps (reset them per step)");
    }

    private List<CheckRow> checkRegion(RegionCandidate c, DType dtype) {
        Region fwd;
        try {
            fwd = c.build().apply(dtype.id());
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("region " + c.name() + " in " + dtype.id() + ": " + e.getMessage(), e);
        }
        double tol = Checker.tolerance(dtype);
        List<CheckRow> rows = new ArrayList<>();
        if (fwd.inputs().stream().noneMatch(Expr::requiresGrad)) {
            rows.add(new CheckRow(c.name(), "fused", dtype, "bwd", "(none)", null, null, tol, false,
                    "no input requires grad (detached inputs): declare inputs with Glue.input; Glue.data is for tables without gradients"));
            return rows;
        }
        Region bwd = fwd.backward();
        for (Region r : List.of(fwd, bwd)) {
            String pass = r == fwd ? "fwd" : "bwd";
            Map<String, double[]> in = RegionCheck.randomInputs(r, 1234);
            Map<String, double[]> ref = Reference.of(r).run(in, Map.of());
            Map<String, double[]> eager = RegionLaunches.run(device, r, Lowering.EAGER, in, Map.of());
            Map<String, double[]> fused = RegionLaunches.run(device, r, Lowering.FUSED, in, Map.of());
            for (Map.Entry<String, Expr> o : r.outputs().entrySet()) {
                DType out = o.getValue().dtype();
                ErrorStats vsRef = ErrorStats.compare(o.getKey(), "fp64", fused.get(o.getKey()), ref.get(o.getKey()), out);
                ErrorStats vsEager = ErrorStats.compare(o.getKey(), "eager", fused.get(o.getKey()), eager.get(o.getKey()), out);
                double limit = Checker.tolerance(out);
                rows.add(new CheckRow(c.name(), "fused", dtype, pass, o.getKey(), vsRef, vsEager, limit, vsRef.relL2() <= limit, ""));
            }
        }
        // A detached input: the forward's inputs that require grad must each have a gradient out of the backward.
        for (Expr x : fwd.inputs()) {
            if (x.requiresGrad() && !bwd.outputs().containsKey("d" + x.name())) {
                rows.add(new CheckRow(c.name(), "fused", dtype, "bwd", "d" + x.name(), null, null, tol, false,
                        "no gradient for input " + x.name() + ", which requires grad (a detached input)"));
            }
        }
        rows.add(repeatRegion(c.name(), bwd, dtype));
        return rows;
    }

    private CheckRow repeatRegion(String name, Region bwd, DType dtype) {
        Map<String, Buffer> buffers = new LinkedHashMap<>();
        try {
            for (TensorSpec s : RegionLaunches.tensors(bwd)) buffers.put(s.name(), device.allocate(s));
            Map<String, double[]> in = RegionCheck.randomInputs(bwd, 99);
            for (Expr x : bwd.inputs()) {
                try (Tensor t = Tensor.allocate(TensorSpec.of(x.name(), x.dtype(), x.shape().sizes()))) {
                    double[] v = in.get(x.name());
                    for (int i = 0; i < v.length; i++) t.setDouble(i, v[i]);
                    device.upload(t, buffers.get(x.name()));
                }
            }
            List<TensorSpec> outs = new ArrayList<>();
            bwd.written().forEach((o, e) -> outs.add(TensorSpec.of(o, e.dtype(), e.shape().sizes())));
            try (Launch l = RegionLaunches.prepare(device, bwd, Lowering.FUSED, buffers, Map.of())) {
                l.run();
                device.synchronize();
                Map<String, double[]> first = download(outs, buffers);
                l.run();
                device.synchronize();
                return repeatRow(name, "fused", dtype, first, download(outs, buffers));
            }
        } finally {
            buffers.values().forEach(Buffer::close);
        }
    }
}
