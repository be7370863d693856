package gluelab.torch;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import gluelab.compilelog.GraphBudget;
import gluelab.tensor.TensorSpec;
import gluelab.timing.Measurement;
import gluelab.timing.TimingConfig;

import java.util.ArrayList;
import java.util.List;

/**
 * A model compiled whole and compiled block by block (each repeated block on its own, as diffusion
 * pipelines do to cut compile time): compile seconds, graphs, recompiles and the run time of each.
 * {@code target} is a factory ({@code module:function} or a module class) returning the nn.Module.
 * An arm that failed (a graph break under fullgraph, no blocks, the recompile limit, OOM, an exception)
 * is a row with its reason, and no ratio is formed against it.
 */
public record CompileComparison(String target, TorchVersions versions, List<Arm> arms) {
    public CompileComparison {
        arms = List.copyOf(arms);
    }

    /** One way of compiling; {@code run} is null when compiling or running failed ({@code error} says why). */
    public record Arm(String name, int blocks, String blockType, double compileSeconds, int graphs, int graphBreaks, int recompiles,
                      String error, Measurement run, GraphBudget budget) {
        public double runUs() { return run == null ? Double.NaN : run.medianMicros(); }

        /** Compiling or running this arm failed; {@code error} says why. */
        public boolean failed() { return !error.isEmpty() || run == null; }
    }

    /**
     * Runs both arms. {@code blocks}: the dotted attribute path of the container whose children are the
     * blocks (e.g. "layers"); null finds the group of sibling modules of one class (holding the most parameters) in a
     * ModuleList, Sequential or ModuleDict.
     */
    public static CompileComparison run(TorchBridge bridge, String target, List<TensorSpec> inputs, String blocks, String compileMode,
                                        boolean fullgraph, TimingConfig timing, long flushBytes) {
        ObjectNode req = TorchBridge.request("compare").put("target", target).put("device", bridge.device()).put("compileMode", compileMode)
                .put("fullgraph", fullgraph).put("flushBytes", flushBytes);
        if (blocks != null && !blocks.isBlank()) req.put("blocks", blocks);
        req.set("inputs", Replies.inputs(inputs));
        req.set("timing", Replies.timing(timing));
        JsonNode reply = bridge.call(req, "compare-compile " + target);
        List<Arm> arms = new ArrayList<>();
        for (JsonNode a : reply.path("arms")) {
            String name = a.path("arm").asText();
            CompileReport c = Replies.compile(target + " (" + name + ")", a);
            Measurement m = a.path("samples").isEmpty() ? null : Replies.measurement(target + "/" + name, timing, a);
            arms.add(new Arm(name, a.path("blocks").asInt(), a.path("blockType").asText(), c.seconds(), c.graphs(), c.graphBreaks(),
                    c.recompiles(), c.error(), m, c.budget()));
        }
        return new CompileComparison(target, bridge.versions(), arms);
    }

    /** Compile seconds of the whole model over those of the per-block compile (NaN unless both arms compiled and ran). */
    public double compileRatio() {
        if (arms.size() < 2 || arms.get(0).failed() || arms.get(1).failed() || arms.get(1).compileSeconds() <= 0) return Double.NaN;
        return arms.get(0).compileSeconds() / arms.get(1).compileSeconds();
    }

    public String text() {
        StringBuilder sb = new StringBuilder("compare-compile " + target + " (" + versions.describe() + ")\n");
        sb.append(String.format("  %-12s %7s %11s %7s %7s %10s %10s  %s%n", "compile", "blocks", "compile_s", "graphs", "breaks", "recompiles", "run_us", "error"));
        for (Arm a : arms) {
            sb.append(String.format("  %-12s %7d %11.2f %7d %7d %10d %10.1f  %s%n", a.name(), a.blocks(), a.compileSeconds(), a.graphs(),
                    a.graphBreaks(), a.recompiles(), a.runUs(), a.error()));
        }
        if (!Double.isNaN(compileRatio())) sb.append(String.format("  whole model / per block compile time: %.2fx%n", compileRatio()));
        else arms.stream().filter(Arm::failed).forEach(a -> sb.append("  no compile-time ratio: the ").append(a.name()).append(" arm failed\n"));
        for (Arm a : arms) {
            if (!a.budget().symptoms().isEmpty()) {
                sb.append("  ").append(a.name()).append(": ");
                a.budget().symptoms().forEach(s -> sb.append("[").append(s.kind().id()).append("] ").append(s.title()).append("; "));
                sb.append('\n');
            }
        }
        return sb.toString();
    }
}
