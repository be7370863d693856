package gluelab.workflow.modelwriteup;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The line of a function's, method's or class's definition in a Python file ({@code apply_rotary_emb},
 * {@code Attention.rope}, {@code RMSNorm}), read from the source text: nested names are found inside
 * the enclosing class's indented body. 0 when it is not defined there (an attribute such as {@code Function.apply}).
 */
final class PythonDefs {
    private static final Pattern DEF = Pattern.compile("^(\\s*)(?:async\\s+def|def|class)\\s+([A-Za-z_]\\w*)\\b");

    private PythonDefs() {}

    static int line(Path file, String qualname) {
        List<String> lines;
        try {
            lines = Files.readAllLines(file);
        } catch (IOException e) {
            throw new UncheckedIOException("reading " + file + " for the definition of " + qualname, e);
        }
        int from = 0, indent = -1, found = 0;
        for (String name : qualname.split("\\.")) {
            found = 0;
            for (int i = from; i < lines.size(); i++) {
                String l = lines.get(i);
                if (l.isBlank()) continue;
                int ind = l.length() - l.stripLeading().length();
                if (indent >= 0 && ind <= indent) break;
                Matcher m = DEF.matcher(l);
                if (m.find() && m.group(2).equals(name) && (indent < 0 ? ind == 0 : ind > indent)) {
                    found = i + 1;
                    from = i + 1;
                    indent = ind;
                    break;
                }
            }
            if (found == 0) return 0;
        }
        return found;
    }
}
