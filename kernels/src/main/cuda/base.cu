// The base module: eager primitives (one per framework op, each writing a full intermediate),
// column sums, calibration and timing helpers. One module, compiled once per device.
#include "glue_types.cuh"
#include "glue_sums.cuh"

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
