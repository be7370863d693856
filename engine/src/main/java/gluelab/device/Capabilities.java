package gluelab.device;

import gluelab.tensor.DType;

import java.util.EnumSet;
import java.util.Optional;
import java.util.Set;

/**
 * What a device can do, declared by the device so callers never branch on its kind: the
 * activation dtypes its ops run, whether it replays captured graphs, its peak FLOP/s from the spec
 * sheet (0 where unknown; the calibrator then measures one), and the buffer size its bandwidth
 * calibration wants ({@code calibrationBytes}: large enough that a copy's start and tail vanish in
 * its time; the calibrator still caps it by free memory).
 */
public record Capabilities(Set<DType> dtypes, boolean graphReplay, double peakFlops, long calibrationBytes) {
    public Capabilities {
        dtypes = dtypes.isEmpty() ? Set.of() : Set.copyOf(EnumSet.copyOf(dtypes));
        if (!(peakFlops >= 0)) throw new IllegalArgumentException("peak FLOP/s must be >= 0, got " + peakFlops);
        if (calibrationBytes <= 0) throw new IllegalArgumentException("calibration buffer bytes must be > 0, got " + calibrationBytes);
    }

    /** Why ops in {@code dtype} are skipped on {@code device}, or empty when they run (nvbench's skip(reason)). */
    public Optional<String> skip(DType dtype, String device) {
        if (dtypes.contains(dtype)) return Optional.empty();
        return Optional.of(device + " runs " + dtypes.stream().sorted().map(DType::id).toList() + " activations, not " + dtype.id());
    }
}
