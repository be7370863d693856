package gluelab.files;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;

/** The one JSON mapper configuration used for records, caches and CLI output. */
public final class Json {
    /**
     * Strict where it reads: text after the JSON value and a key given twice in one object are errors
     * (a record with garbage appended, or {@code tokens} twice, was read as if it were whole), and so is a
     * fraction where a whole number belongs.
     */
    public static final ObjectMapper MAPPER = new ObjectMapper(com.fasterxml.jackson.core.JsonFactory.builder()
            .enable(com.fasterxml.jackson.core.StreamReadFeature.STRICT_DUPLICATE_DETECTION).build())
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            // 32768.7 tokens was read as 32768
            .disable(DeserializationFeature.ACCEPT_FLOAT_AS_INT)
            .enable(SerializationFeature.INDENT_OUTPUT)
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .disable(SerializationFeature.FAIL_ON_EMPTY_BEANS);

    private Json() {}

    public static String write(Object value) {
        try {
            return MAPPER.writeValueAsString(value);
        } catch (Exception e) {
            throw new IllegalStateException("cannot write JSON: " + e.getMessage(), e);
        }
    }

    /** Where a mapping error happened, as people write it: {@code changes[2].deltas[0].after}. */
    public static String fieldPath(com.fasterxml.jackson.databind.JsonMappingException e) {
        StringBuilder b = new StringBuilder();
        for (var r : e.getPath()) {
            if (r.getFieldName() != null) b.append(b.isEmpty() ? "" : ".").append(r.getFieldName());
            else if (r.getIndex() >= 0) b.append('[').append(r.getIndex()).append(']');
        }
        return b.toString();
    }
}
