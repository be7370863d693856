// MoE routing: scores, top k and renormalised weights in one kernel (GLUE_FUSED_ROUTING).
#include "glue_types.cuh"
#include "glue_sums.cuh"
#include "glue_config.cuh"

#ifdef GLUE_FUSED_ROUTING
// MoE routing, LANES threads per token, each holding EPL = E / LANES consecutive logits. The top k
// is picked on the logits (softmax and sigmoid are increasing, so the order and the ties are the
// scores'), k rounds of a group max over packed keys (below); only the k picked scores are
// computed and renormalised: softmax's denominator cancels, exp(l - l_max) / sum over the picks.
//
// A key packs a logit and its expert so that one unsigned max picks the larger logit and, on a tie,
// the lower expert: the value's bits in the high half, mapped so unsigned order is float order (-0
// folded into +0, NaN above +inf as torch.topk ranks it), the expert inverted in the low half. Keys
// are distinct and never 0, so a round's winner is cleared by one compare and 0 means taken. A round
// is a max tree over the lane's keys (no serial compare chain), one shuffle and max per lane level
// (one redux.sync for a warp per token), then a compare per key: bf16 logits fit a 32-bit key, fp32
// ones take 64 bits.
#if CFG_DT == DT_BF16
typedef unsigned RouteKey;
#define KEY_LOW 16
#else
typedef unsigned long long RouteKey;
#define KEY_LOW 32
#endif

__device__ __forceinline__ unsigned ordered_bits(float v) {
    unsigned u = __float_as_uint(v);
    if ((u & 0x7fffffffu) > 0x7f800000u) return 0xffffffffu;  // NaN
    if (u == 0x80000000u) u = 0u;                               // -0 ties +0
    return (u & 0x80000000u) ? ~u : u | 0x80000000u;
}

__device__ __forceinline__ float ordered_value(unsigned o) {
    return __uint_as_float((o & 0x80000000u) ? o & 0x7fffffffu : ~o);
}

__device__ __forceinline__ RouteKey route_key(float v, int expert) {
#if CFG_DT == DT_BF16
    return (ordered_bits(v) & 0xffff0000u) | (0xffffu - (unsigned)expert);  // a bf16's low 16 float bits are 0
#else
    return ((RouteKey)ordered_bits(v) << 32) | (0xffffffffu - (unsigned)expert);
#endif
}

__device__ __forceinline__ float key_value(RouteKey k) {
#if CFG_DT == DT_BF16
    const unsigned hi = k & 0xffff0000u;
    return (hi & 0x80000000u) ? __uint_as_float(hi & 0x7fffffffu) : __uint_as_float(~hi & 0xffff0000u);
#else
    return ordered_value((unsigned)(k >> 32));
#endif
}

__device__ __forceinline__ int key_expert(RouteKey k) {
    return (int)((RouteKey)((1ull << KEY_LOW) - 1) - (k & (RouteKey)((1ull << KEY_LOW) - 1)));
}

__device__ __forceinline__ RouteKey key_max(RouteKey a, RouteKey b) { return a > b ? a : b; }

// The largest key of the L lanes of this token (L a power of 2, groups aligned within the warp).
template <int L>
__device__ __forceinline__ RouteKey group_max(RouteKey k) {
#if CFG_DT == DT_BF16 && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    if constexpr (L == 32) return __reduce_max_sync(0xffffffffu, (unsigned)k);
    else
#endif
    {
        #pragma unroll
        for (int o = L / 2; o > 0; o >>= 1) k = key_max(k, __shfl_xor_sync(0xffffffffu, k, o));
        return k;
    }
}

extern "C" __global__ void __launch_bounds__(CFG_THREADS) fused_routing(const void* logits, float* weights, i64* indices, i64 tokens, int e) {
    constexpr int L = CFG_LANES, EPL = CFG_EPL, K = CFG_K;
    static_assert((EPL & (EPL - 1)) == 0, "a lane's keys reduce as a tree");
    const int sub = threadIdx.x % L;
    const i64 warp = ((i64)blockIdx.x * CFG_THREADS + threadIdx.x) >> 5, warps = (i64)gridDim.x * CFG_THREADS / 32;
    for (i64 base = warp * (32 / L); base < tokens; base += warps * (32 / L)) {
        const i64 row = base + (threadIdx.x & 31) / L;
        const bool live = row < tokens;
        RouteKey key[EPL];
        if (live) {
            float v[EPL];
            ldv<EPL>(logits, row * e + sub * EPL, v);
            #pragma unroll
            for (int k = 0; k < EPL; k++) key[k] = route_key(v[k], sub * EPL + k);
        } else {
            #pragma unroll
            for (int k = 0; k < EPL; k++) key[k] = 0;
        }
        RouteKey picked[K];
        #pragma unroll
        for (int slot = 0; slot < K; slot++) {
            RouteKey m[EPL];
            #pragma unroll
            for (int k = 0; k < EPL; k++) m[k] = key[k];
            #pragma unroll
            for (int w = EPL / 2; w > 0; w >>= 1) {
                #pragma unroll
                for (int k = 0; k < w; k++) m[k] = key_max(m[k], m[k + w]);
            }
            const RouteKey best = group_max<L>(m[0]);
            #pragma unroll
            for (int k = 0; k < EPL; k++) key[k] = key[k] == best ? 0 : key[k];
            picked[slot] = best;
        }
        // Lane sub owns slots sub, sub + L, ...: it scores only those, the group sums them, and each
        // slot is stored by one instruction across the warp (consecutive slots, consecutive lanes:
        // whole sectors; a store per slot would leave each lane's 4 or 8 bytes alone in a sector).
        constexpr int OWN = (K + L - 1) / L;
        const float top = key_value(picked[0]);
        RouteKey mine[OWN];
        float sc[OWN], s = 0.f;
        #pragma unroll
        for (int j = 0; j < OWN; j++) {
            const int slot = j * L + sub;
            mine[j] = 0;
            #pragma unroll
            for (int k = 0; k < K; k++) mine[j] = k == slot ? picked[k] : mine[j];
            const float l = key_value(mine[j]);
#if CFG_SOFTMAX
            sc[j] = slot < K ? __expf(l - top) : 0.f;
#else
            sc[j] = slot < K ? sigmoidf_(l) : 0.f;
            (void)top;
#endif
            s += sc[j];
        }
        s = group_sum<L>(s);
        if (!live) continue;
        #pragma unroll
        for (int j = 0; j < OWN; j++) {
            const int slot = j * L + sub;
            if (slot < K) { weights[row * K + slot] = sc[j] / s; indices[row * K + slot] = key_expert(mine[j]); }
        }
    }
}
#endif
