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
                    + ": " + e.getOriginalMessage(), e);
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read " + file + ": " + e.getMessage(), e);
        }
        if (tree == null || !tree.isObject()) throw new IllegalArgumentException(file + " must hold a JSON object");
        return new FolderFile(file, tree);
    }

    FolderFile require(String field, Predicate<JsonNode> ok, String what) {
        JsonNode v = tree.get(field);
        if (v == null || v.isNull()) throw new IllegalArgumentException(file + ": field \"" + field + "\" is " + (v == null ? "missing" : "null"));
        if (!ok.test(v)) {
            String got = v.toString();
            throw new IllegalArgumentException(file + ": field \"" + field + "\" must be " + what + ", got " + (got.length() > 60 ? got.substring(0, 57) + "..." : got));
        }
        return this;
    }

    <T> T as(Class<T> type) {
        try {
            return Json.MAPPER.treeToValue(tree, type);
        } catch (JsonProcessingException e) {
            StringBuilder field = new StringBuilder();
            if (e instanceof JsonMappingException m) {
                for (var r : m.getPath()) {
                    if (r.getFieldName() != null) field.append(field.isEmpty() ? "" : ".").append(r.getFieldName());
                    else if (r.getIndex() >= 0) field.append('[').append(r.getIndex()).append(']');
                }
            }
            Throwable cause = e.getCause() != null ? e.getCause() : e;
            throw new IllegalArgumentException(file + (field.isEmpty() ? "" : ": field \"" + field + "\"") + ": "
                    + (cause == e ? e.getOriginalMessage() : cause.getMessage()), e);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(file + ": " + e.getMessage(), e);
        }
    }
}
