package gluelab.workflow.model;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.*;

class SpeedRatioTest {
    /** Blind check: regions 27506.7 us (1.5%) vs eager 27642.9 us (2.6%) read "1.00x faster (regions vs eager)", where steps 05 and 07 say inconclusive. */
    @Test void aDifferenceWithinTheNoiseIsInconclusiveNotFaster() {
        assertEquals("inconclusive: -0.5% is within the noise (2.6%) (regions vs eager)", SpeedRatio.of(27642.9, 0.026, 27506.7, 0.015, "regions", "eager"));
        assertEquals("3.98x faster (per-block vs eager)", SpeedRatio.of(3980, 0.02, 1000, 0.01, "per-block", "eager"));
        assertEquals("1.20x slower (whole vs eager)", SpeedRatio.of(1000, 0.05, 1200, 0.05, "whole", "eager"));
        assertEquals("1.01x faster (whole vs eager)", SpeedRatio.of(1010, Double.NaN, 1000, 0.001, "whole", "eager"), "an unknown noise decides nothing");
        assertThrows(IllegalArgumentException.class, () -> SpeedRatio.of(0, 0.01, 1000, 0.01, "whole", "eager"));
    }
}
