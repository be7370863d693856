package gluelab.trace;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;

import java.io.*;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.*;
import java.util.zip.GZIPInputStream;
import java.util.zip.ZipException;

/**
 * Streams a Chrome trace ({@code export_chrome_trace}, .json or .json.gz) event by event with
 * Jackson's token parser into running totals ({@link TraceTotals}): memory grows with the distinct
 * kernels, ops and steps, not with the file's size or its launches. Structure
 * errors (invalid JSON, a truncated gzip) fail with the file and position; problems confined to an
 * event are counted as warnings and the event is left out, so totals are never silently wrong.
 */
public final class TraceReader {
    // Timestamps are long decimals (5081484295911.473): the fast double parser halves their cost.
    private static final JsonFactory JSON = JsonFactory.builder()
            .enable(com.fasterxml.jackson.core.StreamReadFeature.USE_FAST_DOUBLE_PARSER)
            .build();

    /** A day in microseconds: no profiled event lasts longer; 1e308 or an overflowed number is damage. */
    static final double MAX_DURATION_US = 86_400e6;
    /** Timestamps are microseconds since an epoch or a boot: beyond this (3000 years) they are damage. */
    static final double MAX_TIMESTAMP_US = 1e17;

    private final Path file;
    private final NameTable names = new NameTable();
    private final TraceTotals totals = new TraceTotals();
    private final Map<String, Integer> unknown = new TreeMap<>();
    private final Map<String, Map<String, String>> unknownKeys = new HashMap<>();
    private final Map<String, Integer> warnings = new TreeMap<>();
    private final Map<String, String> examples = new TreeMap<>();
    private final Map<Long, int[]> shapes = new HashMap<>();
    private final SeenKernels seenKernels = new SeenKernels();
    private boolean backward;
    private String device = "";
    private boolean recordShapes;
    private long eventIndex;

    private TraceReader(Path file) { this.file = file; }

    public static Trace read(Path file) {
        if (!Files.exists(file)) throw new TraceException("no trace file at " + file);
        try {
            gluelab.files.TextInput.requireRegular(file, "trace");
        } catch (IllegalArgumentException e) {
            throw new TraceException(e.getMessage());
        }
        return new TraceReader(file).parse();
    }

    private Trace parse() {
        CountingInputStream counted;
        try (InputStream raw = new BufferedInputStream(Files.newInputStream(file), 1 << 16)) {
            raw.mark(2);
            boolean gz = raw.read() == 0x1f && raw.read() == 0x8b;
            raw.reset();
            counted = new CountingInputStream(gz ? new GZIPInputStream(raw, 1 << 16) : raw);
            try (JsonParser p = JSON.createParser(counted)) {
                JsonToken first = p.nextToken();
                if (first == JsonToken.START_ARRAY) {
                    readEvents(p);
                } else if (first == JsonToken.START_OBJECT) {
                    readTopLevel(p);
                } else {
                    throw new TraceException(file + ": not a Chrome trace (expected a JSON object or array at the start)");
                }
                if (p.nextToken() != null) {
                    throw new TraceException(file + ": more JSON after the trace ends, at " + where(p.currentTokenLocation())
                            + " (two traces appended, or two gzip members?); give each trace on its own");
                }
            }
        } catch (JsonParseException e) {
            if (e.getProcessor() instanceof JsonParser p && p.getParsingContext() != null && p.getParsingContext().inRoot() && eventIndex > 0)
                throw new TraceException(file + ": text after the trace ends, at " + where(e.getLocation()) + ": " + e.getOriginalMessage(), e);
            throw new TraceException(file + ": invalid JSON at " + where(e.getLocation()) + ": " + e.getOriginalMessage(), e);
        } catch (EOFException | ZipException e) {
            throw new TraceException(file + ": truncated or corrupt gzip data (" + e.getMessage() + ") after " + eventIndex + " events", e);
        } catch (IOException e) {
            String m = String.valueOf(e.getMessage());
            if (m.contains("end-of-input") || m.contains("Unexpected end")) {
                throw new TraceException(file + ": the trace ends early, after " + eventIndex + " events (" + m.lines().findFirst().orElse(m) + ")", e);
            }
            throw new TraceException(file + ": cannot read: " + m, e);
        }
        return totals.finish(file, counted.count, device, recordShapes, backward, unknown, warnings, examples);
    }

    private static String where(JsonLocation loc) {
        return loc == null ? "an unknown position" : "line " + loc.getLineNr() + ", column " + loc.getColumnNr() + " (byte " + loc.getByteOffset() + " of the JSON)";
    }

    private void readTopLevel(JsonParser p) throws IOException {
        boolean sawEvents = false;
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String field = p.currentName();
            JsonToken t = p.nextToken();
            switch (field) {
                case "traceEvents" -> {
                    if (t != JsonToken.START_ARRAY) throw new TraceException(file + ": \"traceEvents\" is not an array at " + where(p.currentLocation()));
                    readEvents(p);
                    sawEvents = true;
                }
                case "record_shapes" -> recordShapes = t == JsonToken.VALUE_TRUE || (t == JsonToken.VALUE_NUMBER_INT && p.getIntValue() != 0);
                case "deviceProperties" -> readDevice(p);
                default -> p.skipChildren();
            }
        }
        if (!sawEvents) throw new TraceException(file + ": no \"traceEvents\" array: not a PyTorch/Chrome trace");
    }

    private void readDevice(JsonParser p) throws IOException {
        if (p.currentToken() != JsonToken.START_ARRAY) {
            p.skipChildren();
            return;
        }
        while (p.nextToken() != JsonToken.END_ARRAY) {
            if (p.currentToken() != JsonToken.START_OBJECT) {
                p.skipChildren();
                continue;
            }
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String f = p.currentName();
                p.nextToken();
                if (f.equals("name") && device.isEmpty()) device = p.getValueAsString("");
                else p.skipChildren();
            }
        }
    }

    /** One event's fields, reused between events to keep allocation low. */
    private static final class Raw {
        String ph, cat, name;
        double ts = Double.NaN, dur = Double.NaN;
        long tid;
        long externalId = -1;
        int registers = -1;
        int[] grid, block;
        List<long[]> dims;
        List<List<long[]>> lists;
        List<String> types, concrete;

        void reset() {
            ph = cat = name = null;
            ts = dur = Double.NaN;
            tid = 0;
            externalId = -1;
            registers = -1;
            grid = block = null;
            dims = null;
            lists = null;
            types = concrete = null;
        }
    }

    private void readEvents(JsonParser p) throws IOException {
        Raw e = new Raw();
        JsonToken t;
        while ((t = p.nextToken()) != JsonToken.END_ARRAY) {
            if (t == null) throw new TraceException(file + ": the trace ends early, after " + eventIndex + " events (the traceEvents array is not closed)");
            eventIndex++;
            if (t != JsonToken.START_OBJECT) {
                warn("event is not a JSON object", p.currentLocation(), null, "");
                p.skipChildren();
                continue;
            }
            e.reset();
            JsonLocation start = p.currentLocation();
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String f = p.currentName();
                JsonToken v = p.nextToken();
                switch (f) {
                    case "ph" -> e.ph = interned(p, v);
                    case "cat" -> e.cat = interned(p, v);
                    case "name" -> e.name = interned(p, v);
                    case "ts" -> e.ts = number(p, v);
                    case "dur" -> e.dur = number(p, v);
                    case "tid" -> e.tid = v.isNumeric() ? p.getValueAsLong() : String.valueOf(text(p, v)).hashCode();
                    case "args" -> readArgs(p, v, e);
                    default -> p.skipChildren();
                }
            }
            accept(e, start);
        }
    }

    private String interned(JsonParser p, JsonToken v) throws IOException {
        if (v == JsonToken.VALUE_STRING) return names.intern(p.getTextCharacters(), p.getTextOffset(), p.getTextLength());
        return text(p, v);
    }

    private static String text(JsonParser p, JsonToken v) throws IOException {
        if (v == JsonToken.VALUE_STRING) return p.getText();
        if (v.isScalarValue()) return p.getValueAsString();
        p.skipChildren();
        return null;
    }

    private static double number(JsonParser p, JsonToken v) throws IOException {
        if (v == JsonToken.VALUE_NUMBER_INT || v == JsonToken.VALUE_NUMBER_FLOAT) return p.getDoubleValue();
        if (v == JsonToken.VALUE_STRING) {
            try {
                return Double.parseDouble(p.getText());
            } catch (NumberFormatException ex) {
                return Double.NaN;
            }
        }
        p.skipChildren();
        return Double.NaN;
    }

    private static long integer(JsonParser p, JsonToken v) throws IOException {
        double d = number(p, v);
        return Double.isNaN(d) ? -1 : (long) d;
    }

    private void readArgs(JsonParser p, JsonToken v, Raw e) throws IOException {
        if (v != JsonToken.START_OBJECT) {
            p.skipChildren();
            return;
        }
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String f = p.currentName();
            JsonToken a = p.nextToken();
            switch (f) {
                case "External id" -> e.externalId = integer(p, a);
                case "registers per thread" -> e.registers = (int) integer(p, a);
                case "grid" -> e.grid = ints(p, a);
                case "block" -> e.block = ints(p, a);
                case "Input Dims" -> readDims(p, a, e);
                case "Input type" -> e.types = strings(p, a);
                case "Concrete Inputs" -> e.concrete = strings(p, a);
                default -> p.skipChildren();
            }
        }
    }

    private static int[] ints(JsonParser p, JsonToken a) throws IOException {
        if (a != JsonToken.START_ARRAY) {
            p.skipChildren();
            return null;
        }
        int[] out = new int[3];
        int i = 0;
        while (p.nextToken() != JsonToken.END_ARRAY) {
            if (p.currentToken().isNumeric() && i < 3) out[i++] = p.getIntValue();
            else p.skipChildren();
        }
        return i == 0 ? null : out;
    }

    private static List<String> strings(JsonParser p, JsonToken a) throws IOException {
        if (a != JsonToken.START_ARRAY) {
            p.skipChildren();
            return null;
        }
        List<String> out = new ArrayList<>();
        while (p.nextToken() != JsonToken.END_ARRAY) {
            if (p.currentToken().isScalarValue()) out.add(p.getValueAsString(""));
            else {
                out.add("");
                p.skipChildren();
            }
        }
        return out;
    }

    /** Input Dims: a list with one entry per input: a dims list, or for tensor lists a list of dims lists. */
    private static void readDims(JsonParser p, JsonToken a, Raw e) throws IOException {
        if (a != JsonToken.START_ARRAY) {
            p.skipChildren();
            return;
        }
        e.dims = new ArrayList<>();
        e.lists = new ArrayList<>();
        while (p.nextToken() != JsonToken.END_ARRAY) {
            if (p.currentToken() != JsonToken.START_ARRAY) {
                p.skipChildren();
                e.dims.add(new long[0]);
                e.lists.add(null);
                continue;
            }
            List<Long> flat = new ArrayList<>();
            List<long[]> nested = null;
            while (p.nextToken() != JsonToken.END_ARRAY) {
                if (p.currentToken().isNumeric()) {
                    flat.add(p.getLongValue());
                } else if (p.currentToken() == JsonToken.START_ARRAY) {
                    if (nested == null) nested = new ArrayList<>();
                    List<Long> inner = new ArrayList<>();
                    while (p.nextToken() != JsonToken.END_ARRAY) {
                        if (p.currentToken().isNumeric()) inner.add(p.getLongValue());
                        else p.skipChildren();
                    }
                    nested.add(inner.stream().mapToLong(Long::longValue).toArray());
                } else {
                    p.skipChildren();
                }
            }
            e.dims.add(flat.stream().mapToLong(Long::longValue).toArray());
            e.lists.add(nested);
        }
    }

    /** Counts a warning; its example (where the event starts, and what was wrong) is built only the first time. */
    private void warn(String kind, JsonLocation start, Raw e, String detail) {
        warnings.merge(kind, 1, Integer::sum);
        if (!examples.containsKey(kind)) {
            examples.put(kind, "event " + eventIndex + " at " + where(start) + (e == null ? "" : " (" + e.name + detail + ")"));
        }
    }

    /**
     * Counts an event gluelab does not use, by phase and category ({@code ph} null: a complete event
     * of an unused category); each key string is built once, not per event.
     */
    private void unknownKind(String ph, String cat) {
        String c = cat == null ? "" : cat;
        String key = unknownKeys.computeIfAbsent(ph == null ? "" : ph, k -> new HashMap<>())
                .computeIfAbsent(c, k -> ph == null ? (c.isEmpty() ? "(no cat)" : c) : "ph=" + ph + (cat == null ? "" : " cat=" + cat));
        unknown.merge(key, 1, Integer::sum);
    }

    private void accept(Raw e, JsonLocation start) {
        if ("M".equals(e.ph) || "s".equals(e.ph) || "f".equals(e.ph) || "i".equals(e.ph) || "I".equals(e.ph)) {
            unknownKind(e.ph, e.cat);
            return;
        }
        String cat = e.cat == null ? "" : e.cat;
        boolean used = switch (cat) {
            case "kernel", "gpu_memcpy", "gpu_memset", "cuda_runtime", "cuda_driver", "cpu_op", "user_annotation", "gpu_user_annotation" -> true;
            default -> false;
        };
        boolean step = e.name != null && e.name.startsWith("ProfilerStep#");
        if (!used && !step) {
            unknownKind(null, cat);
            return;
        }
        if (e.name == null || e.name.isEmpty()) {
            warn("event without a name (left out)", start, null, "");
            return;
        }
        if (Double.isNaN(e.ts) || Double.isNaN(e.dur)) {
            warn("event without ts or dur (left out)", start, e, "");
            return;
        }
        if (e.dur < 0) {
            warn("event with a negative duration (left out)", start, e, ", dur " + e.dur);
            return;
        }
        if (e.dur > MAX_DURATION_US || !(Math.abs(e.ts) <= MAX_TIMESTAMP_US)) {
            warn("event with an impossible duration (over a day) or timestamp (left out)", start, e, ", ts " + e.ts + ", dur " + e.dur);
            return;
        }
        if (e.dur == 0 && (cat.equals("kernel") || cat.startsWith("gpu_mem"))) {
            warn("GPU event with zero duration (kept, adds 0 us)", start, e, "");
        }
        String name = e.name;
        if (step) {
            totals.step(new Events.Step(name, e.ts, e.dur));
            return;
        }
        switch (cat) {
            case "kernel" -> {
                if (!seenKernels.firstTime(name, e.ts, e.dur, e.externalId)) {
                    warn("kernel event repeated exactly: same name, ts, dur and External id (left out; two traces concatenated?)", start, e, ", ts " + e.ts);
                    return;
                }
                totals.kernel(name, e.ts, e.dur, e.externalId, canonical(e.grid), canonical(e.block), e.registers);
            }
            case "gpu_memcpy", "gpu_memset" -> totals.gpuMem(cat.equals("gpu_memset"), e.ts, e.dur);
            case "cuda_runtime", "cuda_driver" -> totals.apiCall(name, e.ts);
            case "cpu_op" -> {
                if (!backward && (name.contains("Backward") || name.startsWith("autograd::"))) backward = true;
                totals.cpuOpTime(name, e.tid, e.ts, e.dur);
                List<long[]> dims = e.dims == null ? List.of() : e.dims;
                if (dims.isEmpty()) return; // only shape floors read ops, and only those with shapes
                recordShapes = true;
                totals.cpuOp(new Events.CpuOp(name, e.ts, e.dur, e.externalId, dims, e.types == null ? List.of() : e.types,
                        e.concrete == null ? List.of() : e.concrete, e.lists == null ? List.of() : e.lists));
            }
            default -> unknownKind(null, cat);
        }
    }

    private static final int[] NO_DIMS = new int[0];

    /** One array per distinct grid or block: a million launches share a few dozen shapes. */
    private int[] canonical(int[] dims) {
        if (dims == null) return NO_DIMS;
        if (dims.length != 3 || dims[0] < 0 || dims[1] < 0 || dims[1] > 0xFFFF || dims[2] < 0 || dims[2] > 0xFFFF) return dims;
        long key = ((long) dims[0] << 32) | ((long) dims[1] << 16) | dims[2];
        return shapes.computeIfAbsent(key, k -> dims);
    }

    /** Counts the (decompressed) JSON bytes read, for parse-rate reporting. */
    private static final class CountingInputStream extends FilterInputStream {
        long count;

        CountingInputStream(InputStream in) { super(in); }

        @Override public int read() throws IOException {
            int b = super.read();
            if (b >= 0) count++;
            return b;
        }

        @Override public int read(byte[] b, int off, int len) throws IOException {
            int n = super.read(b, off, len);
            if (n > 0) count += n;
            return n;
        }
    }
}
