package gluelab.calibrate;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * fp32 fused multiply-adds on the CPU's widest SIMD vectors (jdk.incubator.vector), eight
 * independent chains so the FMA units' latency is covered: the peak the Vector API loops of the
 * CPU device can reach. Loaded only when the JVM has the module.
 */
final class VectorPeak {
    private static final VectorSpecies<Float> S = FloatVector.SPECIES_PREFERRED;
    private static final int CHAINS = 8;

    private VectorPeak() {}

    /** FLOPs that {@link #fmas} does per rep. */
    static double flopsPerRep() { return CHAINS * S.length() * 2.0; }

    static float fmas(int reps) {
        FloatVector m = FloatVector.broadcast(S, 0.999999f), c = FloatVector.broadcast(S, 1e-7f);
        FloatVector a0 = FloatVector.broadcast(S, 1f), a1 = a0, a2 = a0, a3 = a0, a4 = a0, a5 = a0, a6 = a0, a7 = a0;
        for (int r = 0; r < reps; r++) {
            a0 = a0.fma(m, c);
            a1 = a1.fma(m, c);
            a2 = a2.fma(m, c);
            a3 = a3.fma(m, c);
            a4 = a4.fma(m, c);
            a5 = a5.fma(m, c);
            a6 = a6.fma(m, c);
            a7 = a7.fma(m, c);
        }
        return a0.add(a1).add(a2).add(a3).add(a4).add(a5).add(a6).add(a7).reduceLanes(VectorOperators.ADD);
    }
}
