package gluelab.floor;

import gluelab.calibrate.Calibration;
import gluelab.device.Capabilities;

/**
 * The dense FLOP/s a GEMM's or attention's floor divides its FLOPs by, per dtype, and where the figure
 * comes from ({@code basis}, printed beside every ranking that uses it).
 */
public record FlopPeak(double bf16, double fp32, String basis) {
    /**
     * Dense fp32 over dense bf16 tensor-core FLOP per clock per SM on Ampere and Hopper (128 vs 2048, 256
     * vs 4096): fp32 matmuls run on the CUDA cores (torch's default has TF32 off for matmuls).
     */
    static final double FP32_OF_BF16 = 1.0 / 16;

    public FlopPeak {
        if (!(bf16 > 0) || !(fp32 > 0) || Double.isInfinite(bf16) || Double.isInfinite(fp32))
            throw new IllegalArgumentException("peak FLOP/s must be finite numbers > 0, got bf16 " + bf16 + ", fp32 " + fp32);
    }

    /**
     * A device that declares its peak (a GPU: the dense bf16 tensor-core spec from its SMs and clock) gives
     * bf16 and fp32 from it; otherwise the calibration's measured fp32 vector-FMA peak stands for every dtype.
     */
    public static FlopPeak of(Calibration cal, Capabilities caps) {
        if (caps.peakFlops() > 0) {
            return new FlopPeak(caps.peakFlops(), caps.peakFlops() * FP32_OF_BF16, String.format(
                    "dense bf16 tensor-core peak %.0f TFLOP/s from the device's SMs and clock (a spec figure, not measured), fp32 1/16 of it (CUDA cores, no TF32)",
                    caps.peakFlops() / 1e12));
        }
        if (!(cal.peakFlops() > 0)) throw new IllegalArgumentException("the calibration of " + cal.deviceName() + " has no peak FLOP/s; declare one (--peak-tflops)");
        return new FlopPeak(cal.peakFlops(), cal.peakFlops(), String.format(
                "calibrated fp32 vector-FMA peak %.1f GFLOP/s of %s, for every dtype (measured by gluelab's calibration, not a GEMM)", cal.peakFlops() / 1e9,
                cal.deviceName()));
    }

    /** A figure the analyst declares (e.g. their BLAS's measured GEMM rate), for every dtype. */
    public static FlopPeak declared(double flops) {
        return new FlopPeak(flops, flops, String.format("declared %.3f TFLOP/s for every dtype (--peak-tflops)", flops / 1e12));
    }

    /** The peak for an op whose first input is {@code dtype} (gluelab's names: bf16, fp16, fp32, ...); bf16's for half types. */
    public double forDtype(String dtype) {
        return switch (dtype) {
            case "bf16", "fp16" -> bf16;
            default -> fp32;
        };
    }
}
