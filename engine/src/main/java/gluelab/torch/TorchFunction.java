package gluelab.torch;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import gluelab.calibrate.Calibration;
import gluelab.floor.Floor;
import gluelab.ops.OpId;
import gluelab.ops.Pass;
import gluelab.ops.MeasureKey;
import gluelab.record.Row;
import gluelab.tensor.TensorSpec;
import gluelab.timing.TimingConfig;

import java.util.ArrayList;
import java.util.List;

/**
 * A user's own torch function or module ({@code package.module:function} or {@code file.py:function};
 * an nn.Module class is instantiated), timed eager and compiled at the given input shapes. Its floor
 * counts the inputs it reads and the outputs it writes (the harness measures their sizes).
 */
public record TorchFunction(String target, List<TensorSpec> inputs, String model) {
    public TorchFunction {
        if (target == null || !target.contains(":")) throw new IllegalArgumentException("target '" + target + "' must be module:function or file.py:function");
        inputs = List.copyOf(inputs);
        if (inputs.isEmpty()) throw new IllegalArgumentException(target + ": give its inputs, e.g. --inputs 'x:T,D:bf16; w:D:bf16'");
    }

    /**
     * The op id its rows carry: the function's name after the ':' in snake case ("file.py:MyNorm" gives
     * {@code mynorm}); the full target stays in the measurement's label and in the skip subjects.
     */
    public OpId id() {
        String fn = target.substring(target.lastIndexOf(':') + 1).toLowerCase(java.util.Locale.ROOT).replaceAll("[^a-z0-9_]", "_");
        return OpId.of(fn.isEmpty() || !Character.isLetter(fn.charAt(0)) ? "fn_" + fn : fn);
    }

    public TorchResult time(TorchBridge bridge, Calibration cal, long flushBytes, Pass pass, List<TorchVariant> variants, String compileMode,
                            TimingConfig timing) {
        ObjectNode req = TorchBridge.request("fn").put("target", target).put("device", bridge.device()).put("pass", pass.id())
                .put("compileMode", compileMode).put("flushBytes", flushBytes);
        req.set("inputs", Replies.inputs(inputs));
        req.set("timing", Replies.timing(timing));
        var names = req.putArray("variants");
        variants.forEach(v -> names.add(v.id()));
        String subject = target + "/" + pass.id();
        JsonNode reply = bridge.call(req, "torch " + subject);
        long tokens = inputs.getFirst().shape()[0];
        Floor floor = new Floor(target, pass, tokens, reply.path("bytes").asLong(), 0, cal.bandwidth(), cal.peakFlops());
        List<Row> rows = new ArrayList<>();
        for (JsonNode r : reply.path("rows")) {
            MeasureKey key = TorchVariant.parse(r.path("variant").asText()).key(id(), pass, tokens, inputs.getFirst().dtype());
            rows.add(new Row(key, model, floor.bytes(), 0, floor.idealSeconds() * 1e6, floor.bound(), Replies.measurement(target + ": " + key, timing, r), null));
        }
        List<Skipped> skipped = new ArrayList<>();
        for (JsonNode s : reply.path("skipped")) skipped.add(new Skipped(subject, s.path("variant").asText(), s.path("reason").asText()));
        List<CompileReport> compiles = reply.hasNonNull("compile") ? List.of(Replies.compile(subject, reply.get("compile"))) : List.of();
        return new TorchResult(bridge.versions(), rows, compiles, skipped);
    }
}
