// q RMSNorm + RoPE, forward and backward, complex or real form (GLUE_FUSED_QNORM_ROPE_FWD / _BWD).
#include "glue_types.cuh"
#include "glue_sums.cuh"
#include "glue_config.cuh"
#include "glue_staging.cuh"
#ifdef GLUE_FUSED_QNORM_ROPE_BWD
#include "glue_dw.cuh"
#endif

#if defined(GLUE_FUSED_QNORM_ROPE_FWD) || defined(GLUE_FUSED_QNORM_ROPE_BWD)
// q RMSNorm + RoPE: each row of hd = LANES * VEC elements is held by LANES threads (VEC/2 rotation
// pairs each); warps iterate in lockstep so the group shuffles always have every lane.
// CFG_COMPLEX: freqs holds (cos, sin) pairs [T, half, 2]; else cos and sin are [T, half].
#define QL CFG_LANES
#define QV CFG_VEC
#define QP (CFG_VEC / 2)

// The row's geometry is fixed at compile time where the engine knows it (QHD from the config,
// CFG_HEADS from the shape): offsets become shifts and the token a multiply-high, where a runtime
// division and 64-bit multiplies took a fifth of the instructions of a row (ncu: SM busier than DRAM).
#define QHD (QL * QV)
#ifdef CFG_HEADS
#define QHEADS ((i64)CFG_HEADS)
#else
#define QHEADS heads
#endif

// The token (position) of a row of heads: a 32-bit division while rows fit (a 64-bit one is a
// long software sequence, paid per row); by a constant when CFG_HEADS is set.
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
// slots (glue_staging.cuh's ring). Consecutive rows are the heads of one token, so the RoPE table is
// loaded when the token changes.
#define QA (QV * ES / 16)
static_assert(QV * ES % 16 == 0, "staged q-norm rows move 16-byte accesses");
template <int NT>
using QRing = StageRing<NT, QA>;

template <int NT>
__device__ __forceinline__ QRing<NT> q_ring() { return stage_ring<NT, QA>(); }

// This thread's accesses of row `row` of the NT tensors into `slot` when `has`; one commit group either way.
template <int NT>
__device__ __forceinline__ void q_issue(QRing<NT> ring, int slot, const void* const (&src)[NT], i64 row, bool has, int hd, int sub) {
    if (has) {
        const i64 e = (row * QHD + (i64)sub * QV) * ES;
        #pragma unroll
        for (int t = 0; t < NT; t++) {
            #pragma unroll
            for (int a = 0; a < QA; a++) stage_copy(ring, slot, t, a, (const char*)src[t] + e + 16 * a);
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
    stage_wait<S>();
    #pragma unroll
    for (int t = 0; t < NT; t++) {
        #pragma unroll
        for (int a = 0; a < QA; a++) stage_take(ring, slot, t, a, &w[t][4 * a]);
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
    const int sub = threadIdx.x % QL, half = QHD / 2, p0 = sub * QP;
    const i64 group = ((i64)blockIdx.x * CFG_THREADS + threadIdx.x) / QL, groups = (i64)gridDim.x * (CFG_THREADS / QL);
    const i64 rpg = (rows + groups - 1) / groups;
    const QRows span = q_rows(group, rpg, rows);
    float wv[QV];
    ldv<QV>(w, sub * QV, wv);
    const QRing<1> ring = q_ring<1>();
    const void* const src[1] = {q};
    #pragma unroll
    for (int st = 0; st < S - 1; st++) q_issue<1>(ring, st, src, span.row(st), span.has(st), QHD, sub);
    float c[QP], s[QP];
    i64 tok = -1;
    int slot = 0;
    for (i64 i = 0; i < rpg; i++) {
        const i64 row = span.row(i);
        const bool live = span.has(i);
        q_issue<1>(ring, slot == 0 ? S - 1 : slot - 1, src, span.row(i + S - 1), span.has(i + S - 1), QHD, sub);
        unsigned wq[1][4 * QA];
        q_take<1, S>(ring, slot, wq);
        slot = slot + 1 == S ? 0 : slot + 1;
        float a[QV], ss = 0.f;
        cvt<QV>(wq[0], a);
        if (live) {
            #pragma unroll
            for (int k = 0; k < QV; k++) ss += a[k] * a[k];
            const i64 t = token_of(row, QHEADS);
            if (t != tok) { rope_table(freqs, cosv, sinv, t, half, p0, c, s); tok = t; }
        }
        const float rs = rsqrtf(group_sum<QL>(ss) / QHD + eps);
        if (!live) continue;
        float o[QV];
        #pragma unroll
        for (int k = 0; k < QP; k++) {
            float x0 = a[2 * k] * rs * wv[2 * k], x1 = a[2 * k + 1] * rs * wv[2 * k + 1];
            o[2 * k] = x0 * c[k] - x1 * s[k];
            o[2 * k + 1] = x0 * s[k] + x1 * c[k];
        }
        stv<QV>(out, row * QHD + sub * QV, o);
    }
}
#else
// CFG_RPI rows per group are loaded before any is reduced (independent loads in flight).
extern "C" __global__ void ROW_BOUNDS fused_qnorm_rope_fwd(const void* q, const void* w, const float* freqs, const float* cosv,
                                                                          const float* sinv, void* out, i64 rows, i64 heads, int hd, float eps) {
    constexpr int R = CFG_RPI, G = 32 / QL;  // rows per group per step, groups per warp
    const int sub = threadIdx.x % QL, half = QHD / 2, p0 = sub * QP;
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
                ldv<QV>(q, row * QHD + sub * QV, a[i]);
                rope_table(freqs, cosv, sinv, token_of(row, QHEADS), half, p0, c[i], s[i]);
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
            float rs = rsqrtf(group_sum<QL>(ss[i]) / QHD + eps);
            if (row >= rows) continue;
            float o[QV];
            #pragma unroll
            for (int k = 0; k < QP; k++) {
                float x0 = a[i][2 * k] * rs * wv[2 * k], x1 = a[i][2 * k + 1] * rs * wv[2 * k + 1];
                o[2 * k] = x0 * c[i][k] - x1 * s[i][k];
                o[2 * k + 1] = x0 * s[i][k] + x1 * c[i][k];
            }
            stv<QV>(out, row * QHD + sub * QV, o);
        }
    }
}
#endif  // CFG_STAGES
#endif

#ifdef GLUE_FUSED_QNORM_ROPE_BWD
#ifndef CFG_PF
#define CFG_PF 0
#endif
// Backward: rotate dy back, then the norm's backward. Group g handles rows [g*rpg, ...) (CFG_ILEAVE:
// rows g, g + groups, ..., rpg of them either way) and writes
// its dw partial (fp32, [groups, hd]); column_sum finishes dw. CFG_PF: the next row's q, dy and
// table are loaded before this row's reductions.
extern "C" __global__ void ROW_BOUNDS fused_qnorm_rope_bwd(const void* q, const void* w, const float* freqs, const float* cosv,
                                                                          const float* sinv, const void* dy, void* dq, float* partial,
                                                                          i64 rows, i64 heads, int hd, i64 rpg, float eps,
                                                                          void* dwo, unsigned* bar) {
    const int sub = threadIdx.x % QL, half = QHD / 2, p0 = sub * QP;
    const i64 group = ((i64)blockIdx.x * CFG_THREADS + threadIdx.x) / QL;
#ifndef CFG_ILEAVE
#define CFG_ILEAVE 0
#endif
#if !CFG_STAGES && CFG_ILEAVE
    // Interleaved: group g takes rows g, g + groups, ...: the grid sweeps the rows front to back
    // together (the generated regions' order).
    const i64 r0 = group, step = (i64)gridDim.x * (CFG_THREADS / QL);
#elif !CFG_STAGES
    const i64 r0 = group * rpg, step = 1;
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
    for (int st = 0; st < S - 1; st++) q_issue<2>(ring, st, src, span.row(st), span.has(st), QHD, sub);
    i64 tok = -1;
    int slot = 0;
#elif !CFG_PF
    auto load = [&](i64 row, float (&ad)[QV], float (&dd)[QV], float (&cd)[QP], float (&sd)[QP]) {
        ldv<QV>(q, row * QHD + sub * QV, ad);
        ldv<QV>(dy, row * QHD + sub * QV, dd);
        rope_table(freqs, cosv, sinv, token_of(row, QHEADS), half, p0, cd, sd);
    };
#endif
#if CFG_PF && !CFG_STAGES
    // The next row's q and dy kept as raw words until its turn (the generated regions' prefetch): half
    // the registers of floats, so a 256-thread block fits in 64 registers a thread (4 blocks an SM)
    // where converted floats took 104 (2 blocks).
    unsigned qn[Words<QV>::N], dn[Words<QV>::N];
    float cn[QP], sn[QP];
    auto fetch = [&](i64 row) {
        ldw<QV>(q, row * QHD + sub * QV, qn);
        ldw<QV>(dy, row * QHD + sub * QV, dn);
        rope_table(freqs, cosv, sinv, token_of(row, QHEADS), half, p0, cn, sn);
    };
    if (r0 < rows) fetch(r0);
#endif
    for (i64 i = 0; i < rpg; i++) {
#if CFG_STAGES
        const i64 row = span.row(i);
        const bool live = span.has(i);
        q_issue<2>(ring, slot == 0 ? S - 1 : slot - 1, src, span.row(i + S - 1), span.has(i + S - 1), QHD, sub);
        {
            unsigned wr[2][4 * QA];
            q_take<2, S>(ring, slot, wr);
            cvt<QV>(wr[0], a);
            cvt<QV>(wr[1], d);
        }
        slot = slot + 1 == S ? 0 : slot + 1;
        if (live) {
            const i64 t = token_of(row, QHEADS);
            if (t != tok) { rope_table(freqs, cosv, sinv, t, half, p0, c, s); tok = t; }
        }
#else
        const i64 row = r0 + i * step;
        const bool live = row < rows;
#if CFG_PF
        cvt<QV>(qn, a);
        cvt<QV>(dn, d);
        #pragma unroll
        for (int k = 0; k < QP; k++) { c[k] = cn[k]; s[k] = sn[k]; }
        if (i + 1 < rpg && row + step < rows) fetch(row + step);
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
        float rs = rsqrtf(group_sum<QL>(ss) / QHD + eps);
        dot = group_sum<QL>(dot) * rs / QHD;
        if (live) {
            float o[QV];
            #pragma unroll
            for (int k = 0; k < QV; k++) {
                float nv = a[k] * rs;
                dw[k] += ga[k] * nv;
                o[k] = rs * (ga[k] * wv[k] - nv * dot);
            }
            stv<QV>(dq, row * QHD + sub * QV, o);
        }
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
        partial[(i64)blockIdx.x * QHD + j] = t;
    }
#if CFG_DWFIN
    grid_barrier(bar);
    finish_columns<CFG_THREADS>(partial, gridDim.x, QHD, dwo);
    grid_depart(bar);
#else
    (void)dwo; (void)bar;
#endif
    (void)group;
}
#endif
