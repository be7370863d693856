package gluelab.torch;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import gluelab.files.Json;
import gluelab.progress.Progress;
import gluelab.tensor.DType;
import gluelab.tensor.TensorSpec;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The tensors step 08 compares, from one harness run: per dtype, every floating output ({@code out0}, ...), input gradient
 * ({@code grad x}) and parameter gradient ({@code grad layers.0.attention.wq.weight}) of the model as written (eager), of an
 * fp64 copy of it holding the same weights and inputs rounded to that dtype, and of each fix in that dtype run twice on the same
 * inputs. Values come back as float64; they are compared in Java ({@code gluelab.check.ErrorStats}) and not kept.
 */
public record ModelCorrectness(String model, List<AtDtype> dtypes) {
    public ModelCorrectness {
        dtypes = List.copyOf(dtypes);
    }

    /** One dtype: {@code error} set (and no tensors) when eager or the fp64 copy failed. */
    public record AtDtype(DType dtype, String error, Map<String, double[]> eager, Map<String, double[]> fp64, List<FixRun> fixes) {
        public AtDtype {
            fixes = List.copyOf(fixes);
        }
    }

    /**
     * One fix in one dtype: its two steps' tensors, the parameters of the model as written it does not have ({@code missing}:
     * a swap that renamed them) and those it added ({@code unexpected}); {@code error} names the line that raised.
     */
    public record FixRun(String fix, String error, List<String> missing, List<String> unexpected, Map<String, double[]> first,
                         Map<String, double[]> second) {
        public FixRun {
            missing = List.copyOf(missing);
            unexpected = List.copyOf(unexpected);
        }
    }

    public static ModelCorrectness run(TorchBridge bridge, ModelEntry entry, List<TensorSpec> inputs, long tokens, List<ModelFix> fixes, List<DType> dtypes,
                                       String blocks, Progress progress) {
        if (fixes.isEmpty()) throw new IllegalArgumentException("correctness: no fix to check (give --fix NAME=SPEC)");
        checkDtypes(dtypes);
        ObjectNode req = ModelCheck.request("model_correctness", entry, inputs, tokens).put("blocks", blocks == null ? "" : blocks);
        ArrayNode ds = req.putArray("dtypes");
        dtypes.forEach(d -> ds.add(d.id()));
        ArrayNode vs = req.putArray("variants");
        fixes.forEach(f -> vs.add(Json.MAPPER.valueToTree(f)));
        JsonNode reply = bridge.call(req, "correctness of " + entry.shortName(), progress);
        List<AtDtype> out = new ArrayList<>();
        for (JsonNode d : reply.path("dtypes")) {
            List<FixRun> runs = new ArrayList<>();
            for (JsonNode f : d.path("fixes")) {
                runs.add(new FixRun(f.path("name").asText(), f.path("error").asText(), texts(f.path("missing")), texts(f.path("unexpected")),
                        tensors(f.path("first")), tensors(f.path("second"))));
            }
            out.add(new AtDtype(DType.parse(d.path("dtype").asText()), d.path("error").asText(), tensors(d.path("eager")), tensors(d.path("fp64")), runs));
        }
        return new ModelCorrectness(entry.toString(), out);
    }

    /** The dtypes a fix can be checked in: bf16, fp16, fp32 (fp64 is the reference), at least one. */
    public static void checkDtypes(List<DType> dtypes) {
        if (dtypes.isEmpty()) throw new IllegalArgumentException("--dtypes: none given; use bf16, fp16 or fp32");
        for (DType d : dtypes) {
            if (d != DType.BF16 && d != DType.FP16 && d != DType.FP32) throw new IllegalArgumentException("--dtypes " + d.id() + ": use bf16, fp16 or fp32 (fp64 is the reference)");
        }
    }

    private static List<String> texts(JsonNode array) {
        List<String> out = new ArrayList<>();
        array.forEach(n -> out.add(n.asText()));
        return out;
    }

    /** {name: base64 of little-endian float64} as {name: values}, in the harness's order. */
    private static Map<String, double[]> tensors(JsonNode node) {
        Map<String, double[]> out = new LinkedHashMap<>();
        node.properties().forEach(e -> {
            ByteBuffer b = ByteBuffer.wrap(Base64.getDecoder().decode(e.getValue().asText())).order(ByteOrder.LITTLE_ENDIAN);
            double[] v = new double[b.remaining() / Double.BYTES];
            b.asDoubleBuffer().get(v);
            out.put(e.getKey(), v);
        });
        return out;
    }
}
