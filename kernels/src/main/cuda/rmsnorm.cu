// RMSNorm and add + RMSNorm, forward and backward (GLUE_FUSED_RMSNORM_FWD / _BWD).
#include "glue_types.cuh"
#include "glue_sums.cuh"
#include "glue_config.cuh"
#include "glue_staging.cuh"
#ifdef GLUE_FUSED_RMSNORM_BWD
#include "glue_dw.cuh"
#endif
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
// The norm rows' ring: NT tensors, CPT accesses a thread.
template <int NT>
using NormRing = StageRing<NT, CFG_CPT>;

template <int NT>
__device__ __forceinline__ NormRing<NT> norm_ring() { return stage_ring<NT, CFG_CPT>(); }

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
            for (int t = 0; t < NT; t++) stage_copy(ring, slot, t, c, (const char*)src[t] + e);
        }
    }
    cp_async_commit();
}

// Waits for the row in `slot` (the oldest in flight: S - 1 newer groups may still be) and moves
// this thread's accesses of it from the ring to the registers dst (one array per tensor).
template <int NT, int S>
__device__ __forceinline__ void norm_take_row(NormRing<NT> ring, int slot, unsigned (*const (&dst)[NT])[NORM_WD], bool live, int lane,
                                              int chunks) {
    stage_wait<S>();
    if (!live) return;
    #pragma unroll
    for (int c = 0; c < CFG_CPT; c++) {
        if (lane + c * NORM_L >= chunks) continue;
        #pragma unroll
        for (int t = 0; t < NT; t++) stage_take(ring, slot, t, c, dst[t][c]);
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
