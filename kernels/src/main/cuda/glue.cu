// gluelab glue-op kernels. Compiled at run time (NVRTC or nvcc) for the device's own arch.
// Element types are runtime codes (CudaCodes.dtype; CudaCodesTest checks them against these defines).
// Every kernel computes in fp32 and rounds once per stored value (bf16: round to nearest even).
// The base module (no GLUE_CONFIG): eager primitives (one per framework op, each writing a full
// intermediate), column sums, calibration and timing helpers. The fused kernels follow, each compiled
// on its own per launch configuration.

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

__device__ __forceinline__ float warp_sum(float v) {
    #pragma unroll
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}

__device__ __forceinline__ float warp_max(float v) {
    #pragma unroll
    for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
    return v;
}

// Sum over the block; every thread gets the result.
__device__ float block_sum(float v) {
    __shared__ float sh[32];
    int lane = threadIdx.x & 31, wid = threadIdx.x >> 5, nw = (blockDim.x + 31) >> 5;
    v = warp_sum(v);
    __syncthreads();
    if (lane == 0) sh[wid] = v;
    __syncthreads();
    v = threadIdx.x < nw ? sh[threadIdx.x] : 0.f;
    if (wid == 0) v = warp_sum(v);
    if (threadIdx.x == 0) sh[0] = v;
    __syncthreads();
    float r = sh[0];
    __syncthreads();
    return r;
}

__device__ __forceinline__ float sigmoidf_(float x) { return 1.f / (1.f + __expf(-x)); }

#define GRID_STRIDE(i, n) for (i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x; i < (n); i += (i64)gridDim.x * blockDim.x)

#ifndef GLUE_CONFIG  // the base module: eager primitives, column sums, calibration

// ---------------------------------------------------------------- eager primitives

// Unary ops: codes of the engine's EagerOps.Unary (CudaCodes); CudaCodesTest checks they agree.
#define UN_SQUARE 0
#define UN_CUBE 1
#define UN_SILU 2
#define UN_SIGMOID 3
#define UN_ADD_SCALAR 4
#define UN_MUL_SCALAR 5
#define UN_RSQRT 6
#define UN_CAST 7

__device__ __forceinline__ float unary_op(int op, float x, float s) {
    switch (op) {
        case UN_SQUARE: return x * x;
        case UN_CUBE: return x * x * x;
        case UN_SILU: return x * sigmoidf_(x);
        case UN_SIGMOID: return sigmoidf_(x);
        case UN_ADD_SCALAR: return x + s;
        case UN_MUL_SCALAR: return x * s;
        case UN_RSQRT: return rsqrtf(x);
        case UN_CAST: return x;
        default: return __int_as_float(0x7fffffff);  // an unknown code shows as NaN, never as a plausible value
    }
}

extern "C" __global__ void prim_unary(const void* in, void* out, i64 n, int op, float s, int dti, int dto) {
    if (n % 8 == 0) {
        float v[8];
        GRID_STRIDE(i, n / 8) {
            ld8(in, i, dti, v);
            #pragma unroll
            for (int k = 0; k < 8; k++) v[k] = unary_op(op, v[k], s);
            st8(out, i, dto, v);
        }
    } else {
        GRID_STRIDE(i, n) st(out, i, unary_op(op, ld(in, i, dti), s), dto);
    }
}

// Binary ops: codes of EagerOps.Binary (CudaCodes).
#define BIN_ADD 0
#define BIN_SUB 1
#define BIN_MUL 2

__device__ __forceinline__ float binary_op(int op, float a, float b) {
    switch (op) {
        case BIN_ADD: return a + b;
        case BIN_SUB: return a - b;
        case BIN_MUL: return a * b;
        default: return __int_as_float(0x7fffffff);
    }
}

extern "C" __global__ void prim_binary(const void* a, const void* b, void* out, i64 n, int op, int dta, int dtb, int dto) {
    if (n % 8 == 0) {
        float x[8], y[8];
        GRID_STRIDE(i, n / 8) {
            ld8(a, i, dta, x);
            ld8(b, i, dtb, y);
            #pragma unroll
            for (int k = 0; k < 8; k++) x[k] = binary_op(op, x[k], y[k]);
            st8(out, i, dto, x);
        }
    } else {
        GRID_STRIDE(i, n) st(out, i, binary_op(op, ld(a, i, dta), ld(b, i, dtb)), dto);
    }
}

// Broadcast modes (CudaCodes.Broadcast): out = x * v[row], x * v[col], v[row] * scale, x / v[row].
#define BC_MUL_ROWS 0
#define BC_MUL_COLS 1
#define BC_EXPAND_ROWS 2
#define BC_DIV_ROWS 3

extern "C" __global__ void prim_broadcast(const void* x, const void* v, void* out, i64 rows, i64 n, int mode, float scale,
                                          int dtx, int dtv, int dto) {
    i64 total = rows * n;
    if (n % 8 == 0) {
        float a[8];
        GRID_STRIDE(i, total / 8) {
            i64 e = 8 * i, row = e / n, col = e % n;
            if (mode != BC_EXPAND_ROWS) ld8(x, i, dtx, a);
            #pragma unroll
            for (int k = 0; k < 8; k++) {
                if (mode == BC_MUL_ROWS) a[k] *= ld(v, row, dtv);
                else if (mode == BC_MUL_COLS) a[k] *= ld(v, col + k, dtv);
                else if (mode == BC_EXPAND_ROWS) a[k] = ld(v, row, dtv) * scale;
                else a[k] /= ld(v, row, dtv);
            }
            st8(out, i, dto, a);
        }
    } else {
        GRID_STRIDE(i, total) {
            i64 row = i / n, col = i % n;
            float r;
            if (mode == BC_MUL_ROWS) r = ld(x, i, dtx) * ld(v, row, dtv);
            else if (mode == BC_MUL_COLS) r = ld(x, i, dtx) * ld(v, col, dtv);
            else if (mode == BC_EXPAND_ROWS) r = ld(v, row, dtv) * scale;
            else r = ld(x, i, dtx) / ld(v, row, dtv);
            st(out, i, r, dto);
        }
    }
}

// out[row] = scale * sum_j x[row, j]; one block per row.
extern "C" __global__ void prim_sum_last(const void* x, void* out, i64 rows, i64 n, float scale, int dtx, int dto) {
    for (i64 row = blockIdx.x; row < rows; row += gridDim.x) {
        float acc = 0.f;
        for (i64 j = threadIdx.x; j < n; j += blockDim.x) acc += ld(x, row * n + j, dtx);
        acc = block_sum(acc);
        if (threadIdx.x == 0) st(out, row, acc * scale, dto);
    }
}

// Column sums, stage 1: block b sums rows [b*rpb, (b+1)*rpb) into partial[b, :] (fp32).
extern "C" __global__ void prim_col_partial(const void* x, float* partial, i64 rows, i64 n, i64 rpb, int dtx) {
    i64 r0 = (i64)blockIdx.x * rpb, r1 = min(rows, r0 + rpb);
    for (i64 j = threadIdx.x; j < n; j += blockDim.x) {
        float acc = 0.f;
        for (i64 r = r0; r < r1; r++) acc += ld(x, r * n + j, dtx);
        partial[(i64)blockIdx.x * n + j] = acc;
    }
}

// Column sums, stage 2 (also the last step of every fused backward with a weight grad). Block
// (32, 32): threadIdx.x picks one of 32 adjacent columns (coalesced), threadIdx.y one of 32 lanes
// over the parts; lanes combine in shared memory in a fixed order, so the result is deterministic.
extern "C" __global__ void column_sum(const float* partial, i64 parts, i64 n, void* out, int dto) {
    __shared__ float sh[32][33];
    i64 j = (i64)blockIdx.x * 32 + threadIdx.x;
    float acc = 0.f;
    if (j < n) {
        #pragma unroll 4
        for (i64 p = threadIdx.y; p < parts; p += 32) acc += partial[p * n + j];
    }
    sh[threadIdx.y][threadIdx.x] = acc;
    __syncthreads();
    if (threadIdx.y == 0 && j < n) {
        float s = 0.f;
        for (int k = 0; k < 32; k++) s += sh[k][threadIdx.x];
        st(out, j, s, dto);
    }
}

// Column sums of a tall partial buffer (thousands of parts, few columns: q-norm's dw), stage 1:
// block b sums the parts of slice b / tiles ([slice * per, ...), per = 32 lanes x 8 loads each, all
// in flight) for the 32 columns of tile b % tiles into out[slice, :] (fp32), in the same fixed
// order as column_sum, which then adds the slices. Many blocks instead of n / 32 long loops.
extern "C" __global__ void column_sum_slices(const float* partial, i64 parts, i64 n, i64 per, float* out) {
    __shared__ float sh[32][33];
    const i64 tiles = (n + 31) / 32, slice = blockIdx.x / tiles;
    const i64 j = (blockIdx.x % tiles) * 32 + threadIdx.x, p1 = min(parts, (slice + 1) * per);
    float acc = 0.f;
    if (j < n) {
        #pragma unroll 8
        for (i64 p = slice * per + threadIdx.y; p < p1; p += 32) acc += partial[p * n + j];
    }
    sh[threadIdx.y][threadIdx.x] = acc;
    __syncthreads();
    if (threadIdx.y == 0 && j < n) {
        float s = 0.f;
        for (int k = 0; k < 32; k++) s += sh[k][threadIdx.x];
        out[slice * n + j] = s;
    }
}

extern "C" __global__ void prim_rope_product(const void* x, int parity, const void* f, void* out, i64 rows, i64 heads, i64 half,
                                             int dtx, int dtf, int dto) {
    GRID_STRIDE(i, rows * half) {
        i64 row = i / half, p = i % half;
        st(out, i, ld(x, row * 2 * half + 2 * p + parity, dtx) * ld(f, (row / heads) * half + p, dtf), dto);
    }
}

extern "C" __global__ void prim_interleave(const void* even, const void* odd, void* out, i64 n, int dt) {
    GRID_STRIDE(i, n) {
        st(out, 2 * i, ld(even, i, dt), dt);
        st(out, 2 * i + 1, ld(odd, i, dt), dt);
    }
}

extern "C" __global__ void prim_complex_mul(const float* x, const float* freqs, float* out, i64 rows, i64 heads, i64 half, int conj) {
    GRID_STRIDE(i, rows * half) {
        i64 row = i / half, p = i % half, f = ((row / heads) * half + p) * 2;
        float2 a = ((const float2*)x)[i];
        float c = freqs[f], s = conj ? -freqs[f + 1] : freqs[f + 1];
        ((float2*)out)[i] = make_float2(a.x * c - a.y * s, a.x * s + a.y * c);
    }
}

extern "C" __global__ void prim_silu_backward(const void* grad, const void* g, void* out, i64 n, int dt) {
    GRID_STRIDE(i, n) {
        float x = ld(g, i, dt), sg = sigmoidf_(x);
        st(out, i, ld(grad, i, dt) * sg * (1.f + x * (1.f - sg)), dt);
    }
}

#define MAX_PER_LANE 16

// Softmax or sigmoid of one row of E logits, one warp per row; values stay in registers.
__device__ void warp_scores(const void* logits, i64 row, int e, int softmax, int dt, float* v, int lane) {
    float m = NEG_INF;
    for (int k = 0; k < MAX_PER_LANE; k++) {
        int j = lane + 32 * k;
        v[k] = j < e ? ld(logits, row * e + j, dt) : NEG_INF;
        m = fmaxf(m, v[k]);
    }
    if (softmax) {
        m = warp_max(m);
        float s = 0.f;
        for (int k = 0; k < MAX_PER_LANE; k++) {
            int j = lane + 32 * k;
            v[k] = j < e ? __expf(v[k] - m) : 0.f;
            s += v[k];
        }
        s = warp_sum(s);
        for (int k = 0; k < MAX_PER_LANE; k++) v[k] /= s;
    } else {
        for (int k = 0; k < MAX_PER_LANE; k++) v[k] = (lane + 32 * k) < e ? sigmoidf_(v[k]) : NEG_INF;
    }
}

// k rounds of a warp argmax (ties to the lower index); picked values marked taken.
__device__ void warp_topk(float* v, int e, int k, int lane, float* outv, i64* outi) {
    unsigned taken = 0;
    for (int slot = 0; slot < k; slot++) {
        float best = NEG_INF;
        int bi = 0x7fffffff;
        for (int q = 0; q < MAX_PER_LANE; q++) {
            int j = lane + 32 * q;
            if (j < e && !(taken & (1u << q)) && (v[q] > best || (v[q] == best && j < bi))) { best = v[q]; bi = j; }
        }
        for (int o = 16; o > 0; o >>= 1) {
            float ob = __shfl_xor_sync(0xffffffffu, best, o);
            int oi = __shfl_xor_sync(0xffffffffu, bi, o);
            if (ob > best || (ob == best && oi < bi)) { best = ob; bi = oi; }
        }
        if ((bi & 31) == lane) taken |= 1u << (bi >> 5);
        outv[slot] = best;
        outi[slot] = bi;
    }
}

extern "C" __global__ void prim_router_scores(const void* logits, float* scores, i64 tokens, int e, int softmax, int dt) {
    int lane = threadIdx.x & 31;
    i64 row = ((i64)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    if (row >= tokens) return;
    float v[MAX_PER_LANE];
    warp_scores(logits, row, e, softmax, dt, v, lane);
    for (int k = 0; k < MAX_PER_LANE; k++) if (lane + 32 * k < e) scores[row * e + lane + 32 * k] = v[k];
}

extern "C" __global__ void prim_topk(const float* scores, float* values, i64* indices, i64 tokens, int e, int k) {
    int lane = threadIdx.x & 31;
    i64 row = ((i64)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    if (row >= tokens) return;
    float v[MAX_PER_LANE], ov[32];
    i64 oi[32];
    for (int q = 0; q < MAX_PER_LANE; q++) v[q] = lane + 32 * q < e ? scores[row * e + lane + 32 * q] : NEG_INF;
    warp_topk(v, e, k, lane, ov, oi);
    if (lane < k) {
        for (int s = 0; s < k; s++) if (s == lane) { values[row * k + s] = ov[s]; indices[row * k + s] = oi[s]; }
    }
}

extern "C" __global__ void prim_cat(const void* a, const void* b, void* out, i64 rows, i64 ha, i64 hb, int dt) {
    i64 d = ha + hb;
    GRID_STRIDE(i, rows * d) {
        i64 row = i / d, col = i % d;
        st(out, i, col < ha ? ld(a, row * ha + col, dt) : ld(b, row * hb + col - ha, dt), dt);
    }
}

// ---------------------------------------------------------------- calibration and timing

// Copy and triad for bandwidth calibration: each block owns a contiguous tile (T threads x U
// 16-byte vectors), loads all of it before storing, and exits (no grid-stride tail), as framework
// copy kernels do. Several forms are compiled; calibration keeps the fastest (CudaDevice.COPY_FORMS).
// Launch with ceil(n4 / (T * U)) blocks of T.
template <bool CS>
__device__ __forceinline__ float4 calib_ld(const float4* p) {
    if (CS) { float4 v; asm volatile("ld.global.cs.v4.f32 {%0,%1,%2,%3}, [%4];" : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w) : "l"(p)); return v; }
    return *p;
}
template <bool CS>
__device__ __forceinline__ void calib_st(float4* p, float4 v) {
    if (CS) asm volatile("st.global.cs.v4.f32 [%0], {%1,%2,%3,%4};" :: "l"(p), "f"(v.x), "f"(v.y), "f"(v.z), "f"(v.w) : "memory");
    else *p = v;
}
template <int T, int U, bool CS>
__device__ __forceinline__ void calib_copy_tile(const float4* __restrict__ src, float4* __restrict__ dst, i64 n4) {
    i64 base = (i64)blockIdx.x * (T * U) + threadIdx.x;
    float4 v[U];
    #pragma unroll
    for (int k = 0; k < U; k++) if (base + k * T < n4) v[k] = calib_ld<CS>(src + base + k * T);
    #pragma unroll
    for (int k = 0; k < U; k++) if (base + k * T < n4) calib_st<CS>(dst + base + k * T, v[k]);
}
#define CALIB_COPY(name, T, U, CS) \
    extern "C" __global__ void __launch_bounds__(T) name(const float4* __restrict__ src, float4* __restrict__ dst, i64 n4) { calib_copy_tile<T, U, CS>(src, dst, n4); }
CALIB_COPY(calib_copy, 256, 4, false)
CALIB_COPY(calib_copy_256x8, 256, 8, false)
CALIB_COPY(calib_copy_512x4, 512, 4, false)
CALIB_COPY(calib_copy_128x8, 128, 8, false)
CALIB_COPY(calib_copy_256x4_cs, 256, 4, true)
CALIB_COPY(calib_copy_256x8_cs, 256, 8, true)
CALIB_COPY(calib_copy_512x2_cs, 512, 2, true)
CALIB_COPY(calib_copy_1024x2, 1024, 2, false)

extern "C" __global__ void calib_triad(float4* __restrict__ a, const float4* __restrict__ b, const float4* __restrict__ c, float s, i64 n4) {
    i64 base = (i64)blockIdx.x * 1024 + threadIdx.x;
    float4 x[4], y[4];
    #pragma unroll
    for (int k = 0; k < 4; k++) if (base + k * 256 < n4) { x[k] = b[base + k * 256]; y[k] = c[base + k * 256]; }
    #pragma unroll
    for (int k = 0; k < 4; k++) {
        if (base + k * 256 < n4) a[base + k * 256] = make_float4(x[k].x + s * y[k].x, x[k].y + s * y[k].y, x[k].z + s * y[k].z, x[k].w + s * y[k].w);
    }
}

// Holds the stream until the host sets *flag (host-mapped memory), so the launches queued behind
// it start back to back and host enqueue latency is not timed; gives up after timeout_ns.
extern "C" __global__ void hold_stream(volatile int* flag, i64 timeout_ns) {
    i64 start;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
    while (*flag == 0) {
        i64 now;
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
        if (now - start > timeout_ns) break;
    }
}

#endif  // the base module

// ---------------------------------------------------------------- fused kernels (configured)
//
// Each fused kernel is compiled on its own, once per launch configuration: the engine passes
// -DGLUE_CONFIG -DGLUE_<KERNEL> and the CFG_* parameters below (see gluelab.device.cuda.FusedConfigs,
// which declares each kernel's space and prunes it by shape). Compile-time parameters let every
// per-thread array live in registers (fully unrolled loops) and make every load as wide as it can be.
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
#ifdef GLUE_CONFIG

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

// 16 bytes global -> shared without passing through registers (cp.async, sm_80+), completed per
// commit group: wait<N> returns once at most N of this thread's groups are still in flight.
__device__ __forceinline__ void cp_async16(void* smem, const void* g) {
    unsigned s;
    asm("{ .reg .u64 t; cvta.to.shared.u64 t, %1; cvt.u32.u64 %0, t; }" : "=r"(s) : "l"(smem));
#if CFG_L2PF
    asm volatile("cp.async.cg.shared.global.L2::256B [%0], [%1], 16;" :: "r"(s), "l"(g) : "memory");
#else
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" :: "r"(s), "l"(g) : "memory");
#endif
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;" ::: "memory"); }
template <int N>
__device__ __forceinline__ void cp_async_wait() { asm volatile("cp.async.wait_group %0;" :: "n"(N) : "memory"); }

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

#if defined(GLUE_FUSED_RMSNORM_BWD) || defined(GLUE_FUSED_QNORM_ROPE_BWD)
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
#endif

#endif  // GLUE_CONFIG

#if defined(GLUE_FUSED_RMSNORM_FWD) || defined(GLUE_FUSED_RMSNORM_BWD)
// The norms' row layout: a block of THREADS handles RPB rows at a time, L = THREADS / RPB threads per
// row (L = 32: a warp per row, no barrier); thread `lane` of a row holds its accesses lane, lane + L,
// ... (CPT of them, VEC elements each) as raw words (bf16 pairs), converted where they are used, so a
// row and the next one (CFG_PF) fit the registers. w is held in registers when it is small
// (NORM_WREG), else read at each use (the same 2n bytes for every row: L1 hits).
#ifndef CFG_RPB
#define CFG_RPB 1
#endif
#ifndef CFG_PF
#define CFG_PF 0
#endif
#define NORM_L (CFG_THREADS / CFG_RPB)
#define NORM_WD (Words<CFG_VEC>::N)
#define NORM_WREG (CFG_CPT * NORM_WD <= 16)
#ifndef CFG_STAGES
#define CFG_STAGES 0
#endif
#ifndef CFG_ILEAVE
#define CFG_ILEAVE 0
#endif
#if CFG_STAGES
static_assert(NORM_WD == 4, "staged norm rows move 16-byte accesses");
// A staged access (16 bytes, 4 raw words) from the ring back into registers. The ring is
// [stage][tensor][access][thread]: a thread reads back only what it copied itself, so waiting for its
// own copies (cp.async.wait_group) is all the ordering it needs, no barrier.
__device__ __forceinline__ void norm_take(const uint4& s, unsigned* w) { w[0] = s.x; w[1] = s.y; w[2] = s.z; w[3] = s.w; }

// The ring of NT tensors in dynamic shared memory (STAGES * NT * CPT * THREADS * 16 bytes: the
// engine sizes it, CudaFused / FusedConfigs.stagedBytes).
template <int NT>
using NormRing = uint4 (*)[NT][CFG_CPT][CFG_THREADS];

template <int NT>
__device__ __forceinline__ NormRing<NT> norm_ring() {
    extern __shared__ uint4 ring_mem[];
    return reinterpret_cast<NormRing<NT>>(ring_mem);
}

// Copies this thread's accesses of row rw of the NT tensors src into `slot` when `has` (the row is
// this group's), and commits one group either way, so the groups stay counted.
template <int NT>
__device__ __forceinline__ void norm_issue(NormRing<NT> ring, int slot, const void* const (&src)[NT], i64 rw, bool has, int lane,
                                           int chunks, int n) {
    if (has) {
        #pragma unroll
        for (int c = 0; c < CFG_CPT; c++) {
            const int q = lane + c * NORM_L;
            if (q >= chunks) continue;
            const i64 e = (rw * n + (i64)q * CFG_VEC) * ES;
            #pragma unroll
            for (int t = 0; t < NT; t++) cp_async16(&ring[slot][t][c][threadIdx.x], (const char*)src[t] + e);
        }
    }
    cp_async_commit();
}

// Waits for the row in `slot` (the oldest in flight: S - 1 newer groups may still be) and moves
// this thread's accesses of it from the ring to the registers dst (one array per tensor).
template <int NT, int S>
__device__ __forceinline__ void norm_take_row(NormRing<NT> ring, int slot, unsigned (*const (&dst)[NT])[NORM_WD], bool live, int lane,
                                              int chunks) {
    cp_async_wait<S - 1>();
    if (!live) return;
    #pragma unroll
    for (int c = 0; c < CFG_CPT; c++) {
        if (lane + c * NORM_L >= chunks) continue;
        #pragma unroll
        for (int t = 0; t < NT; t++) norm_take(ring[slot][t][c][threadIdx.x], dst[t][c]);
    }
}
#endif

// w's access c as floats (from the registers, or loaded).
__device__ __forceinline__ void norm_w(const void* w, const unsigned (*wr)[NORM_WD], int c, int q, float* o) {
    if constexpr (NORM_WREG) cvt<CFG_VEC>(wr[c], o);
    else ldv<CFG_VEC>(w, (i64)q * CFG_VEC, o);
}
#endif

#ifdef GLUE_FUSED_RMSNORM_FWD
// RMSNorm forward (CFG_ADD: with the residual add, h = x + r stored as soon as it is formed and
// normalised as stored). Blocks loop over rows (a persistent grid). CFG_PF: the next row's loads are
// issued before this row's reduction, so loads stay in flight across it.
extern "C" __global__ void ROW_BOUNDS fused_rmsnorm_fwd(const void* x, const void* r, const void* w, void* h, void* y,
                                                                       i64 rows, int n, float eps) {
    constexpr int T = CFG_THREADS, V = CFG_VEC, C = CFG_CPT, RPB = CFG_RPB, L = NORM_L, WD = NORM_WD;
    __shared__ float sh[2][T / 32];
    const int chunks = n / V, lane = threadIdx.x % L;
    unsigned wr[C][WD], xr[C][WD], rr[C][WD];
    if constexpr (NORM_WREG) {
        #pragma unroll
        for (int c = 0; c < C; c++) { int q = lane + c * L; if (q < chunks) ldw<V>(w, (i64)q * V, wr[c]); }
    }
    auto load = [&](i64 row, unsigned (&xd)[C][WD], unsigned (&rd)[C][WD]) {
        #pragma unroll
        for (int c = 0; c < C; c++) {
            int q = lane + c * L;
            if (q >= chunks) continue;
            ldw<V>(x, row * n + (i64)q * V, xd[c]);
#if CFG_ADD
            ldw<V>(r, row * n + (i64)q * V, rd[c]);
#endif
        }
    };
    const i64 step = (i64)gridDim.x * RPB;
    i64 row = (i64)blockIdx.x * RPB + threadIdx.x / L;
#if CFG_STAGES
    constexpr int S = CFG_STAGES, NT = 1 + CFG_ADD;
    const NormRing<NT> ring = norm_ring<NT>();
#if CFG_ADD
    const void* const src[NT] = {x, r};
    unsigned (*const dst[NT])[WD] = {xr, rr};
#else
    const void* const src[NT] = {x};
    unsigned (*const dst[NT])[WD] = {xr};
#endif
    auto issue = [&](i64 rw, int slot) { norm_issue<NT>(ring, slot, src, rw, rw < rows, lane, chunks, n); };
    #pragma unroll
    for (int s = 0; s < S - 1; s++) issue(row + s * step, s);
    int slot = 0;
#elif CFG_PF
    unsigned xn[C][WD], rn[C][WD];
    if (row < rows) load(row, xr, rr);
#endif
    int parity = 0;
    // The loop's bounds are the block's (every thread reaches the barrier); `row` is this group's.
    for (i64 base = (i64)blockIdx.x * RPB; base < rows; base += step, row += step, parity ^= 1) {
        const bool live = row < rows;
#if CFG_STAGES
        issue(row + (S - 1) * step, slot == 0 ? S - 1 : slot - 1);
        norm_take_row<NT, S>(ring, slot, dst, live, lane, chunks);
        slot = slot + 1 == S ? 0 : slot + 1;
#elif CFG_PF
        if (row + step < rows) load(row + step, xn, rn);
#else
        if (live) load(row, xr, rr);
#endif
        float ss[1] = {0.f};
        #pragma unroll
        for (int c = 0; c < C; c++) {
            int q = lane + c * L;
            if (!live || q >= chunks) continue;
            float a[V];
            cvt<V>(xr[c], a);
#if CFG_ADD
            float b[V];
            cvt<V>(rr[c], b);
            #pragma unroll
            for (int k = 0; k < V; k++) a[k] = round_act(a[k] + b[k]);
            pack<V>(a, xr[c]);
            stw<V>(h, row * n + (i64)q * V, xr[c]);
#endif
            #pragma unroll
            for (int k = 0; k < V; k++) ss[0] += a[k] * a[k];
        }
        group_sums<T, L, 1>(ss, sh[parity]);
        const float rs = rsqrtf(ss[0] / n + eps);
        #pragma unroll
        for (int c = 0; c < C; c++) {
            int q = lane + c * L;
            if (!live || q >= chunks) continue;
            float a[V], wf[V];
            cvt<V>(xr[c], a);
            norm_w(w, wr, c, q, wf);
            #pragma unroll
            for (int k = 0; k < V; k++) a[k] = a[k] * rs * wf[k];
            stv<V>(y, row * n + (i64)q * V, a);
        }
#if CFG_PF && !CFG_STAGES
        #pragma unroll
        for (int c = 0; c < C; c++) {
            #pragma unroll
            for (int k = 0; k < WD; k++) { xr[c][k] = xn[c][k]; rr[c][k] = rn[c][k]; }
        }
#endif
    }
}
#endif

#ifdef GLUE_FUSED_RMSNORM_BWD
// RMSNorm backward: block b handles rows [b*rpb, (b+1)*rpb), RPB at a time; each group of L threads
// keeps its dw partial in registers (fp32) and writes it to partial[b * RPB + group, :];
// column_sum finishes dw (the two-stage weight-gradient reduction, no atomics). CFG_ADD: the
// residual's gradient (addend) is added to dx. CFG_PF: the next row's loads are issued before this
// row's reduction.
extern "C" __global__ void ROW_BOUNDS fused_rmsnorm_bwd(const void* x, const void* w, const void* dy, const void* addend,
                                                                       void* dx, float* partial, i64 rows, int n, i64 rpb, float eps,
                                                                       void* dwo, unsigned* bar) {
    constexpr int T = CFG_THREADS, V = CFG_VEC, C = CFG_CPT, RPB = CFG_RPB, L = NORM_L, WD = NORM_WD;
    __shared__ float sh[2][2 * (T / 32)];
    const int chunks = n / V, lane = threadIdx.x % L, grp = threadIdx.x / L;
    unsigned wr[C][WD], xr[C][WD], gr[C][WD], ar[C][WD];
    float dw[C][V];
    #pragma unroll
    for (int c = 0; c < C; c++) {
        int q = lane + c * L;
        #pragma unroll
        for (int k = 0; k < V; k++) dw[c][k] = 0.f;
        if (NORM_WREG && q < chunks) ldw<V>(w, (i64)q * V, wr[c]);
    }
    auto load = [&](i64 row, unsigned (&xd)[C][WD], unsigned (&gd)[C][WD], unsigned (&ad)[C][WD]) {
        #pragma unroll
        for (int c = 0; c < C; c++) {
            int q = lane + c * L;
            if (q >= chunks) continue;
            ldw<V>(x, row * n + (i64)q * V, xd[c]);
            ldw<V>(dy, row * n + (i64)q * V, gd[c]);
#if CFG_ADD
            ldw<V>(addend, row * n + (i64)q * V, ad[c]);
#endif
        }
    };
    // Block b's rows: [b * rpb, (b + 1) * rpb), RPB at a time; CFG_ILEAVE: b * RPB, (b + grid) * RPB, ...
    // (the grid moves through the rows together, so the rows in flight at once are neighbours).
#if CFG_ILEAVE
    const i64 r0 = (i64)blockIdx.x * RPB, r1 = rows, step = (i64)gridDim.x * RPB;
    (void)rpb;
#else
    const i64 r0 = (i64)blockIdx.x * rpb, r1 = min(rows, r0 + rpb), step = RPB;
#endif
    i64 row = r0 + grp;
#if CFG_STAGES
    constexpr int S = CFG_STAGES, NT = 2 + CFG_ADD;
    const NormRing<NT> ring = norm_ring<NT>();
#if CFG_ADD
    const void* const src[NT] = {x, dy, addend};
    unsigned (*const dst[NT])[WD] = {xr, gr, ar};
#else
    const void* const src[NT] = {x, dy};
    unsigned (*const dst[NT])[WD] = {xr, gr};
#endif
    auto issue = [&](i64 rw, int slot) { norm_issue<NT>(ring, slot, src, rw, rw < r1, lane, chunks, n); };
    #pragma unroll
    for (int s = 0; s < S - 1; s++) issue(row + s * step, s);
    int slot = 0;
#elif CFG_PF
    unsigned xn[C][WD], gn[C][WD], an[C][WD];
    if (row < r1) load(row, xr, gr, ar);
#endif
    int parity = 0;
    for (i64 base = r0; base < r1; base += step, row += step, parity ^= 1) {
        const bool live = row < r1;
#if CFG_STAGES
        issue(row + (S - 1) * step, slot == 0 ? S - 1 : slot - 1);
        norm_take_row<NT, S>(ring, slot, dst, live, lane, chunks);
        slot = slot + 1 == S ? 0 : slot + 1;
#elif CFG_PF
        if (row + step < r1) load(row + step, xn, gn, an);
#else
        if (live) load(row, xr, gr, ar);
#endif
        float sums[2] = {0.f, 0.f};
        #pragma unroll
        for (int c = 0; c < C; c++) {
            int q = lane + c * L;
            if (!live || q >= chunks) continue;
            float a[V], g[V], wf[V];
            cvt<V>(xr[c], a);
            cvt<V>(gr[c], g);
            norm_w(w, wr, c, q, wf);
            #pragma unroll
            for (int k = 0; k < V; k++) { sums[0] += a[k] * a[k]; sums[1] += g[k] * wf[k] * a[k]; }
        }
        group_sums<T, L, 2>(sums, sh[parity]);
        const float rs = rsqrtf(sums[0] / n + eps);
        const float dot = sums[1] * rs / n;
        #pragma unroll
        for (int c = 0; c < C; c++) {
            int q = lane + c * L;
            if (!live || q >= chunks) continue;
            float a[V], g[V], wf[V], o[V];
            cvt<V>(xr[c], a);
            cvt<V>(gr[c], g);
            norm_w(w, wr, c, q, wf);
#if CFG_ADD
            cvt<V>(ar[c], o);
#else
            #pragma unroll
            for (int k = 0; k < V; k++) o[k] = 0.f;
#endif
            #pragma unroll
            for (int k = 0; k < V; k++) {
                float nv = a[k] * rs;
                dw[c][k] += g[k] * nv;
                o[k] += rs * (g[k] * wf[k] - nv * dot);
            }
            stv<V>(dx, row * n + (i64)q * V, o);
        }
#if CFG_PF && !CFG_STAGES
        #pragma unroll
        for (int c = 0; c < C; c++) {
            #pragma unroll
            for (int k = 0; k < WD; k++) { xr[c][k] = xn[c][k]; gr[c][k] = gn[c][k]; ar[c][k] = an[c][k]; }
        }
#endif
    }
#if CFG_DWFIN
    // The block's row groups' partials summed into one (group order) through the ring, which is free
    // once every copy has landed; then dw is finished across the grid (finish_columns).
    static_assert(CFG_STAGES || RPB == 1, "dw finished in the kernel: the row groups meet in the staging ring");
    if constexpr (RPB > 1) {
#if CFG_STAGES
        cp_async_wait<0>();
        __syncthreads();
        float* red = reinterpret_cast<float*>(norm_ring<NT>());
        if (grp > 0) {
            #pragma unroll
            for (int c = 0; c < C; c++) {
                #pragma unroll
                for (int k = 0; k < V; k++) red[(((grp - 1) * C + c) * V + k) * L + lane] = dw[c][k];
            }
        }
        __syncthreads();
        if (grp == 0) {
            for (int g = 1; g < RPB; g++) {
                #pragma unroll
                for (int c = 0; c < C; c++) {
                    #pragma unroll
                    for (int k = 0; k < V; k++) dw[c][k] += red[(((g - 1) * C + c) * V + k) * L + lane];
                }
            }
        }
#endif
    }
    if (grp == 0) {
        #pragma unroll
        for (int c = 0; c < C; c++) {
            int q = lane + c * L;
            if (q < chunks) stf<V>(partial, (i64)blockIdx.x * n + (i64)q * V, dw[c]);
        }
    }
    grid_barrier(bar);
    finish_columns<T>(partial, gridDim.x, n, dwo);
    grid_depart(bar);
#else
    #pragma unroll
    for (int c = 0; c < C; c++) {
        int q = lane + c * L;
        if (q < chunks) stf<V>(partial, ((i64)blockIdx.x * RPB + grp) * n + (i64)q * V, dw[c]);
    }
    (void)dwo; (void)bar;
#endif
}
#endif

#if defined(GLUE_FUSED_QNORM_ROPE_FWD) || defined(GLUE_FUSED_QNORM_ROPE_BWD)
// q RMSNorm + RoPE: each row of hd = LANES * VEC elements is held by LANES threads (VEC/2 rotation
// pairs each); warps iterate in lockstep so the group shuffles always have every lane.
// CFG_COMPLEX: freqs holds (cos, sin) pairs [T, half, 2]; else cos and sin are [T, half].
#define QL CFG_LANES
#define QV CFG_VEC
#define QP (CFG_VEC / 2)

// The token (position) of a row of heads: a 32-bit division while rows fit (a 64-bit one is a
// long software sequence, paid per row).
__device__ __forceinline__ i64 token_of(i64 row, i64 heads) {
    return row <= 0xffffffffLL && heads <= 0xffffffffLL ? (i64)((unsigned)row / (unsigned)heads) : row / heads;
}

// cos and sin of this lane's QP pairs at position pos.
__device__ __forceinline__ void rope_table(const float* freqs, const float* cosv, const float* sinv, i64 pos, int half, int p0, float* c, float* s) {
#if CFG_COMPLEX
    float f[QV];
    ldf<QV>(freqs, (pos * half + p0) * 2, f);
    #pragma unroll
    for (int k = 0; k < QP; k++) { c[k] = f[2 * k]; s[k] = f[2 * k + 1]; }
#else
    ldf<QP>(cosv, pos * half + p0, c);
    ldf<QP>(sinv, pos * half + p0, s);
#endif
}

#ifndef CFG_STAGES
#define CFG_STAGES 0
#endif
#if CFG_STAGES
// Rows staged in shared memory by cp.async (CFG_STAGES): each group of LANES threads works through a
// contiguous run of rows with STAGES - 1 rows in flight ahead of the one it reduces, without the
// registers a prefetch into registers costs. The ring is [stage][tensor][access][thread] of 16-byte
// slots (STAGES * NT * QA * THREADS * 16 bytes of dynamic shared memory: FusedConfigs.stagedBytes);
// each thread reads back only what it copied, so waiting for its own copies is all the ordering it
// needs. Consecutive rows are the heads of one token, so the RoPE table is loaded when the token changes.
#define QA (QV * ES / 16)
static_assert(QV * ES % 16 == 0, "staged q-norm rows move 16-byte accesses");
template <int NT>
using QRing = uint4 (*)[NT][QA][CFG_THREADS];

template <int NT>
__device__ __forceinline__ QRing<NT> q_ring() {
    extern __shared__ uint4 q_ring_mem[];
    return reinterpret_cast<QRing<NT>>(q_ring_mem);
}

// This thread's accesses of row `row` of the NT tensors into `slot` when `has`; one commit group either way.
template <int NT>
__device__ __forceinline__ void q_issue(QRing<NT> ring, int slot, const void* const (&src)[NT], i64 row, bool has, int hd, int sub) {
    if (has) {
        const i64 e = (row * hd + (i64)sub * QV) * ES;
        #pragma unroll
        for (int t = 0; t < NT; t++) {
            #pragma unroll
            for (int a = 0; a < QA; a++) cp_async16(&ring[slot][t][a][threadIdx.x], (const char*)src[t] + e + 16 * a);
        }
    }
    cp_async_commit();
}

// Row i of a group's contiguous run of rpg rows [first, first + rpg) (consecutive rows are the heads
// of one token: the table is loaded once per token; interleaving the groups' rows lost on the H200).
struct QRows {
    i64 first, end, count;
    __device__ __forceinline__ i64 row(i64 i) const { return first + i; }
    __device__ __forceinline__ bool has(i64 i) const { return i < count && row(i) < end; }
};
__device__ __forceinline__ QRows q_rows(i64 group, i64 rpg, i64 rows) { return QRows{group * rpg, rows, rpg}; }

// Waits for the oldest row in flight (S - 1 newer groups may still be) and moves it to registers.
template <int NT, int S>
__device__ __forceinline__ void q_take(QRing<NT> ring, int slot, unsigned (&w)[NT][4 * QA]) {
    cp_async_wait<S - 1>();
    #pragma unroll
    for (int t = 0; t < NT; t++) {
        #pragma unroll
        for (int a = 0; a < QA; a++) {
            uint4 v = ring[slot][t][a][threadIdx.x];
            w[t][4 * a] = v.x; w[t][4 * a + 1] = v.y; w[t][4 * a + 2] = v.z; w[t][4 * a + 3] = v.w;
        }
    }
}
#endif
#endif

#ifdef GLUE_FUSED_QNORM_ROPE_FWD
#if CFG_STAGES
// Staged: group g of the grid works through rows [g * rpg, (g + 1) * rpg) (rpg = rows / groups, rounded up).
extern "C" __global__ void ROW_BOUNDS fused_qnorm_rope_fwd(const void* q, const void* w, const float* freqs, const float* cosv,
                                                                          const float* sinv, void* out, i64 rows, i64 heads, int hd, float eps) {
    constexpr int S = CFG_STAGES;
    const int sub = threadIdx.x % QL, half = hd / 2, p0 = sub * QP;
    const i64 group = ((i64)blockIdx.x * CFG_THREADS + threadIdx.x) / QL, groups = (i64)gridDim.x * (CFG_THREADS / QL);
    const i64 rpg = (rows + groups - 1) / groups;
    const QRows span = q_rows(group, rpg, rows);
    float wv[QV];
    ldv<QV>(w, sub * QV, wv);
    const QRing<1> ring = q_ring<1>();
    const void* const src[1] = {q};
    #pragma unroll
    for (int st = 0; st < S - 1; st++) q_issue<1>(ring, st, src, span.row(st), span.has(st), hd, sub);
    float c[QP], s[QP];
    i64 tok = -1;
    int slot = 0;
    for (i64 i = 0; i < rpg; i++) {
        const i64 row = span.row(i);
        const bool live = span.has(i);
        q_issue<1>(ring, slot == 0 ? S - 1 : slot - 1, src, span.row(i + S - 1), span.has(i + S - 1), hd, sub);
        unsigned wq[1][4 * QA];
        q_take<1, S>(ring, slot, wq);
        slot = slot + 1 == S ? 0 : slot + 1;
        float a[QV], ss = 0.f;
        cvt<QV>(wq[0], a);
        if (live) {
            #pragma unroll
            for (int k = 0; k < QV; k++) ss += a[k] * a[k];
            const i64 t = token_of(row, heads);
            if (t != tok) { rope_table(freqs, cosv, sinv, t, half, p0, c, s); tok = t; }
        }
        const float rs = rsqrtf(group_sum<QL>(ss) / hd + eps);
        if (!live) continue;
        float o[QV];
        #pragma unroll
        for (int k = 0; k < QP; k++) {
            float x0 = a[2 * k] * rs * wv[2 * k], x1 = a[2 * k + 1] * rs * wv[2 * k + 1];
            o[2 * k] = x0 * c[k] - x1 * s[k];
            o[2 * k + 1] = x0 * s[k] + x1 * c[k];
        }
        stv<QV>(out, row * hd + sub * QV, o);
    }
}
#else
// CFG_RPI rows per group are loaded before any is reduced (independent loads in flight).
extern "C" __global__ void ROW_BOUNDS fused_qnorm_rope_fwd(const void* q, const void* w, const float* freqs, const float* cosv,
                                                                          const float* sinv, void* out, i64 rows, i64 heads, int hd, float eps) {
    constexpr int R = CFG_RPI, G = 32 / QL;  // rows per group per step, groups per warp
    const int sub = threadIdx.x % QL, half = hd / 2, p0 = sub * QP;
    const i64 warp = ((i64)blockIdx.x * CFG_THREADS + threadIdx.x) >> 5, warps = (i64)gridDim.x * CFG_THREADS / 32;
    const int grp = (threadIdx.x & 31) / QL;
    float wv[QV];
    ldv<QV>(w, sub * QV, wv);
    for (i64 base = warp * G * R; base < rows; base += warps * G * R) {
        float a[R][QV], ss[R], c[R][QP], s[R][QP];
        #pragma unroll
        for (int i = 0; i < R; i++) {
            i64 row = base + grp * R + i;
            ss[i] = 0.f;
            if (row < rows) {
                ldv<QV>(q, row * hd + sub * QV, a[i]);
                rope_table(freqs, cosv, sinv, token_of(row, heads), half, p0, c[i], s[i]);
            }
        }
        #pragma unroll
        for (int i = 0; i < R; i++) {
            #pragma unroll
            for (int k = 0; k < QV; k++) ss[i] += a[i][k] * a[i][k];
        }
        #pragma unroll
        for (int i = 0; i < R; i++) {
            i64 row = base + grp * R + i;
            float rs = rsqrtf(group_sum<QL>(ss[i]) / hd + eps);
            if (row >= rows) continue;
            float o[QV];
            #pragma unroll
            for (int k = 0; k < QP; k++) {
                float x0 = a[i][2 * k] * rs * wv[2 * k], x1 = a[i][2 * k + 1] * rs * wv[2 * k + 1];
                o[2 * k] = x0 * c[i][k] - x1 * s[i][k];
                o[2 * k + 1] = x0 * s[i][k] + x1 * c[i][k];
            }
            stv<QV>(out, row * hd + sub * QV, o);
        }
    }
}
#endif  // CFG_STAGES
#endif

#ifdef GLUE_FUSED_QNORM_ROPE_BWD
#ifndef CFG_PF
#define CFG_PF 0
#endif
// Backward: rotate dy back, then the norm's backward. Group g handles rows [g*rpg, ...) and writes
// its dw partial (fp32, [groups, hd]); column_sum finishes dw. CFG_PF: the next row's q, dy and
// table are loaded before this row's reductions.
extern "C" __global__ void ROW_BOUNDS fused_qnorm_rope_bwd(const void* q, const void* w, const float* freqs, const float* cosv,
                                                                          const float* sinv, const void* dy, void* dq, float* partial,
                                                                          i64 rows, i64 heads, int hd, i64 rpg, float eps,
                                                                          void* dwo, unsigned* bar) {
    const int sub = threadIdx.x % QL, half = hd / 2, p0 = sub * QP;
    const i64 group = ((i64)blockIdx.x * CFG_THREADS + threadIdx.x) / QL;
#if !CFG_STAGES
    const i64 r0 = group * rpg;
#endif
    float wv[QV], dw[QV];
    ldv<QV>(w, sub * QV, wv);
    #pragma unroll
    for (int k = 0; k < QV; k++) dw[k] = 0.f;
    float a[QV], d[QV], c[QP], s[QP];
#if CFG_STAGES
    constexpr int S = CFG_STAGES;
    const QRing<2> ring = q_ring<2>();
    const void* const src[2] = {q, dy};
    const QRows span = q_rows(group, rpg, rows);
    #pragma unroll
    for (int st = 0; st < S - 1; st++) q_issue<2>(ring, st, src, span.row(st), span.has(st), hd, sub);
    i64 tok = -1;
    int slot = 0;
#else
    auto load = [&](i64 row, float (&ad)[QV], float (&dd)[QV], float (&cd)[QP], float (&sd)[QP]) {
        ldv<QV>(q, row * hd + sub * QV, ad);
        ldv<QV>(dy, row * hd + sub * QV, dd);
        rope_table(freqs, cosv, sinv, token_of(row, heads), half, p0, cd, sd);
    };
#endif
#if CFG_PF && !CFG_STAGES
    float an[QV], dn[QV], cn[QP], sn[QP];
    if (r0 < rows) load(r0, a, d, c, s);
#endif
    for (i64 i = 0; i < rpg; i++) {
#if CFG_STAGES
        const i64 row = span.row(i);
        const bool live = span.has(i);
        q_issue<2>(ring, slot == 0 ? S - 1 : slot - 1, src, span.row(i + S - 1), span.has(i + S - 1), hd, sub);
        {
            unsigned wr[2][4 * QA];
            q_take<2, S>(ring, slot, wr);
            cvt<QV>(wr[0], a);
            cvt<QV>(wr[1], d);
        }
        slot = slot + 1 == S ? 0 : slot + 1;
        if (live) {
            const i64 t = token_of(row, heads);
            if (t != tok) { rope_table(freqs, cosv, sinv, t, half, p0, c, s); tok = t; }
        }
#else
        const i64 row = r0 + i;
        const bool live = row < rows;
#if CFG_PF
        if (i + 1 < rpg && row + 1 < rows) load(row + 1, an, dn, cn, sn);
#else
        if (live) load(row, a, d, c, s);
#endif
#endif
        float ga[QV], ss = 0.f, dot = 0.f;
        if (live) {
            #pragma unroll
            for (int k = 0; k < QP; k++) {
                ga[2 * k] = d[2 * k] * c[k] + d[2 * k + 1] * s[k];
                ga[2 * k + 1] = -d[2 * k] * s[k] + d[2 * k + 1] * c[k];
            }
            #pragma unroll
            for (int k = 0; k < QV; k++) { ss += a[k] * a[k]; dot += ga[k] * wv[k] * a[k]; }
        }
        float rs = rsqrtf(group_sum<QL>(ss) / hd + eps);
        dot = group_sum<QL>(dot) * rs / hd;
        if (live) {
            float o[QV];
            #pragma unroll
            for (int k = 0; k < QV; k++) {
                float nv = a[k] * rs;
                dw[k] += ga[k] * nv;
                o[k] = rs * (ga[k] * wv[k] - nv * dot);
            }
            stv<QV>(dq, row * hd + sub * QV, o);
        }
#if CFG_PF && !CFG_STAGES
        #pragma unroll
        for (int k = 0; k < QV; k++) { a[k] = an[k]; d[k] = dn[k]; }
        #pragma unroll
        for (int k = 0; k < QP; k++) { c[k] = cn[k]; s[k] = sn[k]; }
#endif
    }
    // The block's row groups' dw in a fixed order (deterministic): across the warp's groups by
    // shuffles (lanes of one sub position), then across the warps through shared memory. One partial
    // per block: the partial buffer is blocks x hd instead of groups x hd.
    #pragma unroll
    for (int k = 0; k < QV; k++) {
        #pragma unroll
        for (int o = QL; o < 32; o <<= 1) dw[k] += __shfl_xor_sync(0xffffffffu, dw[k], o);
    }
    constexpr int W = CFG_THREADS / 32;
    __shared__ __align__(16) float red[W][QL * QV];
    if ((threadIdx.x & 31) < QL) stf<QV>(red[threadIdx.x >> 5], sub * QV, dw);
    __syncthreads();
    for (int j = threadIdx.x; j < QL * QV; j += CFG_THREADS) {
        float t = 0.f;
        #pragma unroll
        for (int k = 0; k < W; k++) t += red[k][j];
        partial[(i64)blockIdx.x * hd + j] = t;
    }
#if CFG_DWFIN
    grid_barrier(bar);
    finish_columns<CFG_THREADS>(partial, gridDim.x, hd, dwo);
    grid_depart(bar);
#else
    (void)dwo; (void)bar;
#endif
    (void)group;
}
#endif

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

#ifdef GLUE_FUSED_CAT
// Cat along the last dim as copies of CFG_CHUNK-byte pieces (16, 8, 4 or 2; both halves are whole
// pieces): block b copies rows b, b + grid, ...; each thread issues UNROLL pieces before storing.
template <int B> struct Piece;
template <> struct Piece<16> { typedef uint4 t; };
template <> struct Piece<8> { typedef uint2 t; };
template <> struct Piece<4> { typedef unsigned t; };
template <> struct Piece<2> { typedef u16 t; };

#ifndef CFG_FLAT
#define CFG_FLAT 0
#endif
#if CFG_FLAT
// CFG_FLAT: the output's pieces end to end (rows * pieces per row); block b copies pieces
// [b * THREADS * UNROLL, ...), all loads before the first store, then exits (as a copy kernel).
template <int B>
__device__ __forceinline__ typename Piece<B>::t ld_piece(const typename Piece<B>::t* p) {
    if constexpr (B == 16) return ld16(p); else return *p;
}
template <int B>
__device__ __forceinline__ void st_piece(typename Piece<B>::t* p, typename Piece<B>::t v) {
    if constexpr (B == 16) st16(p, v); else *p = v;
}
extern "C" __global__ void __launch_bounds__(CFG_THREADS) fused_cat(const void* a, const void* b, void* out, i64 rows, i64 ha_bytes, i64 hb_bytes) {
    typedef typename Piece<CFG_CHUNK>::t piece;
    constexpr int U = CFG_UNROLL;
    const i64 ca = ha_bytes / CFG_CHUNK, cb = hb_bytes / CFG_CHUNK, cr = ca + cb, total = rows * cr;
    const bool narrow = total <= 0xffffffffLL;  // 32-bit division by cr while the index fits
    const bool pow2 = (cr & (cr - 1)) == 0;       // a shift where pieces per row are a power of 2
    const int shift = __ffsll(cr) - 1;
    const i64 base = (i64)blockIdx.x * (CFG_THREADS * U) + threadIdx.x;
    piece v[U];
    #pragma unroll
    for (int j = 0; j < U; j++) {
        const i64 i = base + (i64)j * CFG_THREADS;
        if (i >= total) continue;
        const i64 row = pow2 ? i >> shift : narrow ? (i64)((unsigned)i / (unsigned)cr) : i / cr, c = i - row * cr;
        v[j] = c < ca ? ld_piece<CFG_CHUNK>((const piece*)a + row * ca + c) : ld_piece<CFG_CHUNK>((const piece*)b + row * cb + (c - ca));
    }
    #pragma unroll
    for (int j = 0; j < U; j++) {
        const i64 i = base + (i64)j * CFG_THREADS;
        if (i < total) st_piece<CFG_CHUNK>((piece*)out + i, v[j]);
    }
}
#else
extern "C" __global__ void __launch_bounds__(CFG_THREADS) fused_cat(const void* a, const void* b, void* out, i64 rows, i64 ha_bytes, i64 hb_bytes) {
    typedef typename Piece<CFG_CHUNK>::t piece;
    constexpr int U = CFG_UNROLL;
    const int ca = (int)(ha_bytes / CFG_CHUNK), cb = (int)(hb_bytes / CFG_CHUNK), cr = ca + cb;
    for (i64 row = blockIdx.x; row < rows; row += gridDim.x) {
        const piece* pa = (const piece*)a + row * ca;
        const piece* pb = (const piece*)b + row * cb;
        piece* po = (piece*)out + row * cr;
        for (int c0 = 0; c0 < cr; c0 += CFG_THREADS * U) {
            piece v[U];
            #pragma unroll
            for (int j = 0; j < U; j++) { int c = c0 + j * CFG_THREADS + threadIdx.x; if (c < cr) v[j] = c < ca ? pa[c] : pb[c - ca]; }
            #pragma unroll
            for (int j = 0; j < U; j++) { int c = c0 + j * CFG_THREADS + threadIdx.x; if (c < cr) po[c] = v[j]; }
        }
    }
}
#endif  // CFG_FLAT
#endif

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

