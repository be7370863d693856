package gluelab.lab;

import gluelab.files.Locations;
import gluelab.bench.BenchPlan;
import gluelab.bench.BenchResult;
import gluelab.bench.BenchSession;
import gluelab.bench.Tokens;
import gluelab.calibrate.Calibration;
import gluelab.calibrate.Calibrator;
import gluelab.device.Device;
import gluelab.device.DeviceFacts;
import gluelab.device.Devices;
import gluelab.devlog.Devlog;
import gluelab.floor.Floor;
import gluelab.rank.Ranking;
import gluelab.units.Bandwidth;
import gluelab.model.ModelSpec;
import gluelab.model.SpecRegistry;
import gluelab.ops.*;
import gluelab.progress.Progress;
import gluelab.record.RecordPublisher;
import gluelab.record.RecordStore;
import gluelab.record.RunKind;
import gluelab.report.Tables;
import gluelab.tensor.DType;
import gluelab.timing.TimingConfig;
import gluelab.table.Columns;
import gluelab.table.DataTable;
import gluelab.table.TableFormat;
import tech.tablesaw.api.*;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The entry point for notebooks and scripts: {@code var lab = Gluelab.open();} then
 * {@code lab.bench("rmsnorm").tokens(2048, 4096).run()}. Holds one device and its calibration.
 */
public final class Gluelab implements AutoCloseable {
    private final Device device;
    private final SpecRegistry specs;
    private Calibration calibration;
    private Progress progress = Progress.DEFAULT.get();

    private Gluelab(Device device, SpecRegistry specs) {
        this.device = device;
        this.specs = specs;
    }

    /** The best device here (a GPU when usable, else the CPU). */
    public static Gluelab open() { return open("auto"); }

    /**
     * A lab on the selected device, with the model specs of this installation.
     *
     * @param deviceSelector "auto" (a GPU when usable, else the CPU), "cpu", "cuda" or "cuda:N"
     */
    public static Gluelab open(String deviceSelector) {
        return open(deviceSelector, SpecRegistry.load(Locations.specFolders()));
    }

    /** A lab on the selected device with the given model specs (the CLI loads them first, to check options before any work). */
    public static Gluelab open(String deviceSelector, SpecRegistry specs) {
        return new Gluelab(Devices.open(deviceSelector), specs);
    }

    /** The device this lab measures on. */
    public Device device() { return device; }

    /** The device's name, memory, cache, cores and driver, as the device card shows them. */
    public DeviceFacts facts() { return device.facts(); }

    /** The model specs this lab knows (built-in and the user's spec folders). */
    public SpecRegistry specs() { return specs; }

    /** The model spec named {@code name}, e.g. "llama-3-8b"; an unknown name is an error that lists the known ones. */
    public ModelSpec spec(String name) { return specs.get(name); }

    /** Every spec a change to {@code region} reaches, each with the spec that enables it (step 9; {@code gluelab specs --reach REGION}). */
    public gluelab.workflow.stack.Scope reach(String region) { return gluelab.workflow.stack.Scope.of(specs, region); }

    /** {@link #reach(String)} for a change enabled in {@code spec}: that spec and the specs extending it. */
    public gluelab.workflow.stack.Scope reach(String region, String spec) { return gluelab.workflow.stack.Scope.of(specs, region, spec); }

    /** Where long work reports progress (the notebook kernel sets a display-updating one). */
    public Gluelab progress(Progress p) {
        this.progress = p == null ? Progress.NONE : p;
        return this;
    }

    /** Where long work reports progress. */
    public Progress progress() { return progress; }

    /** The device's calibration, measured once and then taken from the cache. */
    public Calibration calibration() {
        if (calibration == null) calibration = new Calibrator(device, Locations.calibrationCache()).calibrate(false);
        return calibration;
    }

    /** Measures again, ignoring the cache. */
    public Calibration calibrate() {
        calibration = new Calibrator(device, Locations.calibrationCache()).calibrate(true);
        return calibration;
    }

    /** Uses a given bandwidth (e.g. {@code Bandwidth.gbPerSecond(4000)}) and peak (FLOP/s) for floors instead of measuring. */
    public Gluelab assumeBandwidth(Bandwidth bandwidth, double peakFlops) {
        calibration = Calibration.given(device.facts().name(), bandwidth.bytesPerSecond(), peakFlops);
        return this;
    }

    /**
     * The bandwidth floor of one op: the bytes it must move and the FLOPs it must do at this shape, and
     * the ideal time they take on this lab's calibrated device.
     *
     * @param op a catalogue op, e.g. "rmsnorm" (see {@link #ops()})
     * @param model a model spec, e.g. "llama-3-8b"
     * @param tokens the number of tokens (rows)
     * @param pass "fwd" or "bwd"
     */
    public Floor floor(String op, String model, long tokens, String pass) {
        GlueOp o = Catalogue.parse(op);
        return Floor.of(o, o.shape(spec(model), Tokens.check(tokens, Long.toString(tokens)), DType.BF16), Pass.parse(pass), calibration());
    }

    /** The ideal-time table: every catalogue op and pass at each token count (workflow step 2). */
    public Table floors(String model, long... tokens) { return TableFormat.tablesaw(floorData(model, tokens)); }

    /** The ideal-time table as data (raw bytes and us), what step 02 keeps as CSV. */
    DataTable floorData(String model, long... tokens) {
        ModelSpec s = spec(model);
        var t = DataTable.builder("ideal times: " + model, Columns.OP, Columns.PASS, Columns.TOKENS, Columns.FLOOR_BYTES, Columns.GFLOP, Columns.IDEAL,
                Columns.BOUND);
        for (long n : tokens) {
            for (GlueOp o : Catalogue.all()) {
                for (Pass p : Pass.values()) {
                    if (!o.supports(p)) continue;
                    Floor f = Floor.of(o, o.shape(s, Tokens.check(n, Long.toString(n)), DType.BF16), p, calibration());
                    t.row(o.name(), p.id(), n, f.bytes(), f.flops() / 1e9, f.idealSeconds() * 1e6, f.bound());
                }
            }
        }
        return t.build();
    }

    /** The op catalogue: each op's name, the passes it has and what it computes. */
    public Table ops() {
        var t = DataTable.builder("catalogue", Columns.OP, gluelab.table.Column.text("passes", "the passes it has"),
                gluelab.table.Column.text("summary", "what it computes"));
        for (GlueOp o : Catalogue.all()) t.row(o.name(), String.join(",", Arrays.stream(Pass.values()).filter(o::supports).map(Pass::id).toList()), o.summary());
        return TableFormat.tablesaw(t.build());
    }

    /** The development log (a markdown file) at {@code path}, to append measurements and notes to. */
    public Devlog devlog(String path) { return new Devlog(Path.of(path)); }

    /** Summary of a profiler trace; with {@code bandwidthGBs} > 0, ideal times from its recorded shapes. */
    public gluelab.trace.TraceSummary trace(String file, double bandwidthGBs) {
        long t0 = System.nanoTime();
        var t = gluelab.trace.TraceReader.read(Path.of(file));
        return gluelab.trace.TraceSummary.of(t, (System.nanoTime() - t0) * 1e-9, gluelab.trace.KernelFamilies.defaults(),
                bandwidthGBs > 0 ? bandwidthGBs * 1e9 : null);
    }

    /** Summary of a profiler trace (a Chrome trace JSON): time by kernel family and kernel. */
    public gluelab.trace.TraceSummary trace(String file) { return trace(file, 0); }

    /** Two traces by family and kernel (b - a). */
    public gluelab.trace.TraceDiff diff(String a, String b) { return gluelab.trace.TraceDiff.of(trace(a), trace(b)); }

    /** Step 00 with the token counts as a notebook parameter gives them ("256,1k"). */
    public gluelab.workflow.experiment.ExperimentPlan plan(gluelab.workflow.experiment.ExperimentFolder ex, String model, double stopFraction, String tokens) {
        return plan(ex, model, stopFraction, Tokens.parse(tokens).stream().mapToLong(Long::longValue).toArray());
    }

    /** Step 02 on an experiment: the floors at the plan's model and token counts, kept in the experiment. */
    public Table idealTimes(gluelab.workflow.experiment.ExperimentFolder ex) { return ReadingSteps.idealTimes(this, ex); }

    /** Step 03 on an experiment: trace {@code compiled} against trace {@code eager}, kept in the experiment with its chart. */
    public gluelab.trace.TraceDiff profileDiff(gluelab.workflow.experiment.ExperimentFolder ex, String eager, String compiled) {
        return ReadingSteps.profileDiff(this, ex, eager, compiled);
    }

    /** Step 05's result as a chart: each candidate today against its fastest measured fix. */
    public static org.knowm.xchart.CategoryChart fixChart(gluelab.workflow.fix.FixResult fix) { return StoryCharts.fixes(fix); }

    /** Step 09: the experiment's change stack, or an empty one with the conditions steps 01-07 measured under. */
    public gluelab.workflow.stack.ChangeStack stack(gluelab.workflow.experiment.ExperimentFolder ex) { return WriteupSteps.stack(this, ex); }

    /**
     * Step 09: a change for {@code op}'s catalogue fused kernel, its numbers filled from steps 04-08
     * (confirmed before -> after, verdicts, graph count, share, rejected and skipped fixes); add or
     * change facts on the builder, then {@code build()} and {@link #commit}.
     */
    public gluelab.workflow.stack.Change.Builder change(gluelab.workflow.experiment.ExperimentFolder ex, String op, String title, String commit) {
        return WriteupSteps.change(this, ex, op, title, commit);
    }

    /** Step 09: adds the change to the experiment's stack (ordered by impact) and saves it. */
    public gluelab.workflow.stack.ChangeStack commit(gluelab.workflow.experiment.ExperimentFolder ex, gluelab.workflow.stack.Change change) { return WriteupSteps.commit(this, ex, change); }

    /** Step 10: the findings doc and the PR texts (with charts) of the experiment's stack, each checked by the rules. */
    public gluelab.workflow.writeup.Writeup.Written writeup(gluelab.workflow.experiment.ExperimentFolder ex) { return WriteupSteps.writeup(ex); }

    /** Step 11: the skill feedback collected from the experiment, written as a reviewable list. */
    public List<gluelab.workflow.feedback.FeedbackItem> skillFeedback(gluelab.workflow.experiment.ExperimentFolder ex) { return WriteupSteps.skillFeedback(ex); }

    /**
     * Step 09 for the plan's subject: a model's stack holds a change per fix step 07 measured (its
     * numbers, caveats, source locations and code from steps 03-08); the catalogue's one per op step 07
     * confirmed as a win ({@link #change}, {@link #commit}). {@code commit}: the commit that carries the change.
     */
    public gluelab.workflow.stack.ChangeStack changeStack(gluelab.workflow.experiment.ExperimentFolder ex, String commit) {
        if (ex.plan().hasModelSubject()) return gluelab.workflow.modelwriteup.ModelWriteup.stack(ex, facts().name(), planSpec(ex), commit);
        return WriteupSteps.stackOfWins(this, ex, commit);
    }

    /** Step 10 for the plan's subject: the findings doc and a PR text per change, each checked by every rule of {@code pr check}. */
    public gluelab.workflow.writeup.Writeup.Written findings(gluelab.workflow.experiment.ExperimentFolder ex) {
        return ex.plan().hasModelSubject() ? gluelab.workflow.modelwriteup.ModelWriteup.findings(ex) : WriteupSteps.writeup(ex);
    }

    /** Step 11 for the plan's subject: the skill feedback, written as a reviewable list. */
    public List<gluelab.workflow.feedback.FeedbackItem> feedback(gluelab.workflow.experiment.ExperimentFolder ex) {
        return ex.plan().hasModelSubject() ? gluelab.workflow.modelwriteup.ModelWriteup.feedback(ex) : WriteupSteps.skillFeedback(ex);
    }

    /** A markdown file or PNG chart an experiment step wrote, shown rendered in a notebook. */
    public static gluelab.report.ShownFile show(Path file) { return gluelab.report.ShownFile.of(file); }

    /** A trace diff's kernel families as a table (A, B, change, counts, shares). */
    public static Table families(gluelab.trace.TraceDiff diff) { return ReadingSteps.families(diff); }

    /**
     * Starts a benchmark of catalogue ops against their floors on this lab's device: set the model,
     * token counts, variants and passes, then {@code run()}, e.g.
     * {@code lab.bench("rmsnorm").model("llama-3-8b").tokens(4096).run()}.
     *
     * @param ops catalogue op names, e.g. "rmsnorm", "swiglu" (see {@link #ops()})
     */
    public BenchBuilder bench(String... ops) { return new BenchBuilder(ops); }

    private gluelab.torch.TorchSide torch;

    /**
     * The torch side on this lab's device in the Python gluelab finds: GLUELAB_PYTHON, else the active
     * virtual environment's, else the first of python3 on PATH and /usr/bin/python3 that imports torch
     * (see {@link #torch(String)} to name one). Its harness process is the one every lab of this JVM on
     * that Python and device kind shares (the notebooks of one `gluelab run`), started by the first.
     */
    public gluelab.torch.TorchSide torch() { return torch(null); }

    /** The torch side in {@code python} (a path; null: the one gluelab finds); a harness that died, or one in another Python, is replaced. */
    public synchronized gluelab.torch.TorchSide torch(String python) {
        var choice = gluelab.torch.PythonFinder.standard().find(python, gluelab.torch.PythonSource.ARGUMENT);
        if (torch == null || !torch.bridge().alive() || !torch.python().python().equals(choice.python())) {
            if (torch != null) torch.close();
            torch = gluelab.torch.TorchSide.shared(choice, device);
        }
        return torch;
    }

    /** The Python {@link #torch()} runs in, found without starting a harness (step 07 starts fresh ones in it). */
    public synchronized gluelab.torch.PythonChoice torchPython() {
        return torch != null ? torch.python() : gluelab.torch.PythonFinder.standard().find(null, gluelab.torch.PythonSource.ARGUMENT);
    }

    /** The graph budget of a dynamo log (TORCH_LOGS=recompiles,graph_breaks,guards captured to a file); needs no torch. */
    public static gluelab.compilelog.GraphBudget graphBudget(String file) {
        return gluelab.compilelog.GraphBudget.of(gluelab.compilelog.CompileLogParser.read(Path.of(file)));
    }

    /** The runner on this lab's device, calibration and progress: tune (where the plan says so), measure, peer rows, record. */
    public BenchSession session() { return BenchSession.on(device, calibration()).progress(progress); }

    /** Publishes runs into {@code store}, each rendered as {@code gluelab report} renders it. */
    public static RecordPublisher publisher(RecordStore store) { return new RecordPublisher(store, RunReport.RENDERER); }

    /** Measures a plan on this lab's device, handing each row to {@code onRow} as it lands. */
    public BenchResult run(BenchPlan plan, java.util.function.Consumer<gluelab.record.Row> onRow) { return session().onRow(onRow).run(plan); }

    /** Measures a plan, logging each row (and the runner's notes) to {@code devlog} as it lands. */
    public BenchResult run(BenchPlan plan, Devlog devlog) { return session().devlog(devlog).run(plan); }

    /** Measures a plan as a recorded run of {@code kind} under {@code store}, logging to {@code devlog}; the ranking's stop rule is {@code stopFraction}. */
    public BenchSession.Outcome record(BenchPlan plan, RunKind kind, RecordStore store, double stopFraction, Devlog devlog) {
        return session().devlog(devlog).record(plan, new BenchSession.Recording(publisher(store), kind, stopFraction));
    }

    /**
     * Creates or resumes the named experiment that runs through the notebooks, in
     * {@code out/experiments/NAME} under the repository root (or {@code GLUELAB_HOME}, or
     * {@code GLUELAB_EXPERIMENTS} itself; see {@link gluelab.workflow.experiment.ExperimentFolder#defaultRoot()}).
     */
    public gluelab.workflow.experiment.ExperimentFolder experiment(String name) { return gluelab.workflow.experiment.ExperimentFolder.open(name); }

    /** Creates or resumes experiment {@code name} under {@code root}. */
    public gluelab.workflow.experiment.ExperimentFolder experiment(String name, Path root) { return gluelab.workflow.experiment.ExperimentFolder.open(name, root); }

    /**
     * Step 00 on an experiment: the plan with this lab's device, the model checked against the
     * known specs and the token counts checked before anything is written.
     */
    public gluelab.workflow.experiment.ExperimentPlan plan(gluelab.workflow.experiment.ExperimentFolder ex, String model, double stopFraction, long... tokens) {
        spec(model);
        List<Long> t = new ArrayList<>();
        for (long n : tokens) t.add(n);
        return ex.plan(model, Tokens.checkAll(t), stopFraction, device.id());
    }

    /**
     * Step 00 with the analyst's model as the subject: {@code modelFile} is {@code FILE.py:FUNCTION},
     * {@code inputs} the torch bridge's syntax with {@code model}'s symbols, {@code regions} the
     * functions compiled on their own (empty: none). The model is checked in the torch harness first.
     */
    public gluelab.workflow.model.ModelPlan.Planned planModel(gluelab.workflow.experiment.ExperimentFolder ex, String modelFile, String inputs,
                                                              String tokens, String model, double stopFraction, List<String> regions) {
        // The parameter's own name: "subject.inputs" is the plan file's field, not what the notebook set.
        if (inputs == null || inputs.isBlank()) throw new IllegalArgumentException("inputs is empty: give forward's inputs as NAME:DIMS:DTYPE, e.g. inputs = \"x:T,D:bf16\"");
        var entry = gluelab.torch.ModelEntry.parse(modelFile);
        var subject = new gluelab.workflow.experiment.ModelSubject(entry.file().toString(), entry.function(), inputs, "", regions);
        return gluelab.workflow.model.ModelPlan.write(ex, torch().bridge(), spec(model), subject, Tokens.parse(tokens), stopFraction, device.id());
    }

    /** Step 01 on a model-subject experiment: every tree at every planned token count, fwd+bwd. */
    public gluelab.torch.ModelBaselines modelBaselines(gluelab.workflow.experiment.ExperimentFolder ex) {
        return gluelab.workflow.model.ModelBaselinesStep.run(ex, device, torch().bridge(), planSpec(ex), gluelab.timing.TimingConfig.defaults(),
                torch().flushBytes(), progress);
    }

    /** Step 03 on a model-subject experiment: each tree profiled by the harness, traces imported, ops per source line. */
    public gluelab.workflow.model.ModelProfileStep.Result modelProfile(gluelab.workflow.experiment.ExperimentFolder ex) {
        return gluelab.workflow.model.ModelProfileStep.run(ex, device, torch().bridge(), planSpec(ex), calibration().bandwidth(), progress);
    }

    /** Step 04 on a model-subject experiment: the eager tree's profile ranked per source line and op. */
    public gluelab.rank.SourceRanking modelRank(gluelab.workflow.experiment.ExperimentFolder ex) {
        return gluelab.workflow.model.ModelRankStep.run(ex, gluelab.torch.ModelTree.EAGER, calibration().bandwidth(),
                gluelab.floor.FlopPeak.of(calibration(), device.capabilities()));
    }

    /** Step 06 on a model-subject experiment: graphs per region x call site x token count x grad mode from dynamo, against the recompile limit. */
    public gluelab.workflow.model.ModelGraphsStep.Result modelGraphs(gluelab.workflow.experiment.ExperimentFolder ex) {
        return modelGraphs(ex, gluelab.workflow.model.ModelGraphsStep.defaults(ex.plan().modelSubject()));
    }

    /** Step 06 with its options: the trees, dynamic shapes, backend, the no_grad pass, the recompile limit. */
    public gluelab.workflow.model.ModelGraphsStep.Result modelGraphs(gluelab.workflow.experiment.ExperimentFolder ex, gluelab.torch.ModelGraphs.Options options) {
        return gluelab.workflow.model.ModelGraphsStep.run(ex, torch().bridge(), planSpec(ex), options, progress);
    }

    /** Step 08 on a model-subject experiment: each fix ({@code NAME=SPEC}, as {@code --fix} takes it) vs eager and fp64, in bf16 and fp32. */
    public gluelab.workflow.correctness.CorrectnessResult modelCheck(gluelab.workflow.experiment.ExperimentFolder ex, String... fixes) {
        return modelCheck(ex, java.util.Arrays.stream(fixes).map(gluelab.torch.ModelFix::parse).toList(), gluelab.workflow.model.ModelCheckStep.DTYPES);
    }

    /** Step 08 with the fixes and dtypes given, at the plan's smallest token count. */
    public gluelab.workflow.correctness.CorrectnessResult modelCheck(gluelab.workflow.experiment.ExperimentFolder ex, List<gluelab.torch.ModelFix> fixes,
                                                                    List<gluelab.tensor.DType> dtypes) {
        return gluelab.workflow.model.ModelCheckStep.run(ex, torch().bridge(), planSpec(ex), fixes, dtypes, 0, progress);
    }

    // Steps 00, 01, 03 and 04 for the plan's subject (catalogue or model): what the notebooks call.

    /**
     * Step 00 for either subject: {@code modelFile} empty plans the catalogue; {@code FILE.py:FUNCTION}
     * plans that model with {@code inputs} (the torch bridge's syntax) and {@code regions} (comma-separated,
     * e.g. {@code model.Attention.rope}; empty: none), checked in the torch harness first.
     */
    public gluelab.workflow.experiment.ExperimentPlan plan(gluelab.workflow.experiment.ExperimentFolder ex, String model, double stopFraction, String tokens,
                                                           String modelFile, String inputs, String regions) {
        return SubjectSteps.plan(this, ex, model, stopFraction, tokens, modelFile, inputs, regions);
    }

    /** Step 01 for the plan's subject: the catalogue ops eager against fused, or the model's trees fwd+bwd; recorded in the experiment. */
    public StepView baselines(gluelab.workflow.experiment.ExperimentFolder ex) { return SubjectSteps.baselines(this, ex); }

    /** Step 03 for the plan's subject: {@code traces} (the catalogue's, at {@code bandwidthGBs}) diffed, or the model profiled by the harness. */
    public StepView profile(gluelab.workflow.experiment.ExperimentFolder ex, String traces, double bandwidthGBs) { return SubjectSteps.profile(this, ex, traces, bandwidthGBs); }

    /** Step 04 for the plan's subject: step 01's baselines ranked, or the model's eager profile ranked per source line and op. */
    public StepView ranking(gluelab.workflow.experiment.ExperimentFolder ex) { return SubjectSteps.ranking(this, ex); }

    // Steps 02, 05, 06, 07 and 08 for the plan's subject (catalogue or model): what the notebooks call.

    /** Step 02 for the plan's subject: the catalogue's floors, or the model's ops' floors from the shapes its eager profile recorded. */
    public StepView ideals(gluelab.workflow.experiment.ExperimentFolder ex) { return SubjectFixSteps.ideals(this, ex); }

    /**
     * Step 05 for the plan's subject: the catalogue's candidates with the fixes {@code catalogue} adds to the step, or the model's
     * {@code modelFixes} ({@code NAME=SPEC;NAME=SPEC}; blank: the shipped example's defaults, which the headline names).
     */
    public StepView fixes(gluelab.workflow.experiment.ExperimentFolder ex, String modelFixes, java.util.function.UnaryOperator<gluelab.workflow.fix.FixStep> catalogue) {
        return SubjectFixSteps.fixes(this, ex, modelFixes, catalogue);
    }

    /** Step 06 for the plan's subject: the catalogue's regions at the sites {@code catalogue} adds, or the model's counted by dynamo with {@code backend} (inductor, aot_eager). */
    public StepView graphs(gluelab.workflow.experiment.ExperimentFolder ex, String backend, java.util.function.UnaryOperator<gluelab.workflow.graphbudget.RegionBudget> catalogue) {
        return SubjectFixSteps.graphs(this, ex, backend, catalogue);
    }

    /** Step 07 for the plan's subject: the catalogue's candidates screened and confirmed, or step 05's model fixes at the token counts it measured. */
    public StepView confirmation(gluelab.workflow.experiment.ExperimentFolder ex) { return SubjectFixSteps.confirmation(this, ex); }

    /** Step 08 for the plan's subject at {@code tokens}: the catalogue's checks with those {@code catalogue} adds, or the model's {@code modelFixes} (blank: step 05's). */
    public StepView checks(gluelab.workflow.experiment.ExperimentFolder ex, long tokens, String modelFixes,
                           java.util.function.UnaryOperator<gluelab.workflow.correctness.StepCorrectness> catalogue) {
        return SubjectFixSteps.checks(this, ex, tokens, modelFixes, catalogue);
    }

    /**
     * Step 05 on a model-subject experiment: each fix ({@code NAME=KIND:...}, see {@link gluelab.torch.ModelFix}) against the
     * model as written, fwd+bwd, cheapest first, with the interaction table; {@code sizing} ({@code A,B,C}, or null) adds region sizing.
     */
    public gluelab.workflow.model.ModelFixResult modelFix(gluelab.workflow.experiment.ExperimentFolder ex, List<String> fixes, String sizing) {
        return modelFix(ex, fixes, sizing, java.util.Map.of());
    }

    /** As {@link #modelFix(gluelab.workflow.experiment.ExperimentFolder, List, String)}, with a "best known kernel" row per fix in {@code references} (fix name -> catalogue op). */
    public gluelab.workflow.model.ModelFixResult modelFix(gluelab.workflow.experiment.ExperimentFolder ex, List<String> fixes, String sizing,
                                                          java.util.Map<String, String> references) {
        List<gluelab.torch.ModelFix> parsed = fixes.stream().map(gluelab.torch.ModelFix::parse).toList();
        references.values().forEach(gluelab.ops.Catalogue::parse);
        var sz = sizing == null || sizing.isBlank() ? null : gluelab.workflow.model.ModelFixStep.Sizing.parse(sizing);
        var r = gluelab.workflow.model.ModelFixStep.run(ex, device, torch().bridge(), planSpec(ex), parsed, sz, gluelab.timing.TimingConfig.defaults(), torch().flushBytes(), progress);
        return ModelFixReferences.add(this, ex, r, references, gluelab.timing.TimingConfig.defaults());
    }

    /** Adds "best known kernel" rows (fix name -> catalogue op) to what step 05 kept for the model. */
    public gluelab.workflow.model.ModelFixResult modelFixReferences(gluelab.workflow.experiment.ExperimentFolder ex, java.util.Map<String, String> references) {
        references.values().forEach(gluelab.ops.Catalogue::parse);
        return ModelFixReferences.add(this, ex, gluelab.workflow.model.ModelFixStep.load(ex), references, gluelab.timing.TimingConfig.defaults());
    }

    /** Step 07 on a model-subject experiment: step 05's fixes against the model as written in three fresh Python processes, at the token counts step 05 measured. */
    public gluelab.workflow.confirm.ModelConfirmResult modelConfirm(gluelab.workflow.experiment.ExperimentFolder ex) {
        var fix = gluelab.workflow.model.ModelFixStep.load(ex);
        return new gluelab.workflow.confirm.ModelConfirmation(device, torchPython()).progress(progress)
                .run(ex, planSpec(ex), fix, fix.fixes(), gluelab.timing.TimingConfig.defaults());
    }

    /**
     * Step 04 on an experiment: ranks the record step 01 published (its rows, the plan's stop rule
     * as recorded), draws the charts into the experiment's charts folder (04-*.png) with a summary in
     * steps/04-rank/ranking.md, and marks the step done.
     */
    public gluelab.rank.Ranking rank(gluelab.workflow.experiment.ExperimentFolder ex) {
        try (var running = ex.running(gluelab.workflow.experiment.Step.RANK)) {
            var record = ex.record(gluelab.workflow.experiment.Step.BASELINES);
            var report = new RunReport(record);
            Path findings = report.render(ex.stepDir(gluelab.workflow.experiment.Step.RANK).resolve("ranking.md"), ex.chartsDir(),
                    gluelab.workflow.experiment.Step.RANK.number() + "-");
            var ranking = report.ranking();
            var worth = ranking.worthFixing();
            long noisy = worth.stream().filter(c -> !c.caveat().isEmpty()).count();
            ex.devlog().decision("ranking of " + record.id() + ": " + worth.size() + " of " + ranking.ranked().size()
                    + " candidates above the stop rule" + (noisy == 0 ? "" : " (" + (noisy == worth.size() ? "all " : "") + noisy + " noisy: measure again before a fix)")
                    + (worth.isEmpty() ? "" : "; first: " + worth.getFirst().key()));
            ex.done(gluelab.workflow.experiment.Step.RANK, java.util.List.of(record.id()),
                    java.util.Map.of("summary", ex.dir().relativize(findings).toString()), worth.size() + " candidates worth fixing");
            return ranking;
        }
    }

    /** The model spec of an experiment's plan. */
    private ModelSpec planSpec(gluelab.workflow.experiment.ExperimentFolder ex) { return spec(ex.plan().model()); }

    /**
     * Step 05 on an experiment: a fix step over the candidates step 04 ranked, on this lab's device;
     * add regions, rewrites, kernels or torch, then {@code record(ex)}.
     */
    public gluelab.workflow.fix.FixStep fix(gluelab.workflow.experiment.ExperimentFolder ex) {
        return gluelab.workflow.fix.FixStep.on(device, calibration(), planSpec(ex)).candidates(ex.ranking()).progress(progress);
    }

    /**
     * Step 06 on an experiment: a graph budget at the plan's token counts, with the dynamo logs of
     * torch's compiles in step 05 when it ran them; add call sites or logs, then {@code record(ex)}.
     */
    public gluelab.workflow.graphbudget.RegionBudget graphBudget(gluelab.workflow.experiment.ExperimentFolder ex) {
        var plan = ex.plan();
        var budget = gluelab.workflow.graphbudget.RegionBudget.of(spec(plan.model())).tokens(plan.tokens());
        if (ex.has(gluelab.workflow.experiment.Step.FIX)) budget.dynamoLogs(gluelab.workflow.fix.FixResult.load(ex.file(gluelab.workflow.experiment.Step.FIX, "fix")).torchBudgets());
        return budget;
    }

    /** Step 07's job: the comparisons on the plan's model in bf16 on this lab's device, with its calibration. */
    public gluelab.workflow.confirm.ConfirmJob confirmJob(gluelab.workflow.experiment.ExperimentFolder ex, List<gluelab.workflow.confirm.Comparison> comparisons, TimingConfig timing) {
        return new gluelab.workflow.confirm.ConfirmJob(planSpec(ex), comparisons, DType.BF16, timing, device.id(), calibration());
    }

    /** Step 07's screen: the job's variants interleaved in this process (fwd+bwd, normal and graph replay). */
    public Table screen(gluelab.workflow.confirm.ConfirmJob job) {
        return gluelab.workflow.confirm.TrainStepTiming.table(gluelab.workflow.confirm.TrainStepTiming.run(device, job, progress));
    }

    /** Step 07's confirmation: the job in 3 fresh processes, into the experiment. */
    public gluelab.workflow.confirm.ConfirmResult confirm(gluelab.workflow.experiment.ExperimentFolder ex, gluelab.workflow.confirm.ConfirmJob job) {
        return gluelab.workflow.confirm.Confirmation.on(device).progress(progress).run(ex, job);
    }

    /** Step 08 on an experiment: correctness checks on the plan's model on this lab's device; add ops or regions, then {@code record(ex)}. */
    public gluelab.workflow.correctness.StepCorrectness correctness(gluelab.workflow.experiment.ExperimentFolder ex) {
        return gluelab.workflow.correctness.StepCorrectness.on(device, planSpec(ex)).progress(progress);
    }

    /** The records (one JSON file per measurement) kept under folder {@code dir}. */
    public RecordStore store(String dir) { return new RecordStore(Path.of(dir)); }

    /** An analyst's kernel launch against its floor; bytes from its buffer arguments. */
    public gluelab.bench.KernelBenchmark.Result benchKernel(gluelab.timing.TimedLaunch.Subject launch) {
        return gluelab.bench.KernelBenchmark.run(device, calibration(), launch, TimingConfig.defaults());
    }

    /** Any launch against a floor of {@code bytes}. */
    public gluelab.bench.KernelBenchmark.Result benchKernel(gluelab.device.Launch launch, String name, long bytes) {
        return gluelab.bench.KernelBenchmark.run(device, calibration(), launch, name, bytes, TimingConfig.defaults());
    }

    /** Compiles an analyst's CUDA C kernel on this lab's device (a GPU). */
    public gluelab.backend.cuda.UserKernel cudaKernel(String source, String name) {
        return gluelab.backend.cuda.UserKernel.compile(device, source, name);
    }

    /** Allocates a device buffer filled with uniform values in [-1, 1) (a deterministic seed). */
    public gluelab.device.Buffer buffer(String name, String dtype, long... shape) {
        var spec = gluelab.tensor.TensorSpec.of(name, DType.parse(dtype), shape);
        var b = device.allocate(spec);
        try (var host = gluelab.tensor.Tensor.allocate(spec)) {
            gluelab.tensor.Fill.uniform(host, 1, -1, 1);
            device.upload(host, b);
        }
        return b;
    }

    /**
     * Runs a sweep plan on this host, one worker process per device ("all", "0,1", "cpu,cpu"), in
     * the background; the handle shows progress and merges. Workers open their own devices, so this
     * lab's device is not used.
     */
    public SweepHandle sweep(String planFile, String devices, String outDir) {
        var dir = gluelab.sweep.SweepDir.create(Path.of(outDir), gluelab.sweep.PlanFile.read(Path.of(planFile), specs));
        return SweepHandle.startLocal(dir, gluelab.sweep.DeviceList.parse(devices), gluelab.sweep.WorkerCommand.current(), progress);
    }

    /** Submits a sweep plan to Slurm as a job array (one shard per task); the handle reads squeue/sacct. */
    public SweepHandle submit(String planFile, String outDir, gluelab.sweep.slurm.SlurmOptions options) {
        var dir = gluelab.sweep.SweepDir.create(Path.of(outDir), gluelab.sweep.PlanFile.read(Path.of(planFile), specs));
        var commands = gluelab.sweep.slurm.SlurmCommands.fromEnvironment();
        new gluelab.sweep.slurm.SlurmSweep(dir, commands).submit(options, gluelab.sweep.WorkerCommand.current());
        return SweepHandle.at(dir, commands);
    }

    /** A sweep submitted earlier (from its folder), to look at, wait for or collect. */
    public SweepHandle sweepAt(String dir) {
        return SweepHandle.at(gluelab.sweep.SweepDir.open(Path.of(dir)), gluelab.sweep.slurm.SlurmCommands.fromEnvironment());
    }

    @Override public void close() {
        if (torch != null) torch.close();
        device.close();
    }

    /** Fluent description of a bench (a {@link BenchPlan.Builder}); run() measures, record() also writes an experiment record. */
    public final class BenchBuilder {
        private final BenchPlan.Builder plan = BenchPlan.builder(specs);

        private BenchBuilder(String... names) { plan.ops(List.of(names)); }

        /** The model spec whose shapes are measured, e.g. "llama-3-8b". */
        public BenchBuilder model(String name) { plan.model(name); return this; }

        /** The model and token counts of an experiment's plan. */
        public BenchBuilder forPlan(gluelab.workflow.experiment.ExperimentPlan p) {
            plan.model(p.model());
            plan.tokens(p.tokens());
            return this;
        }

        /** The token counts to measure at, e.g. {@code tokens(256, 4096)}. */
        public BenchBuilder tokens(long... t) { plan.tokens(Arrays.stream(t).boxed().toList()); return this; }

        /** The token counts as a list, e.g. "256,1k,4k". */
        public BenchBuilder tokens(String list) { plan.tokens(list); return this; }

        /** The implementations to measure side by side, e.g. "eager", "fused". */
        public BenchBuilder variants(String... v) { plan.variants(String.join(",", v)); return this; }

        /** The passes to measure: "fwd", "bwd" or both. */
        public BenchBuilder passes(String... p) { plan.passes(String.join(",", p)); return this; }

        /** The element type of the tensors, e.g. "bf16" (the default) or "fp32". */
        public BenchBuilder dtype(String d) { plan.dtype(d); return this; }

        /** How each row is timed (warm-up, repetitions, noise limits). */
        public BenchBuilder timing(TimingConfig t) { plan.timing(t); return this; }

        /** Fewer repetitions: a quick look, noisier than the default timing. */
        public BenchBuilder quick() { plan.timing(TimingConfig.quick()); return this; }

        /** Times back-to-back launches on data hot in cache instead of cold samples (the default). */
        public BenchBuilder hot() { plan.mode("hot"); return this; }

        /** Correctness check size in tokens; 0 skips checks. */
        public BenchBuilder check(long tokensForCheck) { plan.check(tokensForCheck); return this; }

        /** Buffer placements a small group's direct rows rotate through (1 = off; default: the device's count). */
        public BenchBuilder placements(int n) { plan.placements(n); return this; }

        /** The plan as described so far, checked (unknown ops, models or passes are errors here). */
        public BenchPlan plan() { return plan.build(); }

        /** Measures the plan on the lab's device (one row per op, variant, pass and token count, with its floor), tuning first where {@link #tune()} asked and adding the torch rows where {@link #withTorch()} asked. */
        public BenchResult run() {
            String python = withTorch;
            return session().peer(!torchRows ? null : (p, cal, own, prog) -> torch(python).bench(p, cal, own,
                    java.util.List.of(gluelab.torch.TorchVariant.values()), "default", prog).result()).run(plan());
        }

        /** Tunes the plan's fused kernels (and regions) first where the device has a tuner, as {@code gluelab bench} does. */
        public BenchBuilder tune() { plan.tune(true); return this; }

        private String withTorch;

        private boolean torchRows;

        /** Adds torch-eager, torch-compile and torch-compile-graph rows from the Python gluelab finds (see {@link Gluelab#torch()}). */
        public BenchBuilder withTorch() { return withTorch(null); }

        /** As {@link #withTorch()}, in {@code python} (a path; null: the one gluelab finds). */
        public BenchBuilder withTorch(String python) { withTorch = python; torchRows = true; return this; }

        /**
         * Runs as a record of experiment {@code ex} (its devlog, its records, its plan's stop rule)
         * and marks {@code step} done with the record (e.g. step 01's baselines).
         */
        public BenchSession.Outcome record(gluelab.workflow.experiment.ExperimentFolder ex, gluelab.workflow.experiment.Step step) {
            try (var running = ex.running(step)) {
                var outcome = Gluelab.this.record(plan(), RunKind.parse(step.notebook().substring(3)), ex.records(), ex.plan().stopFraction(), ex.devlog());
                ex.done(step, java.util.List.of(outcome.record().id()), java.util.Map.of(), outcome.record().rows().size() + " measurements");
                return outcome;
            }
        }

        /** Runs as a recorded experiment under {@code outDir}, logging to {@code devlog}. */
        public BenchSession.Outcome record(String outDir, Devlog devlog) {
            return Gluelab.this.record(plan(), RunKind.BENCH, new RecordStore(Path.of(outDir)), Ranking.DEFAULT_STOP_FRACTION, devlog);
        }
    }

    /** Re-renders tables for a stored record, for the ranking notebook. */
    public static Table baselines(gluelab.record.ExperimentRecord r) { return Tables.baselines(r.rows()); }
}
