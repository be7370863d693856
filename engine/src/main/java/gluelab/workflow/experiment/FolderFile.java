package gluelab.workflow.experiment;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.JsonNode;
import gluelab.files.Json;

import java.io.IOException;
import java.nio.file.Path;
import java.util.function.Predicate;

/** Reads one JSON file of an experiment folder; every error names the file, and the field or line. */
final class FolderFile {
    private final Path file;
    private final JsonNode tree;

    private FolderFile(Path file, JsonNode tree) {
        this.file = file;
        this.tree = tree;
    }

    static FolderFile read(Path file) {
        JsonNode tree;
        try {
            tree = Json.MAPPER.readTree(file.toFile());
        } catch (JsonProcessingException e) {
            var loc = e.getLocation();
            throw new IllegalArgumentException("corrupt " + file + (loc != null ? " at line " + loc.getLineNr() + ", column " + loc.getColumnNr() : "")
                    + ": " + Json.problem(e), e);
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read " + file + ": " + e.getMessage(), e);
        }
        if (tree == null || !tree.isObject()) throw new IllegalArgumentException(file + " must hold a JSON object");
        return new FolderFile(file, tree);
    }

    /** Whether {@code field} (dotted: {@code subject.inputs}) is there and not null. */
    boolean has(String field) {
        JsonNode v = at(field);
        return v != null && !v.isNull();
    }

    /** As {@link #require}, for a field that may be left out or null. */
    FolderFile optional(String field, Predicate<JsonNode> ok, String what) { return has(field) ? require(field, ok, what) : this; }

    private JsonNode at(String field) {
        JsonNode v = tree;
        for (String part : field.split("\\.")) v = v == null || !v.isObject() ? null : v.get(part);
        return v;
    }

    FolderFile require(String field, Predicate<JsonNode> ok, String what) {
        JsonNode v = at(field);
        if (v == null || v.isNull()) throw new IllegalArgumentException(file + ": field \"" + field + "\" is " + (v == null ? "missing" : "null"));
        if (!ok.test(v)) {
            String got = v.toString();
            throw new IllegalArgumentException(file + ": field \"" + field + "\" must be " + what + ", got " + (got.length() > 60 ? got.substring(0, 57) + "..." : got));
        }
        return this;
    }

    /** {@code field}'s value given to {@code check}, whose error is said as this file's field's. */
    FolderFile check(String field, java.util.function.Consumer<JsonNode> check) {
        try {
            check.accept(at(field));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(file + ": field \"" + field + "\": " + e.getMessage(), e);
        }
        return this;
    }

    <T> T as(Class<T> type) {
        try {
            return Json.MAPPER.treeToValue(tree, type);
        } catch (JsonProcessingException e) {
            String field = e instanceof JsonMappingException m ? Json.fieldPath(m) : "";
            throw new IllegalArgumentException(file + (field.isEmpty() ? "" : ": field \"" + field + "\"") + ": " + Json.problem(e), e);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(file + ": " + e.getMessage(), e);
        }
    }
}
