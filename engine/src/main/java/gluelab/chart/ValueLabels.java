package gluelab.chart;

import org.knowm.xchart.internal.chartpart.Annotation;

import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.font.TextLayout;
import java.util.List;

/**
 * Value labels beside dots (XChart labels only bars): each point's value written beside its
 * marker, right of it for the first series, left for the second and so on, so the before and
 * after of one workload never write over each other. Category positions follow XChart's own layout of a category axis: the plot content
 * takes {@code plotContentSize} of the plot's width, centred, one equal step per category.
 */
final class ValueLabels extends Annotation {
    /** One label: the category's index, its series' index, the value where it is drawn, and the text. */
    record Label(int category, int series, double at, String text) {}

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
            TextLayout t = new TextLayout(l.text(), font, g.getFontRenderContext());
            double centre = start + l.category() * step + step / 2, y = getYAxisScreenValue(l.at());
            double x = l.series() % 2 == 0 ? centre + 9 : centre - 9 - t.getAdvance();
            g.setFont(font);
            g.drawString(l.text(), (float) x, (float) (y + t.getAscent() / 2 - 1));
        }
    }
}
