package gluelab.kernel.channel;

import com.fasterxml.jackson.databind.JsonNode;
import gluelab.files.Json;
import org.dflib.jjava.jupyter.kernel.KernelConnectionProperties;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;

/** Reads the connection file Jupyter hands the kernel; every error names the file and the field. */
public final class ConnectionFile {
    static final List<String> PORTS = List.of("shell_port", "iopub_port", "stdin_port", "control_port", "hb_port");
    static final Set<String> TRANSPORTS = Set.of("tcp", "ipc");

    private ConnectionFile() {}

    public static KernelConnectionProperties read(Path file) {
        if (!Files.isRegularFile(file)) throw new IllegalArgumentException("no connection file at " + file);
        JsonNode n;
        try {
            n = Json.MAPPER.readTree(Files.readString(file));
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalArgumentException("connection file " + file + " is not valid JSON: " + e.getOriginalMessage(), e);
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read connection file " + file + ": " + e.getMessage(), e);
        }
        if (n == null || !n.isObject()) throw new IllegalArgumentException("connection file " + file + " is not a JSON object");
        int[] ports = new int[PORTS.size()];
        for (int i = 0; i < PORTS.size(); i++) {
            JsonNode p = n.get(PORTS.get(i));
            if (p == null) throw bad(file, PORTS.get(i), "is missing");
            if (!p.canConvertToInt() || !p.isIntegralNumber() && !p.asText().matches("\\d+") || p.asInt() < 0 || p.asInt() > 65535) {
                throw bad(file, PORTS.get(i), "is not a port number (0-65535): " + p);
            }
            ports[i] = p.asInt();
        }
        List<String> zero = new java.util.ArrayList<>();
        for (int i = 0; i < PORTS.size(); i++) if (ports[i] == 0) zero.add(PORTS.get(i));
        if (!zero.isEmpty() && !"ipc".equals(n.path("transport").asText("tcp"))) {
            throw new IllegalArgumentException("connection file " + file + ": " + String.join(", ", zero) + (zero.size() == 1 ? " is" : " are")
                    + " 0: the kernel would listen on a port no client is told about; give every port (Jupyter writes the ports it chose)");
        }
        String transport = text(n, "transport", "tcp", file);
        if (!TRANSPORTS.contains(transport)) throw bad(file, "transport", "must be one of " + TRANSPORTS + ", not '" + transport + "'");
        String ip = text(n, "ip", null, file);
        String scheme = text(n, "signature_scheme", "hmac-sha256", file);
        if (!scheme.isEmpty() && !scheme.matches("hmac-sha(1|224|256|384|512)")) throw bad(file, "signature_scheme", "is not an HMAC scheme Jupyter uses: '" + scheme + "'");
        String key = text(n, "key", "", file);
        // jjava's constructor takes the ports as control, shell, stdin, hb, iopub.
        return new KernelConnectionProperties(ip, ports[3], ports[0], ports[2], ports[4], ports[1], transport, scheme, key);
    }

    /**
     * The loud warning for a connection file without a key (missing or ""): then nothing is signed,
     * and anyone who can reach the ports can run code as this user. Empty when there is a key.
     */
    public static java.util.Optional<String> unsignedWarning(Path file, KernelConnectionProperties props) {
        if (props.getKey() != null && !props.getKey().isEmpty()) return java.util.Optional.empty();
        return java.util.Optional.of("WARNING: connection file " + file + " has no key: messages are not signed, so anyone who can reach its ports on "
                + props.getIp() + " can run code as this user. Start the kernel from Jupyter (it writes a random key), or put a key in the file.");
    }

    private static String text(JsonNode n, String field, String fallback, Path file) {
        JsonNode v = n.get(field);
        if (v == null || v.isNull()) {
            if (fallback == null) throw bad(file, field, "is missing");
            return fallback;
        }
        if (!v.isTextual()) throw bad(file, field, "must be a string, not " + v);
        return v.asText();
    }

    private static IllegalArgumentException bad(Path file, String field, String what) {
        return new IllegalArgumentException("connection file " + file + ": field '" + field + "' " + what);
    }
}
