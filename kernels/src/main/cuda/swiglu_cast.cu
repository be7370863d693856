// SwiGLU forward and backward, and the bf16 -> fp32 cast: elementwise kernels (GLUE_FUSED_SWIGLU_FWD / _BWD, GLUE_FUSED_CAST).
#include "glue_types.cuh"
#include "glue_sums.cuh"
#include "glue_config.cuh"

#if defined(GLUE_FUSED_SWIGLU_FWD) || defined(GLUE_FUSED_SWIGLU_BWD) || defined(GLUE_FUSED_CAST)
// Elementwise kernels: block b owns tiles of THREADS * VEC * UNROLL elements (b, b + grid, ...);
// each thread issues UNROLL independent loads of VEC elements before the first use. n % VEC == 0.
#define TILE (CFG_THREADS * CFG_VEC * CFG_UNROLL)
#define FOR_TILES(nvec) for (i64 t0 = (i64)blockIdx.x * TILE; t0 < (i64)(nvec) * CFG_VEC; t0 += (i64)gridDim.x * TILE)
#define ELEM(u) (t0 + ((i64)(u) * CFG_THREADS + threadIdx.x) * CFG_VEC)
#endif

#if defined(GLUE_FUSED_SWIGLU_FWD) || defined(GLUE_FUSED_SWIGLU_BWD)
// Sigmoid with the approximate division (__fdividef: 2 ulp in fp32, far below a bf16 rounding):
// the IEEE division is a call-like sequence per element, and SwiGLU is one element per 2-3 bytes.
__device__ __forceinline__ float sigmoid_fast(float x) { return __fdividef(1.f, 1.f + __expf(-x)); }
#endif

#ifdef GLUE_FUSED_SWIGLU_FWD
extern "C" __global__ void __launch_bounds__(CFG_THREADS) fused_swiglu_fwd(const void* g, const void* u, void* out, i64 n) {
    constexpr int V = CFG_VEC, U = CFG_UNROLL;
    FOR_TILES(n / V) {
        float a[U][V], b[U][V];
        #pragma unroll
        for (int j = 0; j < U; j++) if (ELEM(j) < n) { ldv<V>(g, ELEM(j), a[j]); ldv<V>(u, ELEM(j), b[j]); }
        #pragma unroll
        for (int j = 0; j < U; j++) {
            if (ELEM(j) >= n) continue;
            #pragma unroll
            for (int k = 0; k < V; k++) a[j][k] = a[j][k] * sigmoid_fast(a[j][k]) * b[j][k];
            stv<V>(out, ELEM(j), a[j]);
        }
    }
}
#endif

#ifdef GLUE_FUSED_SWIGLU_BWD
extern "C" __global__ void __launch_bounds__(CFG_THREADS) fused_swiglu_bwd(const void* g, const void* u, const void* dy, void* dg, void* du, i64 n) {
    constexpr int V = CFG_VEC, U = CFG_UNROLL;
    FOR_TILES(n / V) {
        float a[U][V], b[U][V], d[U][V];
        #pragma unroll
        for (int j = 0; j < U; j++) if (ELEM(j) < n) { ldv<V>(g, ELEM(j), a[j]); ldv<V>(u, ELEM(j), b[j]); ldv<V>(dy, ELEM(j), d[j]); }
        #pragma unroll
        for (int j = 0; j < U; j++) {
            if (ELEM(j) >= n) continue;
            float oa[V], ob[V];
            #pragma unroll
            for (int k = 0; k < V; k++) {
                float sg = sigmoid_fast(a[j][k]);
                ob[k] = d[j][k] * a[j][k] * sg;
                oa[k] = d[j][k] * b[j][k] * sg * (1.f + a[j][k] * (1.f - sg));
            }
            stv<V>(dg, ELEM(j), oa);
            stv<V>(du, ELEM(j), ob);
        }
    }
}
#endif

#ifdef GLUE_FUSED_CAST
// bf16 -> fp32 by shifting bits (CFG_DT is the source type, bf16).
extern "C" __global__ void __launch_bounds__(CFG_THREADS) fused_cast_bf16_f32(const u16* x, float* y, i64 n) {
    constexpr int V = CFG_VEC, U = CFG_UNROLL;
    FOR_TILES(n / V) {
        float a[U][V];
        #pragma unroll
        for (int j = 0; j < U; j++) if (ELEM(j) < n) ldv<V>(x, ELEM(j), a[j]);
        #pragma unroll
        for (int j = 0; j < U; j++) if (ELEM(j) < n) stf<V>(y, ELEM(j), a[j]);
    }
}
#endif
