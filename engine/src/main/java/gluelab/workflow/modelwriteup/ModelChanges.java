package gluelab.workflow.modelwriteup;

import gluelab.ops.Replay;
import gluelab.timing.Noise;
import gluelab.torch.ModelFix;
import gluelab.torch.ModelProfile;
import gluelab.workflow.confirm.Confirmation;
import gluelab.workflow.confirm.ModelConfirmResult;
import gluelab.workflow.correctness.CorrectnessResult;
import gluelab.workflow.experiment.ModelSubject;
import gluelab.workflow.graphbudget.BudgetResult;
import gluelab.workflow.graphbudget.RegionGraphs;
import gluelab.workflow.model.ModelFixResult;
import gluelab.workflow.stack.*;

import java.nio.file.Path;
import java.util.*;
import java.util.stream.Collectors;

/**
 * Step 09 on the analyst's model: one change per fix that step 07 measured, filled from the steps
 * before it. Its before -> after are step 07's confirmed rows, each carrying its caveat (noisy,
 * unconfirmed, device not quiet) and, when the row is no win of at least {@link Confirmation#WITHIN}
 * outside its noise, that it is none (inconclusive when inside the noise): such numbers are never stated as a win. Its code is the fix spec's files and
 * functions with their {@code def} lines, its problem the profile's source lines of the changed
 * function (step 03), its verdicts step 08's rows, its graph count step 06's for a region it compiles
 * (or why there is none), its test plan what the steps did to it on this device. A fix step 08 found
 * wrong is no change but a rejected idea, one entry however many of its rows failed.
 */
public final class ModelChanges {
    /** What the steps before left, each null when that step has not run. */
    public record Inputs(ModelSubject subject, List<Long> tokens, ModelConfirmResult confirmed, ModelFixResult screened, ModelProfile profile,
                         CorrectnessResult correctness, BudgetResult budget, String commit) {}

    static final String NOT_A_WIN = "not a win in step 07: ";

    /** Opens the title of a change that step 07 found no win at any token count: its PR text is a record, not a proposal. */
    public static final String NOT_RECOMMENDED = "Not recommended (no win in step 07): ";
    /** How a rejected fix's idea ends when step 08 found it wrong (the feedback then says it failed correctness, not that it did not pay off). */
    static final String WRONG_IN_STEP_08 = ", wrong in step 08)";

    /**
     * Opens the title of a change with no win in step 07 that was faster somewhere only within the noise: its PR text
     * is a record marked not confirmed, not a proposal.
     */
    public static final String INCONCLUSIVE = "Not confirmed (" + Noise.INCONCLUSIVE + " in step 07, within the noise): ";

    /** The opening of a title that marks its change as no proposal ({@link #NOT_RECOMMENDED}, {@link #INCONCLUSIVE}), if it has one. */
    public static Optional<String> notProposed(String title) {
        return java.util.stream.Stream.of(NOT_RECOMMENDED, INCONCLUSIVE).filter(title::startsWith).findFirst();
    }

    private ModelChanges() {}

    /**
     * The stack under {@code conditions}; every fix the steps know lands in one place, with the reason: a fix step 08 found
     * wrong is rejected (whatever it timed); a fix step 07 measured is a change; a fix step 07 could not measure is not
     * tested; a fix step 05 screened but step 07 did not confirm is rejected; a fix only step 08 checked is not tested.
     */
    public static ChangeStack stack(Conditions conditions, Inputs in) {
        ChangeStack stack = ChangeStack.empty(conditions);
        Map<String, FailedCheck> wrong = in.correctness() == null ? Map.of() : FailedCheck.of(in.correctness());
        Set<String> placed = new HashSet<>();
        for (ModelFix f : in.confirmed().fixes()) {
            List<ModelConfirmResult.Row> rows = in.confirmed().rows().stream().filter(r -> r.fix().equals(f.name()) && r.measured()).toList();
            if (wrong.containsKey(f.name())) stack = stack.withRejected(wrongFix(f.name(), kinds(f), wrong.get(f.name()), rows));
            else if (rows.isEmpty()) stack = stack.withNotTested("fix " + f.name() + ": step 07 measured no row of it (" + in.confirmed().summary() + ")");
            else stack = stack.with(change(f, rows, in));
            placed.add(f.name());
        }
        if (in.screened() != null) {
            Set<String> screenedOnly = new HashSet<>();
            for (ModelFixResult.FixRow r : in.screened().rows()) {
                if (placed.contains(r.fix())) continue;
                if (wrong.containsKey(r.fix())) {
                    stack = stack.withRejected(wrongFix(r.fix(), kind(r.kind()) + ", screened in step 05, not confirmed", wrong.get(r.fix()), List.of()));
                    placed.add(r.fix());
                } else {
                    stack = stack.withRejected(new Rejected("fix " + r.fix() + " (" + kind(r.kind()) + ", " + r.tokens() + " tokens, screened in step 05, not confirmed)", r.describe()));
                    screenedOnly.add(r.fix());
                }
            }
            placed.addAll(screenedOnly);
        }
        if (in.correctness() != null) {
            for (String fix : FailedCheck.fixes(in.correctness())) {
                if (placed.contains(fix)) continue;
                if (wrong.containsKey(fix)) stack = stack.withRejected(wrongFix(fix, "checked in step 08 only", wrong.get(fix), List.of()));
                else stack = stack.withNotTested("fix " + fix + ": step 08 checked it (" + passing(in.correctness(), fix) + "), but neither step 05 nor step 07 timed it");
            }
        }
        return stack;
    }

    /** A fix step 08 found wrong, with step 07's numbers of it (each with its caveat) when it has them: nothing measured is dropped. */
    static Rejected wrongFix(String fix, String what, FailedCheck failed, List<ModelConfirmResult.Row> rows) {
        List<String> evidence = new ArrayList<>(List.of(failed.describe()));
        for (ModelConfirmResult.Row r : rows) {
            String caveat = caveat(r);
            evidence.add("step 07 at " + Delta.tokens(r.tokens()) + " tokens, " + launch(r.replay()) + ": " + r.describe() + (caveat.isEmpty() ? "" : " (caveat: " + caveat + ")"));
        }
        return new Rejected("fix " + fix + " (" + what + WRONG_IN_STEP_08, String.join("; ", evidence));
    }

    /** "its 42 rows pass", or how many of them lack an fp64 reference: a fix step 08 did not find wrong. */
    private static String passing(CorrectnessResult r, String fix) {
        List<gluelab.workflow.correctness.CheckRow> mine = r.rows().stream().filter(x -> x.candidate().equals(fix)).toList();
        long unreferenced = mine.stream().filter(x -> !x.ok()).count();
        return unreferenced == 0 ? "its " + mine.size() + " rows pass" : "none of its " + mine.size() + " rows is wrong; " + unreferenced + " have no fp64 reference";
    }

    static String launch(Replay r) { return r == Replay.GRAPH ? "CUDA-graph replay" : "normal launch"; }

    static Change change(ModelFix f, List<ModelConfirmResult.Row> rows, Inputs in) {
        ModelSubject s = in.subject();
        Path modelFile = Path.of(s.file());
        String id = f.name().toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9-]+", "-").replaceAll("^-+|-+$", "");
        boolean anyWin = rows.stream().anyMatch(ModelConfirmResult.Row::win);
        boolean fasterWithinNoise = rows.stream().anyMatch(r -> r.inconclusive() && r.fixedUs() < r.baselineUs());
        Change.Builder b = Change.builder(id.isEmpty() ? "fix" : id, (anyWin ? "" : fasterWithinNoise ? INCONCLUSIVE : NOT_RECOMMENDED) + title(f, modelFile)).kind(fixKind(f.kind()))
                .variant(variant(f)).commit(in.commit());
        for (ModelConfirmResult.Row r : rows) b.delta(Delta.of(r.tokens(), r.replay(), r.baselineUs(), r.fixedUs()).withCaveat(caveat(r)));

        List<String> functions = functions(f);
        Optional<GraphCount> counted = regionCount(f, in.budget());
        String region = counted.map(GraphCount::region).orElse(compiledRegions(f).stream().findFirst().map(ModelChanges::name).orElse(null));
        if (region != null) b.region(region);
        counted.ifPresent(b::graphs);
        if (region != null && counted.isEmpty()) b.uncounted(in.budget() == null ? "step 06 not run"
                : "step 06 did not count it; it counted " + in.budget().regions().stream().map(RegionGraphs::region).toList());
        if (in.correctness() != null) Verdicts.ofFix(in.correctness(), f.name()).forEach(b::correctness);
        b.scope(Scope.specs(List.of(display(modelFile) + ":" + s.function())));
        for (ModelFix.Part p : f.parts()) code(p, modelFile).forEach(b::code);

        List<String> problem = new ArrayList<>();
        Optional<ModelProfile.TreeProfile> eager = in.profile() == null ? Optional.empty()
                : in.profile().tree(gluelab.torch.ModelTree.EAGER).filter(t -> !t.failed());
        String fn = functions.getFirst();
        List<ModelProfile.SourceRow> lines = eager.map(t -> t.rows().stream().filter(r -> at(r.location(), fn)).toList()).orElse(List.of());
        if (!lines.isEmpty()) {
            ModelProfile.TreeProfile t = eager.get();
            Map<String, Double> byLine = new LinkedHashMap<>();
            lines.forEach(r -> byLine.merge(r.location(), r.us(), Double::sum));
            String top = byLine.entrySet().stream().max(Map.Entry.comparingByValue()).orElseThrow().getKey();
            double us = byLine.values().stream().mapToDouble(Double::doubleValue).sum();
            problem.add("Step 03 profiles `" + top + "` as the costliest line of `" + fn + "` in the eager tree.");
            problem.add("The lines of `" + fn + "` take " + gluelab.units.Micros.of(us) + " of the " + gluelab.units.Micros.of(t.stepUs()) + " eager step at "
                    + in.profile().tokens() + " tokens (" + gluelab.units.Numbers.percent(us / t.stepUs()) + ", under the profiler).");
        } else {
            problem.add("`" + display(modelFile) + ":" + fn + "` runs in every step of the original model.");
            problem.add(in.profile() == null ? "Step 03 has not profiled the model, so its share of the step is not known."
                    : "Step 03's eager profile gives no op to a line of `" + fn + "`.");
        }
        problem.add("Step 05 screened fix `" + f.name() + "` (" + kinds(f) + ") against the original model in one process.");
        b.problem(problem.toArray(String[]::new));

        List<String> solution = new ArrayList<>();
        for (ModelFix.Part p : f.parts()) if (solution.size() < 3) solution.add(solutionFact(p, modelFile));
        solution.add("Step 07 timed it in " + in.confirmed().processesOk() + " fresh processes against the original model.");
        Optional<String> eagerOnly = eagerOnly(in.correctness(), f.name());
        if (solution.size() < 5) solution.add(in.correctness() != null && !Verdicts.ofFix(in.correctness(), f.name()).isEmpty()
                ? "Step 08 compared every output and gradient with eager and with fp64."
                : eagerOnly.map(why -> "Step 08 compared every output and gradient with eager only (" + why + ").").orElse("Step 08 has not checked its outputs and gradients."));
        eagerOnly.ifPresent(why -> b.notTested("correctness vs fp64 (step 08 compared with eager only: " + why + ")"));
        // Step 07 times the whole fwd+bwd step, so each delta is already a share of the layer: the changed path is all of it.
        b.layerShare(1.0);
        b.solution(solution.toArray(String[]::new)).unchanged("the model's other functions, its parameters, its inputs and its outputs");

        Set<Long> measured = new TreeSet<>();
        rows.stream().filter(r -> r.replay() == Replay.DIRECT).forEach(r -> measured.add(r.tokens()));
        for (long t : in.tokens()) if (!measured.contains(t)) b.notTested(Delta.tokens(t) + " tokens in fresh processes");
        b.testPlan(testPlan(f, rows, in).toArray(String[]::new));
        return b.build();
    }

    /**
     * Why step 08 compared {@code fix} with eager only, where no row of it has an fp64 reference (a model whose fp64 copy does
     * not fit the device): the rows' own reason, without their "so not passed".
     */
    static Optional<String> eagerOnly(gluelab.workflow.correctness.CorrectnessResult correctness, String fix) {
        if (correctness == null) return Optional.empty();
        List<gluelab.workflow.correctness.CheckRow> rows = correctness.rows().stream().filter(r -> r.candidate().equals(fix)).toList();
        if (rows.isEmpty() || rows.stream().anyMatch(r -> r.vsFp64() != null && !Verdicts.REPEAT.equals(r.pass()))) return Optional.empty();
        return rows.stream().map(gluelab.workflow.correctness.CheckRow::note).filter(n -> n.startsWith(FailedCheck.NO_REFERENCE)).findFirst()
                .map(n -> n.replaceFirst(";\\s*compared with eager only, so not passed\\s*$", ""));
    }

    /** What was done to the fix on this experiment's device, step by step: a launch kind or a check the steps did not run is not named. */
    static List<String> testPlan(ModelFix f, List<ModelConfirmResult.Row> rows, Inputs in) {
        List<String> out = new ArrayList<>();
        List<Long> screened = in.screened() == null ? List.of()
                : in.screened().rows().stream().filter(r -> r.fix().equals(f.name()) && r.measured()).map(ModelFixResult.FixRow::tokens).distinct().sorted().toList();
        if (!screened.isEmpty()) out.add("screened against the model as written in one process at " + tokens(screened) + " tokens (step 05, gluelab model fix)");
        int n = in.confirmed().processesOk();
        String launches = rows.stream().map(ModelConfirmResult.Row::replay).distinct().sorted().map(ModelChanges::launch).collect(Collectors.joining(" and "));
        out.add("timed against the model as written in " + n + " fresh process" + (n == 1 ? "" : "es") + " at "
                + tokens(rows.stream().map(ModelConfirmResult.Row::tokens).distinct().sorted().toList()) + " tokens, " + launches + " (step 07, gluelab model confirm)");
        if (in.correctness() != null) {
            List<gluelab.workflow.correctness.CheckRow> checked = in.correctness().rows().stream().filter(r -> r.candidate().equals(f.name())).toList();
            if (!checked.isEmpty()) {
                boolean fp64 = checked.stream().anyMatch(r -> r.vsFp64() != null && !Verdicts.REPEAT.equals(r.pass()));
                boolean eager = checked.stream().anyMatch(r -> r.vsEager() != null);
                boolean repeat = checked.stream().anyMatch(r -> Verdicts.REPEAT.equals(r.pass()));
                String against = eager && fp64 ? "eager and fp64" : fp64 ? "fp64" : eager ? "eager" : "";
                out.add("checked every output and gradient" + (against.isEmpty() ? "" : " vs " + against) + " in "
                        + checked.stream().map(r -> r.dtype().id()).distinct().collect(Collectors.joining(" and "))
                        + (repeat ? ", and a second step vs the first" : "") + " (step 08, gluelab model check)");
            }
        }
        return out;
    }

    static String tokens(List<Long> tokens) { return tokens.stream().map(Delta::tokens).collect(Collectors.joining(", ")); }

    /** The row's own caveat, and that it is no win when it is not one: inconclusive when its difference is inside its noise. */
    static String caveat(ModelConfirmResult.Row r) {
        List<String> why = new ArrayList<>();
        if (!r.caveat().isEmpty()) why.add(r.caveat());
        if (r.inconclusive()) why.add(NOT_A_WIN + r.noiseVerdict());
        else if (!r.win()) why.add(NOT_A_WIN + (r.fixedUs() >= r.baselineUs() ? "not faster than the model as written"
                : String.format(Locale.ROOT, "under %.0f%% faster than the model as written", 100 * Confirmation.WITHIN)));
        return String.join("; ", why);
    }

    /** "Replace apply_rotary_emb with rewrites.py:apply_rotary_emb_real", one clause per part. */
    static String title(ModelFix f, Path modelFile) {
        List<String> parts = new ArrayList<>();
        for (ModelFix.Part p : f.parts()) {
            parts.add(switch (p) {
                case ModelFix.Swap s -> "Replace " + name(s.target()) + " with " + fileName(s.file()) + ":" + s.function();
                case ModelFix.AutogradSwap s -> "Replace " + name(s.target()) + " with the autograd.Function " + fileName(s.file()) + ":" + s.function();
                case ModelFix.RegionSet r -> "Compile " + r.regions().stream().map(ModelChanges::name).collect(Collectors.joining(", "))
                        + (r.regions().size() == 1 ? " as its own region" : " as regions of their own");
                case ModelFix.RegionOptions o -> "Compile " + name(o.region()) + " with Inductor options " + optionText(o);
            });
        }
        return String.join(" + ", parts);
    }

    static String solutionFact(ModelFix.Part p, Path modelFile) {
        String m = display(modelFile);
        return switch (p) {
            case ModelFix.Swap s -> "`" + fileName(s.file()) + ":" + s.function() + "` replaces `" + m + ":" + name(s.target()) + "` before build runs.";
            case ModelFix.AutogradSwap s -> "The autograd.Function `" + fileName(s.file()) + ":" + s.function() + "` replaces `" + m + ":" + name(s.target())
                    + "` with a hand-written backward.";
            case ModelFix.RegionSet r -> r.regions().stream().map(x -> "`" + m + ":" + name(x) + "`").collect(Collectors.joining(", "))
                    + " compile" + (r.regions().size() == 1 ? "s" : "") + " on " + (r.regions().size() == 1 ? "its" : "their") + " own with fullgraph=True.";
            case ModelFix.RegionOptions o -> "`" + m + ":" + name(o.region()) + "` compiles on its own with Inductor options " + optionText(o) + ".";
        };
    }

    /** The files and functions a part edits, each with its def line. */
    static List<CodeChange> code(ModelFix.Part p, Path modelFile) {
        String m = display(modelFile);
        return switch (p) {
            case ModelFix.Swap s -> List.of(new CodeChange(m, name(s.target()), PythonDefs.line(modelFile, name(s.target())),
                            "replaced by `" + fileName(s.file()) + ":" + s.function() + "` (swap, bound before build runs)"),
                    new CodeChange(display(Path.of(s.file())), s.function(), PythonDefs.line(Path.of(s.file()), s.function()), "the replacement"));
            case ModelFix.AutogradSwap s -> List.of(new CodeChange(m, name(s.target()), PythonDefs.line(modelFile, name(s.target())),
                            "replaced by the autograd.Function `" + fileName(s.file()) + ":" + s.function() + "`"),
                    new CodeChange(display(Path.of(s.file())), s.function(), PythonDefs.line(Path.of(s.file()), s.function()),
                            "the replacement, with a hand-written backward"));
            case ModelFix.RegionSet r -> r.regions().stream().map(x -> new CodeChange(m, name(x), PythonDefs.line(modelFile, name(x)),
                    "compiled on its own as a torch.compile region (fullgraph=True)")).toList();
            case ModelFix.RegionOptions o -> List.of(new CodeChange(m, name(o.region()), PythonDefs.line(modelFile, name(o.region())),
                    "compiled on its own with Inductor options " + optionText(o)));
        };
    }

    /** The model functions a fix changes, in the order of its parts: what the profile's lines are looked up by. */
    static List<String> functions(ModelFix f) {
        List<String> out = new ArrayList<>();
        for (ModelFix.Part p : f.parts()) {
            switch (p) {
                case ModelFix.Swap s -> out.add(name(s.target()));
                case ModelFix.AutogradSwap s -> out.add(name(s.target()));
                case ModelFix.RegionSet r -> r.regions().forEach(x -> out.add(name(x)));
                case ModelFix.RegionOptions o -> out.add(name(o.region()));
            }
        }
        return out.stream().distinct().toList();
    }

    /** The regions a fix compiles on its own (its region sets and region-scoped options), as the plan names them. */
    static List<String> compiledRegions(ModelFix f) {
        List<String> out = new ArrayList<>();
        for (ModelFix.Part p : f.parts()) {
            if (p instanceof ModelFix.RegionSet r) out.addAll(r.regions());
            if (p instanceof ModelFix.RegionOptions o) out.add(o.region());
        }
        return out;
    }

    /** Step 06's count of the first region the fix compiles, when step 06 counted it. */
    static Optional<GraphCount> regionCount(ModelFix f, BudgetResult budget) {
        if (budget == null) return Optional.empty();
        for (String r : compiledRegions(f)) {
            for (RegionGraphs g : budget.regions()) {
                if (g.region().equals(r) || g.region().equals(name(r))) return Optional.of(new GraphCount(name(r), g.graphs(), g.limit()));
            }
        }
        return Optional.empty();
    }

    /** Whether a profile location ("apply_rotary_emb (llama3.py:50)", "Attention.rope (llama3.py:88)") is a line of {@code function} (a class: of its methods). */
    static boolean at(String location, String function) {
        return location.startsWith(function + " (") || location.startsWith(function + ".");
    }

    static FixKind fixKind(ModelFix.Kind k) {
        return switch (k) {
            case REGIONS -> FixKind.ENABLE_REGION;
            case SWAP -> FixKind.REWRITE;
            case OPTIONS -> FixKind.COMPILER_OPTION;
            case AUTOGRAD -> FixKind.AUTOGRAD_FUNCTION;
        };
    }

    static String kind(ModelFix.Kind k) { return k.name().toLowerCase(Locale.ROOT); }

    /** Every part's kind in the fix's order: "swap + regions". */
    static String kinds(ModelFix f) { return f.parts().stream().map(p -> kind(p.kind())).distinct().collect(Collectors.joining(" + ")); }

    /** The fix as the command line writes it, replacement files by their names. */
    static String variant(ModelFix f) {
        return f.name() + "=" + f.parts().stream().map(p -> switch (p) {
            case ModelFix.Swap s -> "swap:" + s.target() + "=" + fileName(s.file()) + ":" + s.function();
            case ModelFix.AutogradSwap s -> "autograd:" + s.target() + "=" + fileName(s.file()) + ":" + s.function();
            default -> p.spec();
        }).collect(Collectors.joining("+"));
    }

    /** {@code model.Attention.rope} -> {@code Attention.rope}. */
    static String name(String path) { return path.startsWith("model.") ? path.substring("model.".length()) : path; }

    static String optionText(ModelFix.RegionOptions o) {
        return o.options().entrySet().stream().map(e -> e.getKey() + "=" + e.getValue()).collect(Collectors.joining(","));
    }

    static String fileName(String file) { return Path.of(file).getFileName().toString(); }

    /** A file as a PR names it: relative to the working folder when inside it, else by its name. */
    static String display(Path file) {
        Path abs = file.toAbsolutePath().normalize(), here = Path.of("").toAbsolutePath().normalize();
        return abs.startsWith(here) ? here.relativize(abs).toString() : abs.getFileName().toString();
    }
}
