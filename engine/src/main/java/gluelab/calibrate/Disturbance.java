package gluelab.calibrate;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Whether a calibration's numbers say the machine was busy while it ran: triad far below copy (a
 * quiet CPU reads triad at about half of copy's counted rate, a GPU about equal; under load the
 * single-stream triad collapses first: 4.8 vs 27.4 GB/s on a loaded 2-core VM, 17.3 vs 36.0 quiet),
 * copy or triad medians noisier than the bound, or other processes holding cores while it ran.
 */
public final class Disturbance {
    private Disturbance() {}

    /** Triad under this fraction of copy reads as load, not as the device. */
    public static final double MIN_TRIAD_TO_COPY = 0.25;

    /** A copy or triad median noisier than this is not a device's figure. */
    public static final double MAX_NOISE = 0.05;

    /** Other processes holding more than this share of the cores while it ran. */
    public static final double MAX_OTHER_LOAD_SHARE = 0.5;

    /**
     * Why the calibration reads as busy, "" when nothing says so. {@code otherLoad}: cores other
     * processes used (negative: unknown); a noise that is NaN (unknown) is not counted.
     */
    public static String reason(double copy, double triad, double copyNoise, double triadNoise, double otherLoad, int cores) {
        List<String> why = new ArrayList<>();
        if (copy > 0 && triad > 0 && triad / copy < MIN_TRIAD_TO_COPY) {
            why.add(String.format(Locale.ROOT, "triad %.1f GB/s is %.0f%% of copy %.1f GB/s", triad / 1e9, 100 * triad / copy, copy / 1e9));
        }
        if (copyNoise > MAX_NOISE) why.add(String.format(Locale.ROOT, "copy noise %.1f%%", 100 * copyNoise));
        if (triadNoise > MAX_NOISE) why.add(String.format(Locale.ROOT, "triad noise %.1f%%", 100 * triadNoise));
        if (otherLoad >= 0 && cores > 0 && otherLoad > MAX_OTHER_LOAD_SHARE * cores) {
            why.add(String.format(Locale.ROOT, "other processes used %.1f of %d cores", otherLoad, cores));
        }
        return String.join("; ", why);
    }
}
