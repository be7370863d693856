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

    /**
     * What is wrong in a file Jackson could not read, in words for the person who has to mend it: {@code the file ends early
     * (truncated?)}, {@code expected a list, got a number}; the caller names the file and {@link #fieldPath the field}. A check
     * of gluelab's own that refused a value (a record's constructor) keeps its message.
     */
    public static String problem(com.fasterxml.jackson.core.JsonProcessingException e) {
        Throwable cause = e.getCause();
        if (cause instanceof IllegalArgumentException || cause instanceof IllegalStateException) return cause.getMessage();
        // A record's constructor that copies a list or reads a field fails on the null Jackson gives a field the file lacks.
        if (cause instanceof NullPointerException && e instanceof com.fasterxml.jackson.databind.exc.ValueInstantiationException v
                && v.getType() != null && v.getType().getRawClass().isRecord())
            return "a field it needs is missing or null (its fields: " + String.join(", ",
                    java.util.Arrays.stream(v.getType().getRawClass().getRecordComponents()).map(java.lang.reflect.RecordComponent::getName).toList()) + ")";
        // Jackson says "Unexpected end-of-input" both ways: as a JsonEOFException and, between an object's entries, as a plain parse error.
        if (e instanceof com.fasterxml.jackson.core.io.JsonEOFException || String.valueOf(e.getOriginalMessage()).startsWith("Unexpected end-of-input"))
            return "the file ends early (truncated?)";
        if (e instanceof com.fasterxml.jackson.databind.exc.MismatchedInputException m && m.getTargetType() != null) {
            String expected = expected(m.getTargetType()), got = got(e);
            if (expected != null && got != null) return "expected " + expected + ", got " + got;
        }
        if (e instanceof com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException u) return "unknown field \"" + u.getPropertyName() + "\"";
        // Jackson's own words, less the parser's source description and the Java type names.
        String m = String.valueOf(e.getOriginalMessage());
        int source = m.indexOf(" (start marker at [Source");
        if (source < 0) source = m.indexOf(" at [Source");
        if (source >= 0) m = m.substring(0, source);
        return (e instanceof com.fasterxml.jackson.core.JsonParseException ? "not valid JSON: " : "") + m.replaceAll("`?(java\\.[a-z.]+|gluelab\\.[a-zA-Z.$]+)\\.([A-Z][A-Za-z]*)[^`\\s]*`?", "$2");
    }

    /** The kind of value {@code type} reads, as a person says it. */
    static String expected(Class<?> type) {
        if (type.isArray()) return type.getComponentType().isPrimitive() && type.getComponentType() != boolean.class ? "a list of numbers" : "a list";
        if (java.util.Collection.class.isAssignableFrom(type)) return "a list";
        if (java.util.Map.class.isAssignableFrom(type)) return "an object";
        if (CharSequence.class.isAssignableFrom(type) || type == char.class || type == Character.class) return "a string";
        if (type == boolean.class || type == Boolean.class) return "true or false";
        if (type == int.class || type == long.class || type == short.class || type == Integer.class || type == Long.class || type == Short.class)
            return "a whole number";
        if (type.isPrimitive() || Number.class.isAssignableFrom(type)) return "a number";
        if (type.isEnum()) return "one of " + java.util.Arrays.stream(type.getEnumConstants()).map(Object::toString).toList();
        if (type.getName().startsWith("java.")) return null;
        return "an object";
    }

    /** The kind of value the parser stood on when {@code e} was thrown, or null. */
    private static String got(com.fasterxml.jackson.core.JsonProcessingException e) {
        if (!(e.getProcessor() instanceof com.fasterxml.jackson.core.JsonParser p) || p.currentToken() == null) return null;
        return switch (p.currentToken()) {
            case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> "a number";
            case VALUE_STRING -> "a string";
            case VALUE_TRUE, VALUE_FALSE -> "true or false";
            case VALUE_NULL -> "null";
            case START_ARRAY, END_ARRAY -> "a list";
            case START_OBJECT, END_OBJECT, FIELD_NAME -> "an object";
            default -> null;
        };
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
