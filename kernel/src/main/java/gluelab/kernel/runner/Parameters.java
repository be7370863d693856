package gluelab.kernel.runner;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import gluelab.cli.OptionValues;
import gluelab.files.Json;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Parameters for a headless run, as papermill does them: the cell tagged {@code parameters}
 * declares them with their defaults; the given values go into one cell right after it, tagged
 * {@code injected-parameters} (an earlier injected cell is replaced, never stacked). Each value is
 * written as a literal of the type its declaration has, so {@code -p tokens=256} sets a
 * {@code String tokens} to {@code "256"} and an {@code int tokens} to {@code 256}.
 */
final class Parameters {
    static final String TAG = "parameters", INJECTED = "injected-parameters";

    /** {@code [final] TYPE NAME = INITIALIZER} at the start of a line. */
    private static final Pattern DECLARATION = Pattern.compile(
            "(?m)^\\s*(?:final\\s+)?([A-Za-z_][\\w.]*(?:<[^=;]*>)?(?:\\[\\])*)\\s+([A-Za-z_]\\w*)\\s*=\\s*([^;\\n]*)");

    private Parameters() {}

    /** Removes earlier injected cells and inserts one for {@code values}; nothing changes when there are none. */
    static void inject(ArrayNode cells, Map<String, String> values, Path notebook) {
        for (int i = cells.size() - 1; i >= 0; i--) if (isInjected(cells.get(i))) cells.remove(i);
        if (values.isEmpty()) return;
        int found = -1;
        for (int i = 0; i < cells.size(); i++) if (hasTag(cells.get(i), TAG)) found = i;
        final int at = found;
        if (at < 0) throw new IllegalArgumentException(notebook + " has no cell tagged 'parameters' to inject " + values.keySet() + " after");
        Map<String, String> types = declared(NotebookRunner.source(cells.get(at)));
        StringBuilder src = new StringBuilder("// Injected parameters\n");
        values.forEach((name, value) -> {
            if (!name.matches("[A-Za-z_][A-Za-z0-9_]*")) throw new IllegalArgumentException("parameter name '" + name + "' is not a Java identifier");
            String type = types.get(name);
            if (type == null) {
                throw new IllegalArgumentException("parameter '" + name + "' is not declared in the parameters cell (cell " + at + ") of " + notebook
                        + "; declared there: " + types.keySet());
            }
            String literal = literal(type, value, name);
            checkAsOption(name, value, notebook);
            src.append(name).append(" = ").append(literal).append(";\n");
        });
        ObjectNode cell = Json.MAPPER.createObjectNode();
        cell.put("cell_type", "code").put("id", INJECTED);
        cell.putObject("metadata").putArray("tags").add(INJECTED);
        cell.put("source", src.toString());
        cell.putArray("outputs");
        cells.insert(at + 1, cell);
    }

    /**
     * A parameter named like a CLI option (tokens, model, device, stopFraction, experiment, modelFile) is
     * checked as that option is, so a bad value fails here and not in a cell after the kernel started.
     */
    private static void checkAsOption(String name, String value, Path notebook) {
        try {
            OptionValues.check(name, unquoted(value.strip()));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("parameter '" + name + "' of " + notebook + ": " + e.getMessage(), e);
        }
    }

    /** The names the cell tagged {@code parameters} declares (empty when there is none). */
    static Set<String> declaredIn(ArrayNode cells) {
        Set<String> names = new LinkedHashSet<>();
        for (JsonNode c : cells) if (hasTag(c, TAG)) names.addAll(declared(NotebookRunner.source(c)).keySet());
        return names;
    }

    /** Name to declared type, in order; {@code var} is resolved from a literal initializer. */
    static Map<String, String> declared(String source) {
        Map<String, String> out = new LinkedHashMap<>();
        Matcher m = DECLARATION.matcher(source);
        while (m.find()) {
            String type = m.group(1);
            if (type.equals("var")) type = typeOfLiteral(m.group(3).strip());
            out.put(m.group(2), type);
        }
        return out;
    }

    /** The value as a Java literal of {@code type}; a value the type cannot take is an error naming the parameter. */
    static String literal(String type, String value, String name) {
        String v = unquoted(value.strip());
        try {
            return switch (type) {
                case "int", "Integer", "short", "Short", "byte", "Byte" -> Integer.toString(Integer.parseInt(v.replace("_", "")));
                case "long", "Long" -> Long.parseLong(v.replace("_", "")) + "L";
                case "double", "Double" -> Double.toString(finite(Double.parseDouble(v)));
                case "float", "Float" -> Float.toString((float) finite(Double.parseDouble(v))) + "f";
                case "boolean", "Boolean" -> switch (v) {
                    case "true", "false" -> v;
                    default -> throw new NumberFormatException();
                };
                case "String", "CharSequence", "java.lang.String" -> stringLiteral(v);
                default -> guessed(value.strip());
            };
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("parameter '" + name + "': '" + value + "' is not a " + type + " (its type in the parameters cell)");
        }
    }

    private static double finite(double d) {
        if (!Double.isFinite(d)) throw new NumberFormatException();
        return d;
    }

    /** A value quoted once more for the shell ({@code -p 'x="256"'}) means the text inside. */
    private static String unquoted(String v) {
        if (v.length() >= 2 && (v.startsWith("\"") && v.endsWith("\"") || v.startsWith("'") && v.endsWith("'"))) return v.substring(1, v.length() - 1);
        return v;
    }

    /** For a type not known here (a record, a list): a number or boolean as it is, a quoted value as a string, else the text as Java code. */
    private static String guessed(String v) {
        if (v.startsWith("\"") && v.endsWith("\"") && v.length() >= 2) return stringLiteral(v.substring(1, v.length() - 1));
        return v;
    }

    private static String typeOfLiteral(String init) {
        if (init.startsWith("\"")) return "String";
        if (init.matches("-?\\d+[lL]")) return "long";
        if (init.matches("-?\\d+")) return "int";
        if (init.matches("-?(\\d+\\.\\d*|\\.\\d+|\\d+)([eE][-+]?\\d+)?[fF]")) return "float";
        if (init.matches("-?(\\d+\\.\\d*|\\.\\d+|\\d+)([eE][-+]?\\d+)?[dD]?")) return "double";
        if (init.equals("true") || init.equals("false")) return "boolean";
        return "var";
    }

    static String stringLiteral(String text) {
        StringBuilder sb = new StringBuilder("\"");
        for (char c : text.toCharArray()) {
            switch (c) {
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                case '\n' -> sb.append("\\n");
                case '\r' -> sb.append("\\r");
                case '\t' -> sb.append("\\t");
                default -> sb.append(c);
            }
        }
        return sb.append('"').toString();
    }

    static boolean isInjected(JsonNode cell) { return hasTag(cell, INJECTED) || INJECTED.equals(cell.path("id").asText()); }

    private static boolean hasTag(JsonNode cell, String tag) {
        for (JsonNode t : cell.path("metadata").path("tags")) if (t.asText().equals(tag)) return true;
        return false;
    }
}
