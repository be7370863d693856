package gluelab.floor;

import gluelab.calibrate.Calibration;
import gluelab.ops.GlueOp;
import gluelab.ops.OpShape;
import gluelab.ops.Pass;
import gluelab.ops.Traffic;

/**
 * The least time an op can take: bytes over measured bandwidth (memory floor) or FLOPs over peak
 * (compute floor), whichever is larger (the roofline).
 */
public record Floor(String name, Pass pass, long tokens, long bytes, long flops, double bandwidth, double peakFlops) {
    public static Floor of(GlueOp op, OpShape shape, Pass pass, Calibration cal) {
        Traffic t = op.traffic(shape, pass);
        return new Floor(op.name(), pass, shape.tokens(), t.total(), op.flops(shape, pass), cal.bandwidth(), cal.peakFlops());
    }

    /** A GEMM [m x k] x [k x n] with elements of {@code elementBytes}: 2mnk FLOPs, each operand moved once. */
    public static Floor gemm(String name, long m, long n, long k, int elementBytes, Calibration cal) {
        long bytes = (m * k + k * n + m * n) * elementBytes;
        return new Floor(name, Pass.FORWARD, m, bytes, 2 * m * n * k, cal.bandwidth(), cal.peakFlops());
    }

    public double memorySeconds() { return bytes / bandwidth; }

    public double computeSeconds() { return peakFlops > 0 ? flops / peakFlops : 0; }

    /** The roofline: the larger of the memory and compute floors. */
    public double idealSeconds() { return Math.max(memorySeconds(), computeSeconds()); }

    public String bound() { return computeSeconds() > memorySeconds() ? "compute" : "memory"; }

    /** How close a measurement is to the floor, in percent (100 = at the floor). */
    public double percentOfFloor(double measuredSeconds) { return 100.0 * idealSeconds() / measuredSeconds; }

    /** Achieved bandwidth of a measurement that moved this floor's bytes. */
    public double achievedBandwidth(double measuredSeconds) { return bytes / measuredSeconds; }
}
