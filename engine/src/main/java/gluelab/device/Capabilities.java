package gluelab.device;

import gluelab.ops.Skip;
import gluelab.tensor.DType;

import java.util.EnumSet;
import java.util.Optional;
import java.util.Set;

/**
 * What a device can do, declared by the device so callers never branch on its kind: the
 * activation dtypes its ops run, whether it replays captured graphs, its peak FLOP/s from the spec
 * sheet (0 where unknown; the calibrator then measures one), and the buffer size its bandwidth
 * calibration wants ({@code calibrationBytes}: large enough that a copy's start and tail vanish in
 * its time; the calibrator still caps it by free memory) and {@code placements}, how many
 * independent copies of a small group's buffers a bench rotates its direct launches through by
 * default (1: one copy, no rotation; see {@code bench.Placements} for why a GPU wants several), and
 * {@code jitCompiled}: its kernels are JVM code that the JIT compiles while they run (the CPU), so a
 * warm-up waits for the compiler to go quiet ({@code timing.WarmupRule}).
 */
public record Capabilities(Set<DType> dtypes, boolean graphReplay, double peakFlops, long calibrationBytes, int placements, boolean jitCompiled) {
    /** A device whose kernels are compiled before they run. */
    public Capabilities(Set<DType> dtypes, boolean graphReplay, double peakFlops, long calibrationBytes, int placements) {
        this(dtypes, graphReplay, peakFlops, calibrationBytes, placements, false);
    }

    /** The most placements a bench may rotate through (beyond this the allocations cost more than they buy). */
    public static final int MAX_PLACEMENTS = 64;

    public Capabilities {
        dtypes = dtypes.isEmpty() ? Set.of() : Set.copyOf(EnumSet.copyOf(dtypes));
        if (!(peakFlops >= 0)) throw new IllegalArgumentException("peak FLOP/s must be >= 0, got " + peakFlops);
        if (calibrationBytes <= 0) throw new IllegalArgumentException("calibration buffer bytes must be > 0, got " + calibrationBytes);
        if (placements < 1 || placements > MAX_PLACEMENTS) {
            throw new IllegalArgumentException("buffer placements must be in 1.." + MAX_PLACEMENTS + ", got " + placements);
        }
    }

    /** Why ops in {@code dtype} are not measured on {@code device}, or empty when they run (nvbench's skip(reason)). */
    public Optional<Skip> skip(DType dtype, String device) {
        if (dtypes.contains(dtype)) return Optional.empty();
        return Optional.of(new Skip(dtype.id() + " on " + device, device + " runs " + dtypes.stream().sorted().map(DType::id).toList() + " activations, not " + dtype.id()));
    }
}
