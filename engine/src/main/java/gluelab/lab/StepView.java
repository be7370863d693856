package gluelab.lab;

import java.util.List;

/**
 * What a notebook step shows for its experiment's subject (gluelab's op catalogue or the analyst's
 * model): a headline, then the values a cell would show, in order (tables, charts, records, lists of
 * records). The kernel renders each part as it renders a cell's value, so one cell,
 * {@code lab.baselines(ex)}, reads the same whichever subject the plan names.
 */
public record StepView(String headline, List<Object> parts) {
    public StepView {
        parts = List.copyOf(parts);
    }

    /** The first part of {@code type}, or an error naming the parts there are. */
    public <T> T part(Class<T> type) {
        return parts.stream().filter(type::isInstance).map(type::cast).findFirst().orElseThrow(() -> new IllegalArgumentException(
                "no " + type.getSimpleName() + " among the parts of '" + headline + "': " + parts.stream().map(p -> p.getClass().getSimpleName()).toList()));
    }

    /** The headline and each part's text, as a terminal shows it. */
    @Override public String toString() {
        StringBuilder sb = new StringBuilder(headline);
        for (Object p : parts) sb.append("\n\n").append(p);
        return sb.toString();
    }
}
