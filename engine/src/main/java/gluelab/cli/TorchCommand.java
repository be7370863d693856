package gluelab.cli;

import gluelab.calibrate.Calibrator;
import gluelab.device.Device;
import gluelab.files.Locations;
import gluelab.model.ModelSpec;
import gluelab.model.SpecRegistry;
import gluelab.ops.Pass;
import gluelab.files.Json;
import gluelab.tensor.TensorSpec;
import gluelab.timing.StopRule;
import gluelab.timing.TimingConfig;
import gluelab.torch.*;
import picocli.CommandLine.*;

import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Callable;

@Command(name = "torch", mixinStandardHelpOptions = true, description = "PyTorch side by side: the user's Python runs gluelab's harness (torch is all it needs).",
        subcommands = {TorchCommand.Versions.class, TorchCommand.Time.class, TorchCommand.CompareCompile.class, TorchCommand.Chart.class})
public final class TorchCommand implements Runnable {
    @Spec Model.CommandSpec spec;

    @Override public void run() { spec.commandLine().usage(System.out); }

    /** Options every torch subcommand shares. */
    static final class Common {
        @Mixin DeviceOptions deviceOptions;

        @Option(names = "--python", description = "the Python with torch (default: GLUELAB_PYTHON, else the active virtual environment's, else the first of python3 on PATH and /usr/bin/python3 that imports torch)")
        String python;

        /** The torch side in --python, or in the Python gluelab finds. */
        TorchSide start(Device device) { return TorchSide.start(PythonFinder.standard().find(python, PythonSource.FLAG), device); }

        @Option(names = "--json", description = "print JSON") boolean json;
    }

    /** The user target's inputs and timing options. */
    static final class Target {
        @Parameters(index = "0", paramLabel = "TARGET", description = "module:function or file.py:function (an nn.Module class or a function)")
        String target;

        @Option(names = "--inputs", required = true, description = "NAME:DIMS:DTYPE; ... with numbers or model symbols T B D H KV HD F E K, e.g. 'x:T,D:bf16; w:D:bf16'")
        String inputs;

        @Mixin PlanOptions.Shapes shapes = new PlanOptions.Shapes();

        @Option(names = "--compile-mode", defaultValue = "default", description = "torch.compile mode (default: ${DEFAULT-VALUE})")
        String compileMode;

        @Option(names = "--timeout", defaultValue = "15", description = "seconds per measurement at most (default: ${DEFAULT-VALUE})")
        double timeout;

        ModelSpec spec() { return shapes.spec(SpecRegistry.load(Locations.specFolders())); }

        /** The spec's name, as the rows record it. */
        String model() { return spec().name(); }

        List<TensorSpec> inputSpecs() {
            List<Long> t = shapes.tokens(PlanOptions.Defaults.TORCH);
            if (t.size() != 1) throw new IllegalArgumentException("--tokens takes one count here, got " + shapes.tokens);
            return InputSpecs.parse(inputs, InputSpecs.symbols(spec(), t.getFirst()));
        }

        TimingConfig timing() { return TimingConfig.defaults().withStop(StopRule.standard().withTimeout(timeout)); }
    }

    @Command(name = "versions", mixinStandardHelpOptions = true, description = "Start the harness and print Python, torch, Triton, CUDA and GPU.")
    static final class Versions implements Callable<Integer> {
        @Mixin Common common;

        @Override public Integer call() {
            try (Device device = common.deviceOptions.open(); TorchSide torch = common.start(device)) {
                System.out.println(common.json ? Json.write(torch.versions()) : torch.versions().describe());
            }
            return 0;
        }
    }

    @Command(name = "time", mixinStandardHelpOptions = true, description = "Time the user's torch function or module eager and compiled, against its floor.")
    static final class Time implements Callable<Integer> {
        @Mixin Common common;
        @Mixin Target target;

        @Mixin PlanOptions.Passes passes = new PlanOptions.Passes();

        @Option(names = "--variants", defaultValue = "torch-eager,torch-compile,torch-compile-graph", description = "(default: ${DEFAULT-VALUE})")
        String variants;

        @Override public Integer call() {
            List<TensorSpec> inputs = target.inputSpecs();
            List<Pass> ps = passes.passes(PlanOptions.Defaults.TORCH);
            List<TorchVariant> vs = Arrays.stream(variants.split(",")).map(TorchVariant::parse).toList();
            TorchSide.checkMode(target.compileMode);
            TorchFunction fn = new TorchFunction(target.target, inputs, target.model());
            try (Device device = common.deviceOptions.open(); TorchSide torch = common.start(device)) {
                var cal = new Calibrator(device, Locations.calibrationCache()).calibrate(false);
                List<gluelab.record.Row> rows = new java.util.ArrayList<>();
                List<CompileReport> compiles = new java.util.ArrayList<>();
                List<Skipped> skipped = new java.util.ArrayList<>();
                for (Pass p : ps) {
                    TorchResult r = fn.time(torch.bridge(), cal, torch.flushBytes(), p, vs, target.compileMode, target.timing());
                    rows.addAll(r.rows());
                    compiles.addAll(r.compiles());
                    skipped.addAll(r.skipped());
                }
                if (common.json) {
                    System.out.println(Json.write(new TorchResult(torch.versions(), rows, compiles, skipped)));
                } else {
                    System.out.println("torch side: " + torch.versions().describe());
                    System.out.println(gluelab.report.Tables.results(rows).printAll());
                    if (!compiles.isEmpty()) System.out.println(TorchTables.compiles(compiles).printAll());
                    skipped.forEach(s -> System.out.println("skipped " + s.subject() + " " + s.variant() + ": " + s.reason()));
                }
            }
            return 0;
        }
    }

    @Command(name = "compare-compile", mixinStandardHelpOptions = true,
            description = "Compile the model whole, then each repeated block on its own: compile seconds, graphs, recompiles, run time.")
    static final class CompareCompile implements Callable<Integer> {
        @Mixin Common common;
        @Mixin Target target;

        @Option(names = "--fullgraph", description = "compile with fullgraph=True (graph breaks and the recompile limit become errors)")
        boolean fullgraph;

        @Option(names = "--blocks", paramLabel = "ATTRIBUTE", description = "the container of the blocks, as a dotted attribute path of the model (e.g. layers); "
                + "default: the group of sibling modules of one class in a ModuleList, Sequential or ModuleDict holding the most parameters")
        String blocks;

        @Override public Integer call() {
            List<TensorSpec> inputs = target.inputSpecs();
            TorchSide.checkMode(target.compileMode);
            try (Device device = common.deviceOptions.open(); TorchSide torch = common.start(device)) {
                System.err.println("compiling " + target.target + " whole, then per block (this takes a while)...");
                CompileComparison c = CompileComparison.run(torch.bridge(), target.target, inputs, blocks, target.compileMode, fullgraph, target.timing(),
                        torch.flushBytes());
                System.out.println(common.json ? Json.write(c) : c.text());
            }
            return 0;
        }
    }

    @Command(name = "chart", mixinStandardHelpOptions = true,
            description = "The side-by-side table and charts of rows saved by `bench --json` (draw here what a GPU host without fonts could not).")
    static final class Chart implements Callable<Integer> {
        @Parameters(index = "0", paramLabel = "ROWS", description = "the JSON rows of `gluelab bench ... --with torch --json`") java.nio.file.Path rows;

        @Parameters(index = "1", paramLabel = "BASE", description = "charts go to BASE-fwd.png/.svg, BASE-bwd...") java.nio.file.Path base;

        @Option(names = "--device-name", required = true, paramLabel = "NAME",
                description = "the device the rows were measured on, for the chart titles (saved rows do not carry it), e.g. \"NVIDIA H200\"")
        String deviceName;

        @Override public Integer call() throws Exception {
            List<gluelab.record.Row> all;
            try {
                all = List.of(Json.MAPPER.readValue(rows.toFile(), gluelab.record.Row[].class));
            } catch (java.io.IOException e) {
                throw new IllegalArgumentException(rows + ": not the JSON rows of `gluelab bench --json`: " + e.getMessage());
            }
            if (all.isEmpty()) throw new IllegalArgumentException(rows + ": no rows");
            System.out.println(TorchTables.sideBySide(all).printAll());
            for (String pass : all.stream().map(r -> r.pass().id()).distinct().toList()) {
                var c = gluelab.chart.Charts.baselines(all, pass, deviceName);
                System.out.println("chart: " + gluelab.chart.Charts.save(c, java.nio.file.Path.of(base + "-" + pass)) + ": " + c.getTitle());
            }
            return 0;
        }
    }
}
