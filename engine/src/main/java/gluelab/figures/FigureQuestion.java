package gluelab.figures;

import java.util.List;

/**
 * One benchmark question (e.g. "the catalogue against torch.compile") and the CSV file that holds its
 * figures. {@code key} names the columns that identify a figure: of several rows with the same key on the
 * same device, the newest is the current one.
 */
public record FigureQuestion(String file, String title, String about, List<String> key) {
    public FigureQuestion {
        if (file == null || title == null || key == null) throw new IllegalArgumentException("a question needs file, title and key");
        about = about == null ? "" : about;
        key = List.copyOf(key);
    }
}
