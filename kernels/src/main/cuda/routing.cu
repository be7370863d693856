// MoE routing: scores, top k and renormalised weights in one kernel (GLUE_FUSED_ROUTING).
#include "glue_types.cuh"
#include "glue_sums.cuh"
#include "glue_config.cuh"

#ifdef GLUE_FUSED_ROUTING
// MoE routing, LANES threads per token, each holding EPL = E / LANES consecutive logits. The top k
// is picked on the logits (softmax and sigmoid are increasing, so the order and the ties are the
// scores'), k rounds of a group argmax (ties to the lower index); only the k picked scores are
// computed and renormalised: softmax's denominator cancels, exp(l - l_max) / sum over the picks.
extern "C" __global__ void __launch_bounds__(CFG_THREADS) fused_routing(const void* logits, float* weights, i64* indices, i64 tokens, int e) {
    constexpr int L = CFG_LANES, EPL = CFG_EPL, K = CFG_K;
    const int sub = threadIdx.x % L;
    const i64 warp = ((i64)blockIdx.x * CFG_THREADS + threadIdx.x) >> 5, warps = (i64)gridDim.x * CFG_THREADS / 32;
    for (i64 base = warp * (32 / L); base < tokens; base += warps * (32 / L)) {
        i64 row = base + (threadIdx.x & 31) / L;
        bool live = row < tokens;
        float v[EPL];
        if (live) ldv<EPL>(logits, row * e + sub * EPL, v);
        else {
            #pragma unroll
            for (int k = 0; k < EPL; k++) v[k] = NEG_INF;
        }
        unsigned taken = 0;
        float pv[K];
        int pi[K];
        #pragma unroll
        for (int slot = 0; slot < K; slot++) {
            float best = NEG_INF;
            int bi = 0x7fffffff;
            #pragma unroll
            for (int k = 0; k < EPL; k++) {
                if (!(taken & (1u << k)) && (v[k] > best || bi == 0x7fffffff)) { best = v[k]; bi = sub * EPL + k; }
            }
            #pragma unroll
            for (int o = L / 2; o > 0; o >>= 1) {
                float ob = __shfl_xor_sync(0xffffffffu, best, o);
                int oi = __shfl_xor_sync(0xffffffffu, bi, o);
                if (ob > best || (ob == best && oi < bi)) { best = ob; bi = oi; }
            }
            if (bi / EPL == sub) taken |= 1u << (bi % EPL);
            pv[slot] = best;
            pi[slot] = bi;
        }
        float sc[K], s = 0.f;
        #pragma unroll
        for (int slot = 0; slot < K; slot++) {
#if CFG_SOFTMAX
            sc[slot] = __expf(pv[slot] - pv[0]);
#else
            sc[slot] = sigmoidf_(pv[slot]);
#endif
            s += sc[slot];
        }
        if (!live) continue;
        #pragma unroll
        for (int slot = 0; slot < K; slot++) {
            if (slot % L == sub) { weights[row * K + slot] = sc[slot] / s; indices[row * K + slot] = pi[slot]; }
        }
    }
}
#endif
