package gluelab.figures;

import java.util.List;

/** One line of a figure file: its figures (the question's own columns) and the run behind them. */
public record FigureRow(int line, List<String> figures, Provenance provenance) {
    public FigureRow { figures = List.copyOf(figures); }
}
