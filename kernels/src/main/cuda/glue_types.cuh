// gluelab kernels' shared header: types, element-type codes, bf16 packing and runtime-typed loads
// and stores. Element types are runtime codes (CudaCodes.dtype; CudaCodesTest checks them against
// these defines). Every kernel computes in fp32 and rounds once per stored value (bf16: round to
// nearest even). Compiled at run time (NVRTC or nvcc) for the device's own arch, passed as a header.
#pragma once

typedef unsigned short u16;
typedef long long i64;

#define DT_BF16 0
#define DT_FP32 2
#define DT_FP64 3
#define DT_I64 5

// NVRTC has no math.h: negative infinity from its bit pattern.
#define NEG_INF __int_as_float(0xff800000)

__device__ __forceinline__ float bf2f(u16 b) { return __uint_as_float(((unsigned)b) << 16); }

__device__ __forceinline__ u16 f2bf(float f) {
    unsigned b = __float_as_uint(f);
    if ((b & 0x7fffffffu) > 0x7f800000u) return (u16)((b >> 16) | 0x40);
    return (u16)((b + 0x7fffu + ((b >> 16) & 1u)) >> 16);
}

__device__ __forceinline__ float ld(const void* p, i64 i, int dt) {
    switch (dt) {
        case DT_BF16: return bf2f(((const u16*)p)[i]);
        case DT_FP32: return ((const float*)p)[i];
        case DT_FP64: return (float)((const double*)p)[i];
        case DT_I64: return (float)((const i64*)p)[i];
        default: return 0.f;
    }
}

__device__ __forceinline__ void st(void* p, i64 i, float v, int dt) {
    switch (dt) {
        case DT_BF16: ((u16*)p)[i] = f2bf(v); break;
        case DT_FP32: ((float*)p)[i] = v; break;
        case DT_FP64: ((double*)p)[i] = (double)v; break;
        case DT_I64: ((i64*)p)[i] = (i64)v; break;
    }
}

// 8 consecutive elements starting at element 8*v: one 16-byte load for bf16, two for fp32.
__device__ __forceinline__ void ld8(const void* p, i64 v, int dt, float* o) {
    if (dt == DT_BF16) {
        uint4 q = ((const uint4*)p)[v];
        unsigned w[4] = {q.x, q.y, q.z, q.w};
        #pragma unroll
        for (int k = 0; k < 4; k++) { o[2 * k] = __uint_as_float(w[k] << 16); o[2 * k + 1] = __uint_as_float(w[k] & 0xffff0000u); }
    } else if (dt == DT_FP32) {
        float4 a = ((const float4*)p)[2 * v], b = ((const float4*)p)[2 * v + 1];
        o[0] = a.x; o[1] = a.y; o[2] = a.z; o[3] = a.w; o[4] = b.x; o[5] = b.y; o[6] = b.z; o[7] = b.w;
    } else {
        #pragma unroll
        for (int k = 0; k < 8; k++) o[k] = ld(p, 8 * v + k, dt);
    }
}

__device__ __forceinline__ void st8(void* p, i64 v, int dt, const float* o) {
    if (dt == DT_BF16) {
        uint4 q;
        q.x = (unsigned)f2bf(o[0]) | ((unsigned)f2bf(o[1]) << 16);
        q.y = (unsigned)f2bf(o[2]) | ((unsigned)f2bf(o[3]) << 16);
        q.z = (unsigned)f2bf(o[4]) | ((unsigned)f2bf(o[5]) << 16);
        q.w = (unsigned)f2bf(o[6]) | ((unsigned)f2bf(o[7]) << 16);
        ((uint4*)p)[v] = q;
    } else if (dt == DT_FP32) {
        ((float4*)p)[2 * v] = make_float4(o[0], o[1], o[2], o[3]);
        ((float4*)p)[2 * v + 1] = make_float4(o[4], o[5], o[6], o[7]);
    } else {
        #pragma unroll
        for (int k = 0; k < 8; k++) st(p, 8 * v + k, o[k], dt);
    }
}

// The pair of elements e, e+1 (e even): one 4-byte load or store for bf16, one 8-byte for fp32.
__device__ __forceinline__ void ld2(const void* p, i64 e, int dt, float& a, float& b) {
    if (dt == DT_BF16) { unsigned v = ((const unsigned*)p)[e >> 1]; a = __uint_as_float(v << 16); b = __uint_as_float(v & 0xffff0000u); }
    else if (dt == DT_FP32) { float2 v = ((const float2*)p)[e >> 1]; a = v.x; b = v.y; }
    else { a = ld(p, e, dt); b = ld(p, e + 1, dt); }
}

__device__ __forceinline__ void st2(void* p, i64 e, int dt, float a, float b) {
    if (dt == DT_BF16) ((unsigned*)p)[e >> 1] = (unsigned)f2bf(a) | ((unsigned)f2bf(b) << 16);
    else if (dt == DT_FP32) ((float2*)p)[e >> 1] = make_float2(a, b);
    else { st(p, e, a, dt); st(p, e + 1, b, dt); }
}

__device__ __forceinline__ float sigmoidf_(float x) { return 1.f / (1.f + __expf(-x)); }

#define GRID_STRIDE(i, n) for (i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x; i < (n); i += (i64)gridDim.x * blockDim.x)
