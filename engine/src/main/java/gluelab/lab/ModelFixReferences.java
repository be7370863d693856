package gluelab.lab;

import gluelab.bench.BenchResult;
import gluelab.ops.Replay;
import gluelab.ops.Variant;
import gluelab.record.Row;
import gluelab.workflow.experiment.ExperimentFolder;
import gluelab.workflow.experiment.Step;
import gluelab.workflow.model.ModelFixResult;
import gluelab.workflow.model.ModelFixStep;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The "best known kernel" rows of step 05 on the model: for a fix whose op is a catalogue op, the
 * catalogue's fused kernel against the op's eager form, fwd+bwd, on the lab's device at the plan's
 * token counts and the plan's model spec's dims: a reference for the fix's saving, not a measurement
 * inside the analyst's model, timed as the step timed its fixes ({@code timing}). Added to the step's saved result.
 */
final class ModelFixReferences {
    private ModelFixReferences() {}

    static ModelFixResult add(Gluelab lab, ExperimentFolder ex, ModelFixResult result, Map<String, String> fixToOp, gluelab.timing.TimingConfig timing) {
        try (var running = ex.running(Step.FIX)) {
            if (fixToOp.isEmpty()) return result;
            List<ModelFixResult.ReferenceRow> refs = new ArrayList<>(result.references());
            var plan = ex.plan();
            for (var e : fixToOp.entrySet()) {
                String fix = e.getKey(), op = e.getValue();
                if (result.fixes().stream().noneMatch(f -> f.name().equals(fix)))
                    throw new IllegalArgumentException("--reference " + fix + "=" + op + ": step 05 tried no fix '" + fix + "'");
                BenchResult b = lab.bench(op).forPlan(plan).variants(Variant.EAGER.id(), Variant.FUSED.id()).timing(timing).check(0).run();
                for (long t : plan.tokens()) {
                    double eager = fwdBwd(b, Variant.EAGER, t), fused = fwdBwd(b, Variant.FUSED, t);
                    String why = Double.isNaN(fused) ? b.skipped().stream().map(s -> s.reason()).findFirst().orElse("no fused row measured") : "";
                    String caveat = "the op alone at " + plan.model() + "'s dims on " + lab.device().id() + ", not inside the model";
                    refs.add(new ModelFixResult.ReferenceRow(fix, op, t, Variant.FUSED.id(), eager, fused, caveat, why));
                }
            }
            ModelFixResult out = result.withReferences(refs);
            ModelFixStep.save(ex, out);
            for (var r : refs) ex.devlog().measurement("best known kernel for fix " + r.fix() + ": catalogue " + r.op() + " " + r.kernel() + " T=" + r.tokens() + " "
                    + (r.reason().isEmpty() ? String.format(java.util.Locale.ROOT, "%.1f vs eager %.1f us fwd+bwd (%s)", r.kernelUs(), r.eagerUs(), r.caveat()) : "not measured: " + r.reason()));
            return out;
        }
    }

    /** The variant's forward plus backward medians at {@code tokens}, launched normally; NaN when a pass is missing. */
    static double fwdBwd(BenchResult b, Variant v, long tokens) {
        List<Row> rows = b.rows().stream().filter(r -> r.variant() == v && r.tokens() == tokens && r.replay() == Replay.DIRECT).toList();
        return rows.isEmpty() ? Double.NaN : rows.stream().mapToDouble(Row::measuredUs).sum();
    }
}
