// The fused kernels' shared header (configured): CFG_* parameters, typed 16-byte accesses, row
// packing and block sums.
#pragma once
#include "glue_types.cuh"
#include "glue_sums.cuh"

// Each fused kernel is compiled on its own, once per launch configuration: the engine passes
// -DGLUE_<KERNEL> and the CFG_* parameters below (see the kernel family classes,
// gluelab.backend.cuda.Fused*Family: each declares its kernels' space and prunes it by shape).
// Compile-time parameters let every per-thread array live in registers (fully unrolled loops) and make every load as wide as it can be.
//   CFG_DT       element type of the activations (DT_BF16 or DT_FP32)
//   CFG_THREADS  threads per block
//   CFG_VEC      elements per thread per access (bf16 x 8 = one 16-byte access)
//   CFG_CPT      accesses per thread per row (norms: the row is held in registers)
//   CFG_UNROLL   independent accesses in flight per thread (elementwise kernels)
//   CFG_LANES    threads per row (q-norm + RoPE) or per token (routing); a power of 2 up to 32
//   CFG_PF       prefetch the next row while reducing this one (norms, q-norm + RoPE backward)
//   CFG_CS       streaming (evict-first) loads and stores for data touched once
//   CFG_L2PF     16-byte loads ask L2 to fetch 256-byte blocks (.L2::256B: fewer, longer DRAM bursts)
//   CFG_STAGES   norms and q-norm + RoPE: rows staged in shared memory by cp.async, STAGES - 1 rows in
//                flight ahead of the one being reduced, without the registers a prefetch into registers costs
//   CFG_DWFIN    backwards: dw finished in the kernel (per-block partials, a grid barrier, a column tile
//                per block) instead of by column-sum launches after it
//   CFG_ILEAVE   norm backward: block b takes rows b, b + grid, ... (RPB at a time) instead of a contiguous run
//   CFG_RPB      rows a norm block handles at once (THREADS / RPB threads per row; 32 = a warp per row)
//   CFG_MINB     blocks per SM the compiler must fit (caps registers; 1 = no cap)

#if CFG_DT == DT_BF16
#define ES 2
#else
#define ES 4
#endif

#ifndef CFG_CS
#define CFG_CS 0
#endif
#ifndef CFG_L2PF
#define CFG_L2PF 0
#endif

// CFG_MINB: blocks per SM the row kernels ask the compiler to fit (a register cap); 1 = no cap.
#ifndef CFG_MINB
#define CFG_MINB 1
#endif
#define ROW_BOUNDS __launch_bounds__(CFG_THREADS, CFG_MINB)

// 16 raw bytes; streaming forms when CFG_CS, 256-byte L2 fetches when CFG_L2PF.
#if CFG_CS && CFG_L2PF
#define LD16_OP "ld.global.cs.L2::256B.v4.u32"
#elif CFG_CS
#define LD16_OP "ld.global.cs.v4.u32"
#elif CFG_L2PF
#define LD16_OP "ld.global.L2::256B.v4.u32"
#endif
__device__ __forceinline__ uint4 ld16(const void* p) {
#ifdef LD16_OP
    uint4 v; asm volatile(LD16_OP " {%0,%1,%2,%3}, [%4];" : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(p)); return v;
#else
    return *(const uint4*)p;
#endif
}
__device__ __forceinline__ void st16(void* p, uint4 v) {
#if CFG_CS
    asm volatile("st.global.cs.v4.u32 [%0], {%1,%2,%3,%4};" :: "l"(p), "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w) : "memory");
#else
    *(uint4*)p = v;
#endif
}


// Raw bytes in accesses of A bytes (16, 8, 4 or 2: the widest that divides the span, so every
// access is aligned when the span's start is a multiple of its size).
template <int B>
struct Span {
    static constexpr int A = B % 16 == 0 ? 16 : B % 8 == 0 ? 8 : B % 4 == 0 ? 4 : 2;
    static constexpr int W = (B + 3) / 4;  // 32-bit words
};

template <int B>
__device__ __forceinline__ void ld_raw(const char* a, unsigned* w) {
    constexpr int A = Span<B>::A;
    #pragma unroll
    for (int k = 0; k < B / A; k++) {
        if constexpr (A == 16) { uint4 q = ld16(a + 16 * k); w[4 * k] = q.x; w[4 * k + 1] = q.y; w[4 * k + 2] = q.z; w[4 * k + 3] = q.w; }
        else if constexpr (A == 8) { uint2 q = *(const uint2*)(a + 8 * k); w[2 * k] = q.x; w[2 * k + 1] = q.y; }
        else if constexpr (A == 4) { w[k] = *(const unsigned*)(a + 4 * k); }
        else { w[0] = *(const u16*)a; }
    }
}

template <int B>
__device__ __forceinline__ void st_raw(char* a, const unsigned* w) {
    constexpr int A = Span<B>::A;
    #pragma unroll
    for (int k = 0; k < B / A; k++) {
        if constexpr (A == 16) st16(a + 16 * k, make_uint4(w[4 * k], w[4 * k + 1], w[4 * k + 2], w[4 * k + 3]));
        else if constexpr (A == 8) *(uint2*)(a + 8 * k) = make_uint2(w[2 * k], w[2 * k + 1]);
        else if constexpr (A == 4) *(unsigned*)(a + 4 * k) = w[k];
        else *(u16*)a = (u16)w[0];
    }
}

// Raw words of V activations (bf16 pairs or fp32 bits) to floats, and back (bf16: rounded to nearest even).
template <int V>
__device__ __forceinline__ void cvt(const unsigned* w, float* o) {
#if CFG_DT == DT_BF16
    if constexpr (V == 1) { o[0] = __uint_as_float(w[0] << 16); }
    else {
        #pragma unroll
        for (int k = 0; k < V / 2; k++) { o[2 * k] = __uint_as_float(w[k] << 16); o[2 * k + 1] = __uint_as_float(w[k] & 0xffff0000u); }
    }
#else
    #pragma unroll
    for (int k = 0; k < V; k++) o[k] = __uint_as_float(w[k]);
#endif
}

// Two floats to a bf16 pair (lo in the low half), rounded to nearest even by one instruction
// (sm_80+) where f2bf takes about six: the glue kernels that compute per element (SwiGLU, q-norm
// + RoPE) issue enough instructions for this to show. A NaN becomes the canonical bf16 NaN.
__device__ __forceinline__ unsigned pack_bf16x2(float lo, float hi) {
    unsigned w;
    asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(w) : "f"(hi), "f"(lo));
    return w;
}

template <int V>
__device__ __forceinline__ void pack(const float* o, unsigned* w) {
#if CFG_DT == DT_BF16
    if constexpr (V == 1) { w[0] = pack_bf16x2(o[0], 0.f); }
    else {
        #pragma unroll
        for (int k = 0; k < V / 2; k++) w[k] = pack_bf16x2(o[2 * k], o[2 * k + 1]);
    }
#else
    #pragma unroll
    for (int k = 0; k < V; k++) w[k] = __float_as_uint(o[k]);
#endif
}

// Words that hold V activations.
template <int V> struct Words { static constexpr int N = Span<V * ES>::W; };

// V consecutive activations starting at element e: raw words, or floats.
template <int V>
__device__ __forceinline__ void ldw(const void* p, i64 e, unsigned* w) { ld_raw<V * ES>((const char*)p + e * ES, w); }

template <int V>
__device__ __forceinline__ void stw(void* p, i64 e, const unsigned* w) { st_raw<V * ES>((char*)p + e * ES, w); }

template <int V>
__device__ __forceinline__ void ldv(const void* p, i64 e, float* o) {
    unsigned w[Words<V>::N];
    ldw<V>(p, e, w);
    cvt<V>(w, o);
}

template <int V>
__device__ __forceinline__ void stv(void* p, i64 e, const float* o) {
    unsigned w[Words<V>::N];
    pack<V>(o, w);
    stw<V>(p, e, w);
}

// V consecutive fp32 values (RoPE tables, dw partials).
template <int V>
__device__ __forceinline__ void ldf(const float* p, i64 e, float* o) {
    if constexpr (V % 4 == 0) {
        #pragma unroll
        for (int k = 0; k < V / 4; k++) { float4 q = ((const float4*)(p + e))[k]; o[4 * k] = q.x; o[4 * k + 1] = q.y; o[4 * k + 2] = q.z; o[4 * k + 3] = q.w; }
    } else if constexpr (V % 2 == 0) {
        #pragma unroll
        for (int k = 0; k < V / 2; k++) { float2 q = ((const float2*)(p + e))[k]; o[2 * k] = q.x; o[2 * k + 1] = q.y; }
    } else {
        #pragma unroll
        for (int k = 0; k < V; k++) o[k] = p[e + k];
    }
}

template <int V>
__device__ __forceinline__ void stf(float* p, i64 e, const float* o) {
    if constexpr (V % 4 == 0) {
        #pragma unroll
        for (int k = 0; k < V / 4; k++) ((float4*)(p + e))[k] = make_float4(o[4 * k], o[4 * k + 1], o[4 * k + 2], o[4 * k + 3]);
    } else {
        #pragma unroll
        for (int k = 0; k < V; k++) p[e + k] = o[k];
    }
}

__device__ __forceinline__ float round_act(float v) {
#if CFG_DT == DT_BF16
    return __uint_as_float(pack_bf16x2(0.f, v));
#else
    return v;
#endif
}

// Sums over each group of L threads (L >= 32, a multiple of 32; T / L groups per block) with at most
// one barrier: sh (N * T/32 slots) alternates between two buffers from row to row, so no warp
// overwrites a slot another warp still reads. L == 32 (a warp per row) needs no barrier.
template <int T, int L, int N>
__device__ __forceinline__ void group_sums(float* v, float* sh) {
    #pragma unroll
    for (int i = 0; i < N; i++) v[i] = warp_sum(v[i]);
    if constexpr (L > 32) {
        constexpr int W = T / 32, GW = L / 32;
        if ((threadIdx.x & 31) == 0) {
            #pragma unroll
            for (int i = 0; i < N; i++) sh[i * W + (threadIdx.x >> 5)] = v[i];
        }
        __syncthreads();
        const int g0 = (threadIdx.x / L) * GW;
        #pragma unroll
        for (int i = 0; i < N; i++) {
            float s = 0.f;
            #pragma unroll
            for (int k = 0; k < GW; k++) s += sh[i * W + g0 + k];
            v[i] = s;
        }
    }
}

template <int T, int N>
__device__ __forceinline__ void block_sums(float* v, float* sh) { group_sums<T, T, N>(v, sh); }

// Sum over the L lanes of a row group (L a power of 2, groups aligned within the warp).
template <int L>
__device__ __forceinline__ float group_sum(float v) {
    #pragma unroll
    for (int o = L / 2; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}
