package gluelab.chart;

import org.junit.jupiter.api.Test;

import java.util.List;

import static gluelab.chart.ValueAxis.Side.*;
import static org.junit.jupiter.api.Assertions.*;

/** The axis rules on their own: what stretches the axis, what is clipped, when it goes log. */
class ValueAxisTest {
    static Point sound(double v) { return Point.sound("c" + v, v); }

    static Point noisy(double v) { return new Point("n" + v, v, true); }

    @Test
    void aNoisyPointWithinTheClipFactorStretchesTheAxisAndOnePastItIsClipped() {
        ValueAxis near = ValueAxis.fit(List.of(sound(90), sound(120), noisy(900)), List.of());
        assertEquals(ON, near.side(900.0));
        assertFalse(near.clipsAbove());
        ValueAxis far = ValueAxis.fit(List.of(sound(90), sound(120), noisy(74205)), List.of());
        assertEquals(ABOVE, far.side(74205.0));
        assertTrue(far.clipsAbove());
        assertFalse(far.log(), "the clipped glitch does not decide the scale: 90 to 120 is linear");
        assertTrue(far.max() > 120 && far.max() < 200, "room for the marker, no more: " + far.max());
    }

    @Test
    void aSoundPointIsNeverClippedItMakesTheAxisLog() {
        ValueAxis a = ValueAxis.fit(List.of(sound(90), sound(120_000)), List.of());
        assertTrue(a.log());
        assertEquals(ON, a.side(120_000.0));
        assertFalse(a.clipsAbove() || a.clipsBelow());
    }

    @Test
    void onALogAxisZeroIsClippedAndASmallNoisyValueIsDrawnNotClipped() {
        ValueAxis log = ValueAxis.fit(List.of(sound(3), sound(42_000), sound(0)), List.of());
        assertTrue(log.log());
        assertEquals(BELOW, log.side(0.0));
        assertTrue(log.clipsBelow());
        assertTrue(log.min() > 0 && log.min() < 3);
        // A disturbed run is slower: far below is a point in its own right (a small workload), so it counts for the scale.
        ValueAxis small = ValueAxis.fit(List.of(sound(100), sound(200), noisy(0.5)), List.of());
        assertTrue(small.log());
        assertEquals(ON, small.side(0.5));
    }

    @Test
    void referencesAnchorTheAxisAndInfiniteOrMissingValuesAreHandled() {
        ValueAxis a = ValueAxis.fit(List.of(noisy(14.5), noisy(4800)), List.of(100.0));
        assertEquals(ON, a.side(14.5));
        assertEquals(ABOVE, a.side(4800.0), "the 100% line anchors the axis; a noisy 4,800% is 48x past it");
        ValueAxis inf = ValueAxis.fit(List.of(sound(1), sound(2), sound(Double.POSITIVE_INFINITY)), List.of());
        assertEquals(ABOVE, inf.side(Double.POSITIVE_INFINITY));
        assertEquals(NONE, inf.side(null));
        assertEquals(NONE, inf.side(Double.NaN));
        ValueAxis onlyNoisy = ValueAxis.fit(List.of(noisy(5), noisy(50_000)), List.of());
        assertEquals(ON, onlyNoisy.side(50_000.0), "with no sound point the noisy ones set the axis");
        assertTrue(onlyNoisy.log());
    }
}
