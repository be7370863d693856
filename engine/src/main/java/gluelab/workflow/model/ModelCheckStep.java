package gluelab.workflow.model;

import gluelab.check.Checker;
import gluelab.check.ErrorStats;
import gluelab.files.AtomicFiles;
import gluelab.model.ModelSpec;
import gluelab.progress.Progress;
import gluelab.table.TableFormat;
import gluelab.tensor.DType;
import gluelab.torch.ModelCorrectness;
import gluelab.torch.ModelFix;
import gluelab.torch.StepLimits;
import gluelab.torch.TorchBridge;
import gluelab.workflow.correctness.CheckRow;
import gluelab.workflow.correctness.CorrectnessResult;
import gluelab.workflow.experiment.ExperimentFolder;
import gluelab.workflow.experiment.ExperimentPlan;
import gluelab.workflow.experiment.ModelSubject;
import gluelab.workflow.experiment.Step;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Step 08 for the analyst's model: every output, input gradient and parameter gradient of each fix (a named variant of the
 * model, {@link ModelFix}) against an fp64 copy of the model (same weights and inputs, rounded to the dtype checked) and
 * against the model as written (eager) in the same dtype, in bf16 and fp32 by default. A tensor passes when its rel L2 vs fp64
 * is within {@code max(the dtype's tolerance, 2 x eager's own rel L2 vs fp64)}: a fix may be as far from fp64 as the model as
 * written is, with a factor of 2 for rounding in another order (the rule of torch's own accuracy checks against an fp64
 * reference); the tolerance is in the table beside the verdict. A fix whose step gives other outputs or gradients when it runs
 * a second time on the same inputs fails (nondeterminism, or state that carries across steps), as does a gradient the fix
 * does not produce. Kept as {@code steps/08-correctness/correctness.json} (the catalogue's shape) and {@code model-correctness.md}.
 */
public final class ModelCheckStep {
    public static final String FILE = "correctness", SUMMARY = "model-correctness";
    /** How much farther from fp64 than eager a fix may be. */
    public static final double EAGER_FACTOR = 2;
    public static final List<DType> DTYPES = List.of(DType.BF16, DType.FP32);

    private ModelCheckStep() {}

    /**
     * What one check did: {@code now}, the rows of the fixes checked this time; {@code step}, what step 08 holds after it (the
     * rows of fixes checked earlier and not again are kept); {@code kept} and {@code replaced}, the fixes of earlier checks kept
     * as they were and those whose rows this check replaced.
     */
    public record Checked(CorrectnessResult now, CorrectnessResult step, List<String> kept, List<String> replaced) {
        public Checked {
            kept = List.copyOf(kept);
            replaced = List.copyOf(replaced);
        }

        /** What this check did to step 08, in a line. */
        public String merge() {
            if (kept.isEmpty() && replaced.isEmpty()) return "step 08 holds the fixes checked now";
            return "step 08 holds " + step.rows().size() + " rows: "
                    + (kept.isEmpty() ? "" : "kept the earlier rows of " + kept + (replaced.isEmpty() ? "" : "; "))
                    + (replaced.isEmpty() ? "" : "replaced the earlier rows of " + replaced + " with this check's");
        }

        /** Every row of this check failed to run (the model or every fix raised): no tensor was compared. */
        public boolean nothingChecked() { return nothingCompared(now); }
    }

    /** Checks {@code fixes} (see {@link #check}); the rows of this check. */
    public static CorrectnessResult run(ExperimentFolder ex, TorchBridge bridge, ModelSpec spec, List<ModelFix> fixes, List<DType> dtypes, long tokens,
                                        Progress progress) {
        return check(ex, bridge, spec, fixes, dtypes, tokens, progress).now();
    }

    /**
     * Checks {@code fixes} at {@code tokens} tokens (0: the plan's smallest count) in {@code dtypes} and adds them to step 08: the
     * rows of a fix checked again (and eager's rows in a dtype checked again) replace its earlier ones, other fixes' rows stay, so
     * checking one more fix does not lose the verdicts a later step needs. Marks step 08 done, or failed when no row compared a tensor.
     */
    public static Checked check(ExperimentFolder ex, TorchBridge bridge, ModelSpec spec, List<ModelFix> fixes, List<DType> dtypes, long tokens,
                                Progress progress) {
        return check(ex, bridge, spec, fixes, dtypes, tokens, StepLimits.standard(), progress);
    }

    /** As above, the model's and the fixes' code under {@code limits}. */
    public static Checked check(ExperimentFolder ex, TorchBridge bridge, ModelSpec spec, List<ModelFix> fixes, List<DType> dtypes, long tokens,
                                StepLimits limits, Progress progress) {
        try (var running = ex.running(Step.CORRECTNESS)) {
            ExperimentPlan plan = ex.plan();
            ModelSubject s = plan.modelSubject();
            long t = tokens > 0 ? tokens : plan.tokens().stream().mapToLong(Long::longValue).min().orElseThrow();
            List<String> names = fixes.stream().map(ModelFix::name).toList();
            if (names.stream().distinct().count() != names.size()) throw new IllegalArgumentException("--fix: two fixes share a name: " + names);
            // Read first: an unreadable earlier result stops the check before minutes of work, not after.
            List<CheckRow> earlier = ex.has(Step.CORRECTNESS) ? load(ex).rows() : List.of();
            ModelCorrectness c = ModelCorrectness.run(bridge, ModelPlan.entry(ex), ModelPlan.inputs(s, spec, t), t, fixes, dtypes, s.blocks(), limits, progress);
            CorrectnessResult now = new CorrectnessResult(CorrectnessResult.FORMAT, rows(ModelPlan.entry(s).shortName(), c));
            Checked checked = merge(earlier, now, names, dtypes);
            CorrectnessResult r = checked.step();
            Path dir = ex.stepDir(Step.CORRECTNESS);
            Path file = dir.resolve(FILE + ".json");
            r.save(file);
            Path md = dir.resolve(SUMMARY + ".md");
            List<String> all = r.rows().stream().map(CheckRow::candidate).filter(x -> !x.equals(EAGER)).distinct().toList();
            AtomicFiles.write(md, "# Correctness of " + c.model() + ": " + String.join(", ", all) + "\n\n"
                    + "This check: " + String.join(", ", fixes.stream().map(ModelFix::spec).toList()) + " at " + t + " tokens"
                    + (checked.kept().isEmpty() ? "" : "; the rows of " + checked.kept() + " are from earlier checks") + ".\n\n"
                    + "A tensor passes when its rel L2 vs fp64 is within the limit beside it: max(the dtype's tolerance, " + EAGER_FACTOR
                    + " x eager's own rel L2 vs fp64); a second step on the same inputs must give the same values bit for bit.\n\n"
                    + TableFormat.markdown(r.table()));
            for (CheckRow row : now.failures()) ex.devlog().deadEnd("correctness: " + row.subject() + " " + row.candidate() + " " + row.dtype().id() + " "
                    + row.pass() + " " + row.tensor() + ": " + row.verdict());
            ex.devlog().measurement("correctness: " + now.summary() + "; " + checked.merge());
            Map<String, String> files = new LinkedHashMap<>();
            files.put(FILE, ex.dir().relativize(file).toString());
            files.put(SUMMARY, ex.dir().relativize(md).toString());
            if (nothingCompared(r)) ex.failed(Step.CORRECTNESS, files, "nothing checked: " + r.summary());
            else ex.done(Step.CORRECTNESS, List.of(), files, r.summary());
            return checked;
        }
    }

    /** The candidate of the rows that say the model as written failed in a dtype. */
    static final String EAGER = "eager";

    /** {@code now} added to the {@code earlier} rows of step 08: the fixes {@code checked} now, and eager in the dtypes checked now, replaced. */
    static Checked merge(List<CheckRow> earlier, CorrectnessResult now, List<String> checked, List<DType> dtypes) {
        List<CheckRow> rows = new ArrayList<>();
        List<String> kept = new ArrayList<>(), replaced = new ArrayList<>();
        for (CheckRow row : earlier) {
            String fix = row.candidate();
            boolean again = checked.contains(fix) || (fix.equals(EAGER) && dtypes.contains(row.dtype()));
            if (!again) rows.add(row);
            List<String> into = again ? replaced : kept;
            if (!fix.equals(EAGER) && !into.contains(fix)) into.add(fix);
        }
        rows.addAll(now.rows());
        return new Checked(now, new CorrectnessResult(CorrectnessResult.FORMAT, rows), kept, replaced);
    }

    /** No row compared a tensor with anything: each one says the model or the fix failed to run. */
    static boolean nothingCompared(CorrectnessResult r) {
        return r.rows().stream().allMatch(x -> !x.ok() && x.vsFp64() == null && x.vsEager() == null && x.pass().isEmpty());
    }

    /** The rows: per dtype and fix, every tensor vs fp64 and eager, the tensors the fix lacks or adds, and the repeat. */
    static List<CheckRow> rows(String model, ModelCorrectness c) {
        List<CheckRow> rows = new ArrayList<>();
        for (ModelCorrectness.AtDtype d : c.dtypes()) {
            DType dt = d.dtype();
            if (!d.error().isEmpty()) {
                rows.add(new CheckRow(model, EAGER, dt, "", "", null, null, 0, false, "the model as written failed: " + d.error()));
                continue;
            }
            Map<String, ModelCorrectness.Tensor> eager = new LinkedHashMap<>();
            d.tensors().forEach(t -> eager.put(t.name(), t));
            for (ModelCorrectness.FixRun f : d.fixes()) {
                if (!f.error().isEmpty()) {
                    rows.add(new CheckRow(model, f.fix(), dt, "", "", null, null, 0, false, f.error()));
                    continue;
                }
                for (ModelCorrectness.FixTensor t : f.tensors()) rows.add(row(model, f.fix(), dt, t, eager.get(t.name()), d.referenceError()));
                for (String p : f.missing()) rows.add(new CheckRow(model, f.fix(), dt, "", "param " + p, null, null, 0, false,
                        "the fix's model has no parameter or buffer " + p + " of the model as written: its weights are not the model's"));
                for (String p : f.unexpected()) rows.add(new CheckRow(model, f.fix(), dt, "", "param " + p, null, null, 0, false,
                        "the fix's model has a parameter or buffer " + p + " the model as written lacks: it keeps its own initial values"));
                rows.add(repeat(model, f, dt, d.eagerRepeat()));
            }
        }
        return rows;
    }

    /** One tensor of a fix: within the limit vs fp64 passes; without an fp64 reference it is compared with eager only and does not pass. */
    static CheckRow row(String model, String fix, DType dt, ModelCorrectness.FixTensor t, ModelCorrectness.Tensor eager, String referenceError) {
        String name = t.name();
        String pass = name.startsWith("grad ") ? "bwd" : "fwd";
        if (t.elements() < 0) return new CheckRow(model, fix, dt, pass, name, null, null, 0, false, "the fix gives no " + name
                + " (a detached input, or a parameter the fix renamed or dropped)");
        if (eager == null || t.elements() != eager.elements()) return new CheckRow(model, fix, dt, pass, name, null, null, 0, false, name + " has "
                + t.elements() + " values in the fix, " + (eager == null ? "none" : eager.elements()) + " in the model as written");
        if (t.vsFp64() == null || eager.eagerVsFp64() == null) return new CheckRow(model, fix, dt, pass, name, null, t.vsEager(), 0, false,
                "no fp64 reference" + (referenceError.isEmpty() ? "" : ": " + referenceError) + "; compared with eager only, so not passed");
        ErrorStats eagerVsFp64 = eager.eagerVsFp64();
        double limit = Math.max(Checker.tolerance(dt), EAGER_FACTOR * eagerVsFp64.relL2());
        String note = String.format(Locale.ROOT, "eager: rel L2 %.2e vs fp64", eagerVsFp64.relL2())
                + (eagerVsFp64.relL2() > Checker.tolerance(dt) ? " (over " + dt.id() + "'s tolerance itself: a discrete choice such as top-k "
                + "routing may differ from the fp64 copy's, so the limit is wide; read the columns vs eager)" : "");
        return new CheckRow(model, fix, dt, pass, name, t.vsFp64(), t.vsEager(), limit, t.vsFp64().relL2() <= limit, note);
    }

    /**
     * The fix's second step against its first: a tensor that changes fails, unless the model as written changes it by itself too
     * (its own second step, {@code eagerRepeat}) and the fix's change is within {@link #EAGER_FACTOR} x eager's: nondeterministic
     * kernels of the model (atomics in fp32 attention backward on a GPU), not of the fix.
     */
    static CheckRow repeat(String model, ModelCorrectness.FixRun f, DType dt, List<ModelCorrectness.Repeat> eagerRepeat) {
        Map<String, ErrorStats> eager = new LinkedHashMap<>();
        for (ModelCorrectness.Repeat r : eagerRepeat) if (r.stats() != null) eager.put(r.name(), r.stats());
        List<String> changed = new ArrayList<>(), excused = new ArrayList<>();
        ErrorStats worst = null;
        for (ModelCorrectness.Repeat r : f.repeat()) {
            ErrorStats s = r.stats();
            if (s == null) {
                changed.add(r.name() + " (missing on the second step)");
                continue;
            }
            if (worst == null || s.maxAbs() > worst.maxAbs() || !Double.isFinite(s.relL2())) worst = s;
            if (s.maxAbs() == 0 && s.mismatches() == 0 && Double.isFinite(s.relL2())) continue;
            ErrorStats own = eager.get(r.name());
            String what = r.name() + String.format(Locale.ROOT, " (rel L2 %.2e", s.relL2());
            if (own != null && own.maxAbs() > 0 && Double.isFinite(s.relL2()) && s.relL2() <= EAGER_FACTOR * own.relL2())
                excused.add(what + String.format(Locale.ROOT, ", eager's own %.2e)", own.relL2()));
            else changed.add(what + (own == null || own.maxAbs() == 0 ? "; eager's own second step gives it bit for bit)" : String.format(Locale.ROOT,
                    ", over %.0f x eager's own %.2e)", EAGER_FACTOR, own.relL2())));
        }
        boolean ok = changed.isEmpty() && worst != null;
        String note;
        if (!ok) note = "a second step on the same inputs changes " + changed.size() + " tensors: " + changed.subList(0, Math.min(4, changed.size()))
                + (changed.size() > 4 ? "..." : "") + "; nondeterministic (random numbers, atomics) or state carried across steps";
        else if (excused.isEmpty()) note = "a second step on the same inputs gives the same values bit for bit";
        else note = "a second step changes " + excused.size() + " tensors, as the model as written's own second step does (within " + (int) EAGER_FACTOR
                + " x): " + excused.subList(0, Math.min(3, excused.size())) + (excused.size() > 3 ? "..." : "") + "; nondeterministic kernels of the model, not the fix's";
        return new CheckRow(model, f.fix(), dt, "fwd+bwd x2", "all outputs and gradients", worst, null, 0, ok, note);
    }

    /** The verdicts step 08 left in {@code ex}. */
    public static CorrectnessResult load(ExperimentFolder ex) { return CorrectnessResult.load(ex.file(Step.CORRECTNESS, FILE)); }
}
