package gluelab.torch;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The analyst's model: a Python file and the function in it that builds the nn.Module, written
 * {@code blocks.py:build}. The function takes the token count ({@code build(T)}) or nothing.
 */
public record ModelEntry(Path file, String function) {
    public ModelEntry {
        if (file == null) throw new IllegalArgumentException("a model entry needs a file");
        if (function == null || !function.matches("[A-Za-z_][A-Za-z0-9_]*"))
            throw new IllegalArgumentException("model entry " + file + ": '" + function + "' is not a Python function name");
        file = file.toAbsolutePath().normalize();
    }

    /** {@code FILE.py:FUNCTION}; the file must exist. */
    public static ModelEntry parse(String text) {
        if (text == null || text.isBlank()) throw new IllegalArgumentException("--model-file is empty; e.g. blocks.py:build");
        int colon = text.lastIndexOf(':');
        if (colon <= 0 || colon == text.length() - 1) throw new IllegalArgumentException("--model-file '" + text + "': expected FILE.py:FUNCTION, e.g. blocks.py:build");
        String path = text.substring(0, colon), function = text.substring(colon + 1);
        if (!path.endsWith(".py")) throw new IllegalArgumentException("--model-file '" + text + "': " + path + " is not a .py file");
        Path file = Path.of(path);
        if (!Files.isRegularFile(file)) throw new IllegalArgumentException("--model-file '" + text + "': no such file " + file.toAbsolutePath());
        return new ModelEntry(file, function);
    }

    /**
     * {@link #parse} with a relative FILE looked for in the working folder, then in the nearest folder
     * above it that has it: Jupyter starts a notebook's kernel in {@code notebooks/}, {@code gluelab run}
     * wherever it is typed, and {@code docs/examples/models/llama3.py:build} names one file from both.
     */
    public static ModelEntry find(String text) {
        int colon = text == null ? -1 : text.lastIndexOf(':');
        if (colon > 0) {
            Path file = Path.of(text.substring(0, colon));
            if (!file.isAbsolute() && !Files.exists(file)) {
                for (Path dir = Path.of("").toAbsolutePath().getParent(); dir != null; dir = dir.getParent()) {
                    if (Files.isRegularFile(dir.resolve(file))) return parse(dir.resolve(file) + text.substring(colon));
                }
            }
        }
        return parse(text);
    }

    /** The file's name and the function, as errors and tables name the model. */
    public String shortName() { return file.getFileName() + ":" + function; }

    @Override public String toString() { return file + ":" + function; }
}
