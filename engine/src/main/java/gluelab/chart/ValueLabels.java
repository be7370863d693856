package gluelab.chart;

import org.knowm.xchart.internal.chartpart.Annotation;

import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.font.TextLayout;
import java.util.List;

/**
 * Value labels beside dots (XChart labels only bars): each point's value written just right of
 * its marker. Category positions follow XChart's own layout of a category axis: the plot content
 * takes {@code plotContentSize} of the plot's width, centred, one equal step per category.
 */
final class ValueLabels extends Annotation {
    /** One label: the category's index, the value where it is drawn, and the text. */
    record Label(int category, double at, String text) {}

    private final int categories;
    private final List<Label> labels;

    ValueLabels(int categories, List<Label> labels) {
        super(false);
        this.categories = categories;
        this.labels = List.copyOf(labels);
    }

    List<Label> labels() { return labels; }

    @Override public void paint(Graphics2D g) {
        if (!isVisible || labels.isEmpty()) return;
        double left = getXAxisScreenValueForMin(), width = getXAxisScreenValueForMax() - left;
        double content = ((org.knowm.xchart.style.AxesChartStyler) styler).getPlotContentSize() * width;
        double step = content / categories, start = left + (width - content) / 2;
        Font font = new Font(Font.SANS_SERIF, Font.PLAIN, 11);
        g.setColor(Color.BLACK);
        for (Label l : labels) {
            double x = start + l.category() * step + step / 2 + 9, y = getYAxisScreenValue(l.at());
            TextLayout t = new TextLayout(l.text(), font, g.getFontRenderContext());
            t.draw(g, (float) x, (float) (y + t.getAscent() / 2 - 1));
        }
    }
}
