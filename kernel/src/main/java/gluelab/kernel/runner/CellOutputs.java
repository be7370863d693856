package gluelab.kernel.runner;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import gluelab.kernel.display.ErrorText;
import org.dflib.jjava.jupyter.kernel.display.DisplayData;
import org.dflib.jjava.jupyter.kernel.display.mime.MIMEType;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

/** The nbformat outputs of an executed cell: streams, displays, results, errors, and the mark of a stopped cell. */
final class CellOutputs {
    private CellOutputs() {}

    static void data(ObjectNode output, DisplayData d) {
        ObjectNode data = output.putObject("data");
        for (MIMEType t : NotebookRunner.TYPES) {
            if (!d.hasDataForType(t)) continue;
            data.put(t.toString(), String.valueOf(d.getData(t)));
        }
        output.putObject("metadata");
    }

    static void stream(ArrayNode outputs, String name, ByteArrayOutputStream bytes) {
        String text = bytes.toString(StandardCharsets.UTF_8);
        if (!text.isEmpty()) outputs.addObject().put("output_type", "stream").put("name", name).put("text", text);
    }

    static void error(ArrayNode outputs, Throwable failure) {
        ObjectNode e = outputs.addObject().put("output_type", "error").put("ename", ErrorText.name(failure)).put("evalue", ErrorText.message(failure));
        ArrayNode tb = e.putArray("traceback");
        ErrorText.lines(failure).forEach(tb::add);
    }

    static String oneLine(Throwable failure) { return ErrorText.name(failure) + ": " + ErrorText.message(failure); }

    /** Marks a cell the run stopped in (timeout, signal, exit): an error output and {@code metadata.gluelab.status = "stopped"}. */
    static void stopped(ObjectNode cell, String reason) {
        ArrayNode outputs = cell.has("outputs") && cell.get("outputs").isArray() ? (ArrayNode) cell.get("outputs") : cell.putArray("outputs");
        outputs.addObject().put("output_type", "error").put("ename", "CellStopped").put("evalue", reason).putArray("traceback").add("CellStopped: " + reason);
        cell.with("metadata").with("gluelab").put("status", "stopped").put("reason", reason);
    }
}
