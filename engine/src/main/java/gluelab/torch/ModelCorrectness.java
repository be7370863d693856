package gluelab.torch;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import gluelab.check.ErrorStats;
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
 * What step 08 compares, from one harness run: per dtype, every floating output ({@code out0}, ...), input gradient
 * ({@code grad x}) and parameter gradient ({@code grad layers.0.attention.wq.weight}) of the model as written (eager) against an
 * fp64 copy of it holding the same weights and inputs rounded to that dtype, and each fix in that dtype run twice on the same
 * inputs, against fp64, against eager and against its own first step. Torch computes the {@link ErrorStats} where the tensors
 * are (a model's gradients are gigabytes at real dims); {@link #errorStats} is the check that its numbers are Java's.
 */
public record ModelCorrectness(String model, List<AtDtype> dtypes) {
    public ModelCorrectness {
        dtypes = List.copyOf(dtypes);
    }

    /**
     * One dtype: {@code error} set (and nothing else) when the model as written failed; {@code referenceError} set when its fp64
     * copy failed or did not fit (then no tensor has a stat vs fp64). {@code tensors} are the model's, in the harness's order;
     * {@code eagerRepeat} its own second step against its first (how much the model as written changes by itself).
     */
    public record AtDtype(DType dtype, String error, String referenceError, List<Tensor> tensors, List<Repeat> eagerRepeat, List<FixRun> fixes) {
        public AtDtype {
            tensors = List.copyOf(tensors);
            eagerRepeat = List.copyOf(eagerRepeat);
            fixes = List.copyOf(fixes);
        }

        /** This dtype with {@code run} added to its fixes. */
        AtDtype with(FixRun run) {
            List<FixRun> all = new ArrayList<>(fixes);
            all.add(run);
            return new AtDtype(dtype, error, referenceError, tensors, eagerRepeat, all);
        }
    }

    /** One tensor of the model as written: its size and eager's error against the fp64 copy (null without one). */
    public record Tensor(String name, long elements, ErrorStats eagerVsFp64) {}

    /**
     * One fix in one dtype: per tensor of the model, the fix's errors; the parameters of the model as written it does not have
     * ({@code missing}: a swap that renamed them) and those it added ({@code unexpected}); its second step against its first;
     * {@code error} names the line that raised.
     */
    public record FixRun(String fix, String error, List<String> missing, List<String> unexpected, List<FixTensor> tensors, List<Repeat> repeat) {
        public FixRun {
            missing = List.copyOf(missing);
            unexpected = List.copyOf(unexpected);
            tensors = List.copyOf(tensors);
            repeat = List.copyOf(repeat);
        }
    }

    /**
     * A tensor of the model in a fix: how many values the fix has there (-1: none, a gradient it does not produce), and its errors
     * vs fp64 (null without a reference or when the sizes differ) and vs eager (null when the sizes differ).
     */
    public record FixTensor(String name, long elements, ErrorStats vsFp64, ErrorStats vsEager) {}

    /** A tensor of the fix's first step against the same tensor of its second (null: the second step did not give it). */
    public record Repeat(String name, ErrorStats stats) {}

    /** As the full {@code run}, under the {@link StepLimits#standard() standard} limits. */
    public static ModelCorrectness run(TorchBridge bridge, ModelEntry entry, List<TensorSpec> inputs, long tokens, List<ModelFix> fixes, List<DType> dtypes,
                                       String blocks, Progress progress) {
        return run(bridge, entry, inputs, tokens, fixes, dtypes, blocks, StepLimits.standard(), progress);
    }

    /**
     * Checks {@code fixes} in {@code dtypes}: each build and fwd+bwd step runs under {@code limits} (a fix's compile excluded, up to
     * the compile limit; the fp64 copy's build and step together may take 5 step limits), so a model or fix stuck past them is
     * that dtype's or that fix's error naming the line. Each dtype's eager and fp64 rows and each fix come back as they are
     * done, so a harness that dies costs what it died in (the dtype, or the fix, saying how the process ended) and the rest is
     * checked in a fresh harness.
     */
    public static ModelCorrectness run(TorchBridge bridge, ModelEntry entry, List<TensorSpec> inputs, long tokens, List<ModelFix> fixes, List<DType> dtypes,
                                       String blocks, StepLimits limits, Progress progress) {
        if (fixes.isEmpty()) throw new IllegalArgumentException("correctness: no fix to check (give --fix NAME=SPEC)");
        checkDtypes(dtypes);
        ObjectNode req = ModelCheck.request("model_correctness", entry, inputs, tokens).put("blocks", blocks == null ? "" : blocks);
        ArrayNode ds = req.putArray("dtypes");
        dtypes.forEach(d -> ds.add(d.id()));
        ArrayNode vs = req.putArray("variants");
        fixes.forEach(f -> vs.add(Json.MAPPER.valueToTree(f)));
        limits.put(req);
        int per = 1 + fixes.size();
        Map<DType, AtDtype> out = new LinkedHashMap<>();
        ResumedCall.run(bridge, req, "correctness of " + entry.shortName(), dtypes.size() * per, progress, limits.silence(0), new ResumedCall.Units() {
            @Override public void part(JsonNode p) {
                DType d = DType.parse(p.path("dtype").asText());
                if (p.path("kind").asText().equals("fix")) out.computeIfPresent(d, (k, a) -> a.with(fixRun(p)));
                else out.putIfAbsent(d, atDtype(d, p));
            }

            @Override public int failed(int index, String reason) {
                DType d = dtypes.get(index / per);
                int fix = index % per - 1;
                if (fix < 0) {
                    out.put(d, new AtDtype(d, reason, "", List.of(), List.of(), List.of()));
                    return per;
                }
                out.computeIfPresent(d, (k, a) -> a.with(new FixRun(fixes.get(fix).name(), reason, List.of(), List.of(), List.of(), List.of())));
                return 1;
            }
        });
        return new ModelCorrectness(entry.toString(), List.copyOf(out.values()));
    }

    private static AtDtype atDtype(DType d, JsonNode p) {
        List<Tensor> tensors = new ArrayList<>();
        for (JsonNode t : p.path("tensors")) {
            String name = t.path("name").asText();
            tensors.add(new Tensor(name, t.path("elements").asLong(), stats(t.path("eagerVsFp64"), name, "fp64")));
        }
        return new AtDtype(d, p.path("error").asText(), p.path("referenceError").asText(), tensors, repeats(p.path("eagerRepeat")), List.of());
    }

    private static FixRun fixRun(JsonNode f) {
        List<FixTensor> mine = new ArrayList<>();
        for (JsonNode t : f.path("tensors")) {
            String name = t.path("name").asText();
            mine.add(new FixTensor(name, t.path("elements").asLong(), stats(t.path("vsFp64"), name, "fp64"), stats(t.path("vsEager"), name, "eager")));
        }
        return new FixRun(f.path("name").asText(), f.path("error").asText(), texts(f.path("missing")), texts(f.path("unexpected")), mine, repeats(f.path("repeat")));
    }

    /** The harness's ErrorStats of {@code actual} against {@code reference} per pair, both given as float64 values, in {@code dtype}'s ulps. */
    public static List<ErrorStats> errorStats(TorchBridge bridge, List<double[][]> pairs, DType dtype) {
        ObjectNode req = TorchBridge.request("error_stats");
        ArrayNode ps = req.putArray("pairs");
        for (double[][] p : pairs) ps.addObject().put("actual", bytes(p[0])).put("reference", bytes(p[1])).put("dtype", dtype.id());
        List<ErrorStats> out = new ArrayList<>();
        for (JsonNode s : bridge.call(req, "error stats", Progress.NONE).path("stats")) out.add(stats(s, "pair " + out.size(), "reference"));
        return out;
    }

    /** The dtypes a fix can be checked in: bf16, fp16, fp32 (fp64 is the reference), at least one. */
    public static void checkDtypes(List<DType> dtypes) {
        if (dtypes.isEmpty()) throw new IllegalArgumentException("--dtypes: none given; use bf16, fp16 or fp32");
        for (DType d : dtypes) {
            if (d != DType.BF16 && d != DType.FP16 && d != DType.FP32) throw new IllegalArgumentException("--dtypes " + d.id() + ": use bf16, fp16 or fp32 (fp64 is the reference)");
        }
    }

    private static ErrorStats stats(JsonNode s, String tensor, String against) {
        if (s.isMissingNode() || s.isNull()) return null;
        return new ErrorStats(tensor, against, s.path("elements").asLong(), s.path("relL2").asDouble(), s.path("maxUlp").asDouble(), s.path("maxAbs").asDouble(),
                s.path("mismatches").asLong());
    }

    private static List<Repeat> repeats(JsonNode array) {
        List<Repeat> out = new ArrayList<>();
        for (JsonNode t : array) {
            String name = t.path("name").asText();
            out.add(new Repeat(name, stats(t.path("stats"), name, "first step")));
        }
        return out;
    }

    private static List<String> texts(JsonNode array) {
        List<String> out = new ArrayList<>();
        array.forEach(n -> out.add(n.asText()));
        return out;
    }

    private static String bytes(double[] values) {
        ByteBuffer b = ByteBuffer.allocate(values.length * Double.BYTES).order(ByteOrder.LITTLE_ENDIAN);
        b.asDoubleBuffer().put(values);
        return Base64.getEncoder().encodeToString(b.array());
    }
}
