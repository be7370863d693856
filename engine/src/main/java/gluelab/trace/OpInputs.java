package gluelab.trace;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Per op and its input shapes as torch.profiler's FunctionEvent writes them ({@code [[32, 64], [], []]}, the key
 * of a model profile's row), the tensor inputs those shapes leave out, read from the trace's own Input Dims and
 * Input type: a 0-dim tensor (a Python scalar made a tensor, as the {@code copy_} under {@code x + eps} copies;
 * FunctionEvent writes its dims {@code []}, as a non-tensor's) and a tensor list ({@code cat}'s and {@code stack}'s
 * inputs: FunctionEvent writes {@code []} where the trace holds each tensor's dims, and the trace's type is
 * "TensorList", so their element size is not recorded). Both are counted per call: {@code uniform} says every
 * call with these shapes left out the same.
 */
public record OpInputs(String op, String shapes, int calls, long zeroDimBytes, long listElements, boolean uniform) {
    /** How a profile row is looked up: its op and its input shapes as FunctionEvent writes them. */
    public static String key(String op, String shapes) { return op + " " + shapes; }

    public String key() { return key(op, shapes); }

    /** Whether any call had a tensor input its FunctionEvent shapes leave out. */
    public boolean leftOut() { return zeroDimBytes > 0 || listElements > 0; }

    public double zeroDimBytesPerCall() { return (double) zeroDimBytes / calls; }

    public double listElementsPerCall() { return (double) listElements / calls; }

    /** {@code [[32, 64], [], []]}: each input's dims, a tensor list's and a non-tensor's as {@code []}, as Python prints FunctionEvent.input_shapes. */
    static String functionEventShapes(Events.CpuOp op) {
        StringBuilder sb = new StringBuilder("[");
        for (int i = 0; i < op.inputDims().size(); i++) {
            if (i > 0) sb.append(", ");
            sb.append('[');
            if (!isList(op, i)) {
                long[] d = op.inputDims().get(i);
                for (int j = 0; j < d.length; j++) sb.append(j > 0 ? ", " : "").append(d[j]);
            }
            sb.append(']');
        }
        return sb.append(']').toString();
    }

    private static boolean isList(Events.CpuOp op, int i) {
        return i < op.tensorLists().size() && op.tensorLists().get(i) != null && !op.tensorLists().get(i).isEmpty();
    }

    /** Collects the ops of one trace as they stream by: one entry per distinct (op, shapes), not per call. */
    static final class Collector {
        private static final class Running {
            int calls;
            long zeroDim, elements, firstZeroDim = -1, firstElements = -1;
            boolean uniform = true;
        }

        private final Map<String, Running> byKey = new LinkedHashMap<>();
        private final Map<String, String[]> names = new LinkedHashMap<>();

        void add(Events.CpuOp op) {
            long zeroDim = 0, elements = 0;
            for (int i = 0; i < op.inputDims().size(); i++) {
                if (isList(op, i)) {
                    for (long[] d : op.tensorLists().get(i)) elements += ShapeFloors.numel(d);
                } else if (op.inputDims().get(i).length == 0 && i < op.inputTypes().size()) {
                    zeroDim += ShapeFloors.size(op.inputTypes().get(i));
                }
            }
            String shapes = functionEventShapes(op), key = key(op.name(), shapes);
            Running r = byKey.computeIfAbsent(key, k -> new Running());
            names.putIfAbsent(key, new String[]{op.name(), shapes});
            if (r.calls == 0) {
                r.firstZeroDim = zeroDim;
                r.firstElements = elements;
            } else if (zeroDim != r.firstZeroDim || elements != r.firstElements) {
                r.uniform = false;
            }
            r.calls++;
            r.zeroDim += zeroDim;
            r.elements += elements;
        }

        List<OpInputs> finish() {
            List<OpInputs> out = new ArrayList<>(byKey.size());
            byKey.forEach((k, r) -> out.add(new OpInputs(names.get(k)[0], names.get(k)[1], r.calls, r.zeroDim, r.elements, r.uniform)));
            return out;
        }
    }
}
