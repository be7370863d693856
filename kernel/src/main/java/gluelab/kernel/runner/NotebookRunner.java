package gluelab.kernel.runner;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import gluelab.kernel.CellRunner;
import gluelab.kernel.Session;
import gluelab.kernel.display.Renderers;
import gluelab.kernel.eval.CompileError;
import gluelab.kernel.eval.Evaluator;
import gluelab.files.AtomicFiles;
import gluelab.files.Json;
import org.dflib.jjava.jupyter.kernel.display.DisplayData;
import org.dflib.jjava.jupyter.kernel.display.Renderer;
import org.dflib.jjava.jupyter.kernel.display.mime.MIMEType;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.*;

/**
 * Executes a notebook's code cells in order in a fresh evaluator and writes the executed notebook
 * (nbformat 4.5: outputs, execution counts, cell ids). A cell tagged "parameters" is followed by
 * an injected cell assigning the given values, as papermill does. Stops at the first failing cell,
 * still writing what ran, and says which notebook, cell and error.
 */
public final class NotebookRunner {
    /** The outcome of one notebook. */
    public record Result(Path notebook, Path executed, boolean ok, int failedCell, String error, int cells) {
        public String summary() {
            return ok ? "ok: " + notebook + " (" + cells + " code cells) -> " + executed
                    : "FAILED: " + notebook + ", cell " + failedCell + ": " + error + " (partial output in " + executed + ")";
        }
    }

    static final List<MIMEType> TYPES = List.of(MIMEType.TEXT_PLAIN, MIMEType.TEXT_HTML, MIMEType.TEXT_MARKDOWN, MIMEType.IMAGE_PNG,
            MIMEType.IMAGE_SVG, MIMEType.APPLICATION_JSON);

    private NotebookRunner() {}

    public static Result run(Path notebook, Path outDir, Map<String, String> parameters) {
        ObjectNode nb = read(notebook);
        ArrayNode cells = (ArrayNode) nb.withArray("cells");
        injectParameters(cells, parameters, notebook);
        Renderer renderer = new Renderer();
        Renderers.install(renderer);
        Session.reset();
        Path executed = outDir.resolve(notebook.getFileName());
        int count = 0, failed = -1;
        String error = null;
        PrintStream oldOut = System.out, oldErr = System.err;
        try (Evaluator evaluator = new Evaluator()) {
            CellRunner runner = new CellRunner(evaluator);
            for (int i = 0; i < cells.size(); i++) {
                ObjectNode cell = (ObjectNode) cells.get(i);
                if (!cell.hasNonNull("id")) cell.put("id", "cell-" + i);
                if (!"code".equals(cell.path("cell_type").asText())) continue;
                count++;
                ArrayNode outputs = cell.putArray("outputs");
                cell.put("execution_count", count);
                ByteArrayOutputStream out = new ByteArrayOutputStream(), err = new ByteArrayOutputStream();
                List<DisplayData> displays = new ArrayList<>();
                Session.displaySink(o -> displays.add(Renderers.render(renderer, o)));
                System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
                System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
                Object value = null;
                Exception failure = null;
                try {
                    value = runner.run(source(cell));
                } catch (Exception e) {
                    failure = e;
                } finally {
                    System.setOut(oldOut);
                    System.setErr(oldErr);
                }
                stream(outputs, "stdout", out);
                stream(outputs, "stderr", err);
                for (DisplayData d : displays) data(outputs.addObject().put("output_type", "display_data"), d);
                if (failure != null) {
                    ObjectNode e = outputs.addObject().put("output_type", "error").put("ename", failure.getClass().getSimpleName())
                            .put("evalue", String.valueOf(failure.getMessage()));
                    ArrayNode tb = e.putArray("traceback");
                    traceback(failure).forEach(tb::add);
                    failed = i;
                    error = failure.getClass().getSimpleName() + ": " + failure.getMessage();
                    break;
                }
                if (value != null) {
                    ObjectNode r = outputs.addObject().put("output_type", "execute_result").put("execution_count", count);
                    data(r, Renderers.render(renderer, value));
                }
            }
        } finally {
            System.setOut(oldOut);
            System.setErr(oldErr);
            Session.displaySink(null);
            Session.reset();
        }
        nb.put("nbformat", 4).put("nbformat_minor", 5);
        ObjectNode meta = nb.with("metadata");
        meta.putObject("kernelspec").put("name", "gluelab").put("display_name", "Java (gluelab)").put("language", "java");
        meta.putObject("language_info").put("name", "java").put("version", Runtime.version().toString()).put("file_extension", ".jshell");
        AtomicFiles.write(executed, Json.write(nb));
        return new Result(notebook, executed, failed < 0, failed, error, count);
    }

    private static ObjectNode read(Path notebook) {
        try {
            JsonNode n = Json.MAPPER.readTree(Files.readString(notebook));
            if (!(n instanceof ObjectNode o) || !o.path("cells").isArray()) throw new IllegalArgumentException(notebook + " is not a Jupyter notebook (no cells array)");
            return o;
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read notebook " + notebook + ": " + e.getMessage(), e);
        }
    }

    static String source(JsonNode cell) {
        JsonNode s = cell.path("source");
        if (s.isArray()) {
            StringBuilder sb = new StringBuilder();
            s.forEach(x -> sb.append(x.asText()));
            return sb.toString();
        }
        return s.asText();
    }

    private static void injectParameters(ArrayNode cells, Map<String, String> parameters, Path notebook) {
        if (parameters.isEmpty()) return;
        int at = -1;
        for (int i = 0; i < cells.size(); i++) {
            for (JsonNode tag : cells.get(i).path("metadata").path("tags")) if (tag.asText().equals("parameters")) at = i;
        }
        if (at < 0) throw new IllegalArgumentException(notebook + " has no cell tagged 'parameters' to inject " + parameters.keySet() + " after");
        StringBuilder src = new StringBuilder("// Injected parameters\n");
        parameters.forEach((k, v) -> {
            if (!k.matches("[A-Za-z_][A-Za-z0-9_]*")) throw new IllegalArgumentException("parameter name '" + k + "' is not a Java identifier");
            src.append(k).append(" = ").append(literal(v)).append(";\n");
        });
        ObjectNode cell = Json.MAPPER.createObjectNode();
        cell.put("cell_type", "code").put("id", "injected-parameters");
        cell.putObject("metadata").putArray("tags").add("injected-parameters");
        cell.put("source", src.toString());
        cell.putArray("outputs");
        cells.insert(at + 1, cell);
    }

    static String literal(String v) {
        if (v.matches("-?\\d+") || v.matches("-?\\d*\\.\\d+([eE][-+]?\\d+)?") || v.equals("true") || v.equals("false")) return v;
        return "\"" + v.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    }

    private static void data(ObjectNode output, DisplayData d) {
        ObjectNode data = output.putObject("data");
        for (MIMEType t : TYPES) {
            if (!d.hasDataForType(t)) continue;
            Object v = d.getData(t);
            data.put(t.toString(), String.valueOf(v));
        }
        output.putObject("metadata");
    }

    private static void stream(ArrayNode outputs, String name, ByteArrayOutputStream bytes) {
        String text = bytes.toString(StandardCharsets.UTF_8);
        if (!text.isEmpty()) outputs.addObject().put("output_type", "stream").put("name", name).put("text", text);
    }

    static List<String> traceback(Exception e) {
        if (e instanceof CompileError || e instanceof IllegalArgumentException) return e.getMessage().lines().toList();
        StringWriter w = new StringWriter();
        e.printStackTrace(new PrintWriter(w));
        return w.toString().lines().limit(30).toList();
    }
}
