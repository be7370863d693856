package gluelab.bench;

import gluelab.calibrate.Calibration;
import gluelab.progress.Progress;

/**
 * A peer's rows measured beside a bench run's own (the torch side's eager and compiled rows):
 * given the plan and the rows measured on the device, it returns them with its own added.
 */
@FunctionalInterface
public interface PeerRows {
    BenchResult add(BenchPlan plan, Calibration calibration, BenchResult own, Progress progress);
}
