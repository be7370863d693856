package gluelab.kernel.channel;

import com.google.gson.Gson;
import com.google.gson.JsonElement;
import com.google.gson.JsonParser;
import com.google.gson.reflect.TypeToken;
import org.dflib.jjava.jupyter.channels.JupyterSocket;
import org.dflib.jjava.jupyter.messages.HMACGenerator;
import org.dflib.jjava.jupyter.messages.Header;
import org.dflib.jjava.jupyter.messages.Message;
import org.dflib.jjava.jupyter.messages.MessageType;

import java.lang.reflect.Field;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * One ZeroMQ message of the Jupyter wire protocol, read from the frames of exactly one multipart
 * message: {@code identities..., <IDS|MSG>, signature, header, parent_header, metadata, content, buffers...}.
 * jjava's reader pulls frames one by one until it finds the delimiter, so a message missing it (or
 * its last frames) swallows the next client's request; here a message is judged on its own frames.
 */
public sealed interface WireMessage {
    byte[] DELIMITER = "<IDS|MSG>".getBytes(StandardCharsets.US_ASCII);

    /** A signed message with a readable header and content. */
    record Request(Message<?> message) implements WireMessage {}

    /** Not a Jupyter message, or not signed with the session's key: dropped without a reply. */
    record Malformed(String why) implements WireMessage {}

    /**
     * A correctly signed request whose content cannot be read (for example a history_request with an
     * unknown hist_access_type): answered with an error reply, since its sender waits for one.
     */
    record BadContent(Message<?> context, MessageType<?> replyType, String why) implements WireMessage {}

    static WireMessage parse(List<byte[]> frames, HMACGenerator hmac) {
        int delimiter = -1;
        for (int i = 0; i < frames.size(); i++) {
            if (Arrays.equals(DELIMITER, frames.get(i))) {
                delimiter = i;
                break;
            }
        }
        if (delimiter < 0) return new Malformed("no <IDS|MSG> delimiter in " + frames.size() + " frame(s)");
        int parts = frames.size() - delimiter - 1;
        if (parts < 5) return new Malformed("only " + parts + " of the 5 frames after <IDS|MSG> (signature, header, parent_header, metadata, content)");
        List<byte[]> identities = frames.subList(0, delimiter);
        byte[] signature = frames.get(delimiter + 1);
        byte[] header = frames.get(delimiter + 2), parent = frames.get(delimiter + 3), metadata = frames.get(delimiter + 4), content = frames.get(delimiter + 5);
        String expected = hmac.calculateSignature(header, parent, metadata, content);
        if (expected != null && !MessageDigest.isEqual(expected.getBytes(StandardCharsets.US_ASCII), signature)) {
            return new Malformed("a missing or invalid signature");
        }
        Header<?> h;
        Header<?> parentHeader = null;
        Map<String, Object> meta;
        try {
            h = GSON.fromJson(utf8(header), Header.class);
            if (h == null || h.getType() == null || h.getId() == null) return new Malformed("a header without msg_id or msg_type");
            JsonElement p = JsonParser.parseString(utf8(parent));
            if (p.isJsonObject() && !p.getAsJsonObject().isEmpty()) parentHeader = GSON.fromJson(p, Header.class);
            meta = GSON.fromJson(utf8(metadata), METADATA);
        } catch (RuntimeException e) {
            return new Malformed("an unreadable header, parent_header or metadata (" + oneLine(e) + ")");
        }
        List<byte[]> blobs = new ArrayList<>(frames.subList(delimiter + 6, frames.size()));
        try {
            String refused = refusedContent(h.getType().getName(), JsonParser.parseString(utf8(content)));
            if (refused != null) throw new IllegalArgumentException(refused);
            Object body = GSON.fromJson(utf8(content), h.getType().getContentType());
            if (body == null) throw new IllegalArgumentException("the content is null");
            @SuppressWarnings({"unchecked", "rawtypes"})
            Message<?> m = new Message(new ArrayList<>(identities), h, parentHeader, meta, body, blobs);
            return new Request(m);
        } catch (RuntimeException e) {
            @SuppressWarnings({"unchecked", "rawtypes"})
            Message<?> context = new Message(new ArrayList<>(identities), h, parentHeader, meta, null, blobs);
            String name = h.getType().getName();
            MessageType<?> reply = name.endsWith("_request") ? MessageType.getType(name.substring(0, name.length() - "_request".length()) + "_reply") : MessageType.UNKNOWN;
            return new BadContent(context, reply == MessageType.UNKNOWN ? null : reply, name + ": " + (e instanceof IllegalArgumentException ? e.getMessage() : "unreadable content (" + oneLine(e) + ")"));
        }
    }

    /** Why a request's content cannot be served (a field jjava would read as null and fail on later), or null. */
    static String refusedContent(String type, JsonElement content) {
        if (!content.isJsonObject()) return "the content is not a JSON object";
        var o = content.getAsJsonObject();
        return switch (type) {
            case "execute_request" -> o.has("code") && o.get("code").isJsonPrimitive() && o.get("code").getAsJsonPrimitive().isString() ? null
                    : "the field code must be a string, not " + (o.has("code") ? o.get("code").toString() : "missing");
            case "history_request" -> {
                JsonElement a = o.get("hist_access_type");
                String v = a != null && a.isJsonPrimitive() ? a.getAsString() : null;
                yield v != null && List.of("tail", "range", "search").contains(v) ? null
                        : "the field hist_access_type must be tail, range or search, not " + (a == null ? "missing" : a.toString());
            }
            default -> null;
        };
    }

    private static String utf8(byte[] b) { return new String(b, StandardCharsets.UTF_8); }

    private static String oneLine(Throwable e) {
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) root = root.getCause();
        String m = root.getMessage() == null ? root.getClass().getSimpleName() : root.getMessage();
        m = m.lines().findFirst().orElse("");
        return m.length() > 200 ? m.substring(0, 200) + "..." : m;
    }

    java.lang.reflect.Type METADATA = new TypeToken<Map<String, Object>>() {}.getType();

    /** jjava's Gson with its adapters for headers, message types and history requests (private in JupyterSocket). */
    Gson GSON = JjavaGson.get();

    final class JjavaGson {
        private JjavaGson() {}

        static Gson get() {
            try {
                Field f = JupyterSocket.class.getDeclaredField("gson");
                f.setAccessible(true);
                return (Gson) f.get(null);
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException("jjava's JupyterSocket has no gson field: the kernel needs jjava 1.0-a6", e);
            }
        }
    }
}
