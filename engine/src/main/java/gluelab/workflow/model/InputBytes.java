package gluelab.workflow.model;

import gluelab.floor.OpKind;
import gluelab.tensor.DType;
import gluelab.torch.ModelProfile;
import gluelab.trace.OpInputs;
import gluelab.trace.TraceReader;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * The bytes a profile row's tensor inputs hold, which its floor reads once and writes as many of. The harness
 * counts them from torch.profiler's FunctionEvent shapes, which leave out two kinds of tensor: a 0-dim tensor
 * (on the CPU the {@code aten::copy_} of a Python scalar made a tensor, as {@code x + eps} makes one: its dims are
 * {@code []}, as a non-tensor's, so the harness counted 0 bytes) and a tensor list ({@code aten::cat}'s inputs:
 * FunctionEvent gives {@code []}). The tree's trace holds both, so they are added from it ({@link OpInputs}).
 * A row with no tensor input recorded at all (a factory such as {@code aten::zeros}, a compiled graph's call)
 * has no bytes to floor it by: its bytes are unknown, not 0, and no ideal is made up for it.
 */
final class InputBytes {
    /** A row's input bytes per step and how they were found; {@code bytes} is {@link #UNKNOWN} when no tensor input was recorded. */
    record Row(long bytes, String note) {
        boolean known() { return bytes != UNKNOWN; }
    }

    static final long UNKNOWN = -1;
    static final String UNKNOWN_NOTE = "bytes unknown: the profile recorded no tensor inputs";

    private final Map<String, OpInputs> leftOut;
    private final Optional<DType> listDtype;

    private InputBytes(Map<String, OpInputs> leftOut, Optional<DType> listDtype) {
        this.leftOut = leftOut;
        this.listDtype = listDtype;
    }

    /** The tree's own trace read for what its rows' shapes left out; a trace that is gone adds nothing. */
    static InputBytes of(ModelProfile.TreeProfile tree) {
        Map<String, OpInputs> leftOut = new LinkedHashMap<>();
        if (!tree.trace().isEmpty() && Files.isRegularFile(Path.of(tree.trace()))) {
            for (OpInputs o : TraceReader.read(Path.of(tree.trace())).opInputs()) if (o.leftOut()) leftOut.put(o.key(), o);
        }
        return new InputBytes(leftOut, commonestDtype(tree.rows()));
    }

    /** The dtype most calls of the profile ran in: what a tensor list's elements are taken to be (the trace does not record theirs). */
    static Optional<DType> commonestDtype(List<ModelProfile.SourceRow> rows) {
        Map<DType, Integer> calls = new LinkedHashMap<>();
        for (ModelProfile.SourceRow r : rows) {
            try {
                if (!r.dtype().isEmpty()) calls.merge(DType.parse(r.dtype()), r.calls(), Integer::sum);
            } catch (IllegalArgumentException notADtype) {
                // "TensorList" and the like: not an element type
            }
        }
        return calls.entrySet().stream().max(Map.Entry.comparingByValue()).map(Map.Entry::getKey);
    }

    Row of(ModelProfile.SourceRow r) {
        if (r.kind() == OpKind.OVERHEAD) return new Row(0, "");
        OpInputs o = leftOut.get(OpInputs.key(r.op(), r.shapes()));
        if (o == null) return recordsTensors(r.shapes()) ? new Row(r.bytes(), "") : new Row(UNKNOWN, UNKNOWN_NOTE);
        if (o.listElements() > 0 && listDtype.isEmpty()) return new Row(UNKNOWN, "bytes unknown: its tensor lists' dtype is not recorded");
        double perCall = o.zeroDimBytesPerCall() + o.listElementsPerCall() * listDtype.map(DType::bytes).orElse(0);
        List<String> from = new java.util.ArrayList<>();
        if (o.zeroDimBytes() > 0) from.add("0-dim tensor inputs");
        if (o.listElements() > 0) from.add("tensor lists (taken as " + listDtype.orElseThrow().id() + ", the profile's commonest dtype)");
        String note = "with its " + from.stream().collect(Collectors.joining(" and ")) + " from the trace"
                + (o.uniform() ? "" : " (a mean: the trace's " + o.calls() + " calls with these shapes differ)");
        return new Row(r.bytes() + Math.round(perCall * r.calls()), note);
    }

    /** Whether FunctionEvent's shapes hold a tensor's dims: {@code [[0, 64], []]} does (an empty tensor: 0 bytes, known), {@code [[], []]} does not. */
    static boolean recordsTensors(String shapes) { return shapes.matches(".*\\[\\d.*"); }
}
