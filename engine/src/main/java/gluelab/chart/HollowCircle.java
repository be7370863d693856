package gluelab.chart;

import org.knowm.xchart.style.markers.Marker;

import java.awt.BasicStroke;
import java.awt.Graphics2D;
import java.awt.geom.Ellipse2D;

/** A ring: the marker of a noisy point, so it reads as "not to be trusted as it stands". */
final class HollowCircle extends Marker {
    @Override public void paint(Graphics2D g, double x, double y, int size) {
        g.setStroke(new BasicStroke(2f));
        double d = size;
        g.draw(new Ellipse2D.Double(x - d / 2, y - d / 2, d, d));
    }
}
