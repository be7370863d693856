// The backwards' weight gradient finished in the kernel (CFG_DWFIN).
#pragma once
#include "glue_config.cuh"

// CFG_DWFIN: the weight gradient finished inside the backward kernel instead of by column_sum
// launches after it. Every block writes its fp32 partial row, the blocks meet at a grid barrier, then
// each block sums a tile of columns over all partial rows in a fixed order (the same bits every run)
// and stores dw. The barrier needs every block resident at once: CudaFused launches one resident
// wave at most (the occupancy calculator's blocks per SM x SMs), so no block waits for another's SM.
#ifndef CFG_DWFIN
#define CFG_DWFIN 0
#endif
#if CFG_DWFIN
// bar[0] counts arrivals, bar[1] departures; the last block to leave zeroes both (the engine zeroes
// them once when it allocates them), so the next launch finds them at 0.
__device__ __forceinline__ void grid_barrier(unsigned* bar) {
    __syncthreads();
    if (threadIdx.x == 0) {
        __threadfence();
        atomicAdd(bar, 1u);
        unsigned seen;
        while (true) {
            asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(seen) : "l"(bar) : "memory");
            if (seen >= gridDim.x) break;
            __nanosleep(40);
        }
    }
    __syncthreads();
}

__device__ __forceinline__ void grid_depart(unsigned* bar) {
    if (threadIdx.x == 0 && atomicAdd(bar + 1, 1u) == gridDim.x - 1) { bar[0] = 0; bar[1] = 0; }
}

// dw[j] = sum over parts p of partial[p, j] (n % 4 == 0), columns in tiles of Q float4 quads, Q the
// power of 2 up to 8 that gives every block about one tile (one round of L2 loads): tile t to block
// t, t + grid, ...; thread (quad q, lane l) adds parts l, l + T / Q, ... of its quad, the lanes of a
// warp that share a quad add by shuffles (a fixed tree), the warps in shared memory in warp order.
// Partials are read from L2 (ld.cg): other blocks wrote them.
template <int T>
__device__ __forceinline__ void finish_columns(const float* partial, int parts, int n, void* out) {
    constexpr int QMAX = 8, W = T / 32;
    __shared__ float4 fin[W][QMAX];
    const int quads = n / 4;
    int Q = 1;
    while (Q < QMAX && Q * (int)gridDim.x < quads) Q <<= 1;
    const int q = threadIdx.x % Q, l = threadIdx.x / Q, lanes = T / Q, tiles = (quads + Q - 1) / Q;
    for (int tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
        const int quad = tile * Q + q;
        float4 a = make_float4(0.f, 0.f, 0.f, 0.f);
        if (quad < quads) {
            #pragma unroll 4
            for (int p = l; p < parts; p += lanes) {
                float4 v = __ldcg((const float4*)(partial + (i64)p * n) + quad);
                a.x += v.x; a.y += v.y; a.z += v.z; a.w += v.w;
            }
        }
        for (int o = Q; o < 32; o <<= 1) {
            a.x += __shfl_xor_sync(0xffffffffu, a.x, o); a.y += __shfl_xor_sync(0xffffffffu, a.y, o);
            a.z += __shfl_xor_sync(0xffffffffu, a.z, o); a.w += __shfl_xor_sync(0xffffffffu, a.w, o);
        }
        if ((threadIdx.x & 31) < Q) fin[threadIdx.x >> 5][q] = a;
        __syncthreads();
        if (threadIdx.x < Q && quad < quads) {
            float s[4] = {0.f, 0.f, 0.f, 0.f};
            #pragma unroll
            for (int w = 0; w < W; w++) { float4 v = fin[w][q]; s[0] += v.x; s[1] += v.y; s[2] += v.z; s[3] += v.w; }
            stv<4>(out, (i64)quad * 4, s);
        }
        __syncthreads();
    }
}
#endif
