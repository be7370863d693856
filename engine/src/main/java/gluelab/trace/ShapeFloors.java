package gluelab.trace;

import com.fasterxml.jackson.annotation.JsonProperty;

import java.util.*;

/**
 * Ideal times from recorded shapes (record_shapes=True): each GPU kernel is linked to the cpu_op
 * that launched it (External id, {@link OpLinks}); the op's bytes are its tensor inputs read once plus its outputs
 * written once, outputs derived from the op's semantics where gluelab knows them (elementwise with
 * broadcasting, in-place, copies, reductions over the recorded dims, cat, matmuls); elsewhere the
 * output is assumed shaped like the first input and the row says so.
 */
public final class ShapeFloors {
    /** One op at one set of input shapes, over all its instances. */
    public record OpFloor(String op, String shapes, int instances, int kernels, @JsonProperty("measured_us") double measuredUs,
                          long bytes, @JsonProperty("ideal_us") double idealUs, @JsonProperty("pct_of_floor") double pctOfFloor,
                          String outputs) {}

    private static final Set<String> ELEMENTWISE = Set.of("add", "sub", "mul", "div", "pow", "rsqrt", "sqrt", "exp", "log", "silu", "sigmoid",
            "tanh", "gelu", "relu", "neg", "abs", "reciprocal", "silu_backward", "sigmoid_backward", "gelu_backward", "threshold_backward",
            "where", "clamp", "masked_fill", "clone", "contiguous", "maximum", "minimum", "sin", "cos", "lerp", "addcmul", "addcdiv", "square",
            "_to_copy", "to", "type_as", "view_as_real", "view_as_complex", "polar", "mul_", "add_", "sub_", "div_", "copy_", "fill_", "zero_");
    private static final Set<String> REDUCTIONS = Set.of("sum", "mean", "amax", "amin", "max", "min", "var", "std", "prod", "logsumexp", "norm",
            "linalg_vector_norm");
    private static final Set<String> MATMULS = Set.of("mm", "bmm", "matmul", "addmm", "linear", "baddbmm");

    private ShapeFloors() {}

    /** An op at one set of input shapes as read: its instances with kernels, their kernels, time and bytes. */
    public record OpTotal(String op, String shapes, int instances, int kernels, @JsonProperty("measured_us") double measuredUs,
                          long bytes, String outputs) {}

    /** Rows with ideal times at {@code bandwidthBytesPerSecond}, largest gap (measured - ideal) first. */
    public static List<OpFloor> of(Trace t, double bandwidthBytesPerSecond) {
        List<OpFloor> out = new ArrayList<>();
        for (OpTotal o : t.ops()) {
            double ideal = o.bytes() / bandwidthBytesPerSecond * 1e6;
            out.add(new OpFloor(o.op(), o.shapes(), o.instances(), o.kernels(), o.measuredUs(), o.bytes(), ideal,
                    o.measuredUs() > 0 ? 100 * ideal / o.measuredUs() : 0, o.outputs()));
        }
        out.sort(Comparator.comparingDouble((OpFloor f) -> f.measuredUs() - f.idealUs()).reversed());
        return out;
    }

    record Bytes(long read, long written, String shapes, String outputs) {
        long total() { return read + written; }
    }

    /** Element size of a profiler "Input type", 0 for non-tensors. */
    static int size(String type) {
        if (type == null) return 0;
        return switch (type) {
            case "c10::BFloat16", "c10::Half", "short int" -> 2;
            case "float", "int", "unsigned int" -> 4;
            case "double", "long int", "c10::complex<float>" -> 8;
            case "c10::complex<double>" -> 16;
            case "bool", "unsigned char", "signed char", "c10::Float8_e4m3fn", "c10::Float8_e5m2" -> 1;
            default -> 0;
        };
    }

    /** Element size of a dtype given as a ScalarType number in Concrete Inputs. */
    static int scalarTypeSize(String code) {
        return switch (code.strip()) {
            case "5", "15" -> 2;
            case "6", "3" -> 4;
            case "7", "4", "9" -> 8;
            case "0", "1", "11" -> 1;
            default -> 0;
        };
    }

    static long numel(long[] dims) {
        long n = 1;
        for (long d : dims) n *= d;
        return n;
    }

    static Bytes bytes(Events.CpuOp op) {
        String name = op.name().startsWith("aten::") ? op.name().substring(6) : op.name();
        List<long[]> dims = op.inputDims();
        List<String> types = op.inputTypes();
        List<Integer> tensors = new ArrayList<>();
        StringBuilder shapes = new StringBuilder();
        for (int i = 0; i < dims.size(); i++) {
            boolean list = i < op.tensorLists().size() && op.tensorLists().get(i) != null && !op.tensorLists().get(i).isEmpty();
            if (size(i < types.size() ? types.get(i) : null) > 0 || list) {
                tensors.add(i);
                if (!shapes.isEmpty()) shapes.append(' ');
                shapes.append(list ? op.tensorLists().get(i).stream().map(Arrays::toString).toList().toString() : Arrays.toString(dims.get(i)));
            }
        }
        long[] each = new long[dims.size()];
        int fallbackSize = 2;
        for (int i : tensors) if (size(types.get(i)) > 0) { fallbackSize = size(types.get(i)); break; }
        for (int i : tensors) {
            boolean list = i < op.tensorLists().size() && op.tensorLists().get(i) != null && !op.tensorLists().get(i).isEmpty();
            int sz = size(types.get(i)) > 0 ? size(types.get(i)) : fallbackSize;
            if (list) for (long[] d : op.tensorLists().get(i)) each[i] += numel(d) * sz;
            else each[i] = numel(dims.get(i)) * sz;
        }
        long read = 0;
        for (int i : tensors) read += each[i];
        if (tensors.isEmpty()) return new Bytes(0, 0, "", "no tensor inputs");
        int first = tensors.getFirst();
        String concrete1 = op.concreteInputs().size() > 1 ? op.concreteInputs().get(1) : "";
        if (name.equals("copy_")) {
            return new Bytes(tensors.size() > 1 ? each[tensors.get(1)] : 0, each[first], shapes.toString(), "known: dst written, src read");
        }
        if (name.equals("fill_") || name.equals("zero_")) return new Bytes(0, each[first], shapes.toString(), "known: written only");
        if (name.endsWith("_") && !name.endsWith("__")) return new Bytes(read, each[first], shapes.toString(), "known: in place");
        if (REDUCTIONS.contains(name)) {
            long[] in = dims.get(first);
            Set<Integer> axes = new HashSet<>();
            for (String part : concrete1.replaceAll("[\\[\\]\\s]", "").split(",")) {
                if (part.isEmpty()) continue;
                try {
                    int a = Integer.parseInt(part);
                    axes.add(a < 0 ? a + in.length : a);
                } catch (NumberFormatException ignored) {
                    // A non-numeric dim argument: treat as a full reduction.
                }
            }
            long out = 1;
            if (!axes.isEmpty()) for (int a = 0; a < in.length; a++) if (!axes.contains(a)) out *= in[a];
            return new Bytes(read, out * size(types.get(first)), shapes.toString(), axes.isEmpty() ? "known: full reduction" : "known: reduced over " + axes);
        }
        if (name.equals("cat") || name.equals("stack")) return new Bytes(read, read, shapes.toString(), "known: inputs concatenated");
        boolean withBias = name.equals("addmm") || name.equals("baddbmm");
        if (MATMULS.contains(name) && tensors.size() >= (withBias ? 3 : 2)) {
            long[] a = dims.get(tensors.get(withBias ? 1 : 0)), b = dims.get(tensors.get(withBias ? 2 : 1));
            long rowsA = 1;  // every dim but the last: an expert routed no tokens multiplies (32, 0) by (0, 64)
            for (int d = 0; d < a.length - 1; d++) rowsA *= a[d];
            long n = b.length == 0 ? 1 : name.equals("linear") ? b[0] : b[b.length - 1];
            return new Bytes(read, rowsA * n * size(types.get(first)), shapes.toString(), "known: matmul output (memory floor only)");
        }
        if (ELEMENTWISE.contains(name)) {
            long[] out = broadcast(tensors.stream().map(dims::get).toList());
            int sz = 0;
            for (int i : tensors) sz = Math.max(sz, size(types.get(i)));
            if ((name.equals("_to_copy") || name.equals("to")) && scalarTypeSize(concrete1) > 0) sz = scalarTypeSize(concrete1);
            return new Bytes(read, numel(out) * sz, shapes.toString(), "known: elementwise");
        }
        return new Bytes(read, each[first], shapes.toString(), "assumed: output shaped like the first input");
    }

    static long[] broadcast(List<long[]> shapes) {
        int rank = 0;
        for (long[] s : shapes) rank = Math.max(rank, s.length);
        long[] out = new long[rank];
        Arrays.fill(out, 1);
        for (long[] s : shapes) {
            for (int i = 0; i < s.length; i++) {
                int at = rank - s.length + i;
                out[at] = Math.max(out[at], s[i]);
            }
        }
        return out;
    }
}
