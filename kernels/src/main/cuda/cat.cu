// cat of two halves along the last dimension (GLUE_FUSED_CAT).
#include "glue_types.cuh"
#include "glue_sums.cuh"
#include "glue_config.cuh"

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
