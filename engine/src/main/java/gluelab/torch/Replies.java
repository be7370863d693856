package gluelab.torch;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import gluelab.compilelog.CompileLogParser;
import gluelab.compilelog.GraphBudget;
import gluelab.tensor.TensorSpec;
import gluelab.timing.Measurement;
import gluelab.timing.Mode;
import gluelab.timing.StopRule;
import gluelab.timing.Summary;
import gluelab.timing.TimingConfig;

import java.util.List;

/** The harness's messages as gluelab's types: timing configs out, measurements and compile reports back. */
final class Replies {
    private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

    private Replies() {}

    static ObjectNode timing(TimingConfig t) {
        StopRule s = t.stop();
        ObjectNode stop = JSON.objectNode().put("minSamples", s.minSamples()).put("minSeconds", s.minSeconds())
                .put("maxNoise", s.maxNoise()).put("timeoutSeconds", s.timeoutSeconds()).put("maxSamples", s.maxSamples());
        ObjectNode n = JSON.objectNode().put("mode", t.mode().name()).put("warmupSeconds", t.warmupSeconds()).put("hotBatch", t.hotBatch());
        n.set("stop", stop);
        return n;
    }

    static ArrayNode inputs(List<TensorSpec> specs) {
        ArrayNode a = JSON.arrayNode();
        for (TensorSpec s : specs) {
            ObjectNode n = a.addObject().put("name", s.name()).put("dtype", s.dtype().id());
            ArrayNode shape = n.putArray("shape");
            for (long d : s.shape()) shape.add(d);
        }
        return a;
    }

    /** A row of the reply as a Measurement: raw samples (seconds per call), summary, stop reason, the median's noise under {@code rule}. */
    static Measurement measurement(String label, TimingConfig timing, JsonNode row) {
        Mode mode = timing.mode();
        JsonNode raw = row.path("samples");
        double[] samples = new double[raw.size()];
        for (int i = 0; i < samples.length; i++) samples[i] = raw.get(i).asDouble();
        if (samples.length == 0) throw new IllegalStateException(label + ": the torch harness returned no samples");
        return new Measurement(label, mode, samples, Summary.of(samples), StopRule.Reason.valueOf(row.path("stop").asText()), 0,
                row.path("peakBytes").asLong(), row.path("wall").asDouble(), 0, row.path("noise").asDouble(Double.POSITIVE_INFINITY), timing.stop());
    }

    /** The compile-first step's reply. */
    static Precompile precompile(JsonNode r, String cacheDir) {
        List<String> failed = new java.util.ArrayList<>();
        for (JsonNode f : r.path("failed")) failed.add(f.path("subject").asText() + " (" + f.path("message").asText() + ")");
        return new Precompile(r.path("jobs").asInt(), r.path("workers").asInt(), r.path("seconds").asDouble(), r.path("compileSeconds").asDouble(),
                failed, cacheDir);
    }

    /** Compile accounting from the reply; recompiles and their reasons come from dynamo's log, read as compile-log reads files. */
    static CompileReport compile(String subject, JsonNode c) {
        String log = c.path("log").asText();
        GraphBudget budget = GraphBudget.of(CompileLogParser.parse("torch.compile of " + subject, log.lines().toList()));
        int recompiles = budget.entries().stream().mapToInt(e -> e.recompiles()).sum();
        double own = c.path("seconds").asDouble(c.path("compileSeconds").asDouble());
        boolean cold = c.has("coldSeconds");
        return new CompileReport(subject, c.path("mode").asText("default"), cold ? c.path("coldSeconds").asDouble() : own, cold ? own : 0,
                c.path("graphs").asInt(), c.path("breaks").asInt(), recompiles, c.path("error").asText(), budget);
    }
}
