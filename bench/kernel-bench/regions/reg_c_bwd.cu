// gluelab generated region (31 nodes)
typedef unsigned short u16;
__device__ __forceinline__ float bf2f(u16 b) { return __uint_as_float(((unsigned)b) << 16); }
#if __CUDA_ARCH__ >= 800
__device__ __forceinline__ u16 f2bf(float f) { u16 h; asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(h) : "f"(f)); return h; }
__device__ __forceinline__ unsigned bf2x(float lo, float hi) { unsigned w; asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(w) : "f"(hi), "f"(lo)); return w; }
#else
__device__ __forceinline__ u16 f2bf(float f) { unsigned u = __float_as_uint(f); if ((u & 0x7fffffffu) > 0x7f800000u) return (u16)((u >> 16) | 0x40u); return (u16)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16); }
__device__ __forceinline__ unsigned bf2x(float lo, float hi) { return (unsigned)f2bf(lo) | ((unsigned)f2bf(hi) << 16); }
#endif
__device__ __forceinline__ float h2f(u16 h) { float f; asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h)); return f; }
__device__ __forceinline__ u16 f2h(float f) { u16 h; asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(f)); return h; }
__device__ __forceinline__ float sigm(float x) { return __frcp_rn(1.f + __expf(-x)); }
__device__ __forceinline__ float inf_() { return __int_as_float(0x7f800000); }
static constexpr int TPR = 16;
static constexpr int RPB = 16;
static constexpr int WPR = 1;
static constexpr int VEC = 8;
static constexpr int RW = WPR * 2;
__device__ __forceinline__ constexpr int cl(int i, int n) { return i < 0 ? 0 : i >= n ? n - 1 : i; }
__device__ __forceinline__ float row_sum(float v, float (*red)[RW], int rib, int t) {
  for (int o = (TPR < 32 ? TPR : 32) / 2; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  if (WPR > 1) { if ((t & 31) == 0) red[rib][t >> 5] = v; __syncthreads(); v = 0.f; for (int w = 0; w < WPR; w++) v += red[rib][w]; }
  return v;
}
template <int N> __device__ __forceinline__ void row_sums(float (&v)[N], float (*red)[RW], int rib, int t) {
  #pragma unroll
  for (int i = 0; i < N; i++) for (int o = (TPR < 32 ? TPR : 32) / 2; o > 0; o >>= 1) v[i] += __shfl_xor_sync(0xffffffffu, v[i], o);
  if (WPR > 1) {
    if ((t & 31) == 0) { _Pragma("unroll") for (int i = 0; i < N; i++) red[rib][i * WPR + (t >> 5)] = v[i]; }
    __syncthreads();
    _Pragma("unroll") for (int i = 0; i < N; i++) { v[i] = 0.f; for (int w = 0; w < WPR; w++) v[i] += red[rib][i * WPR + w]; }
  }
}
__device__ __forceinline__ float row_max(float v, float (*red)[RW], int rib, int t) {
  for (int o = (TPR < 32 ? TPR : 32) / 2; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
  if (WPR > 1) { if ((t & 31) == 0) red[rib][t >> 5] = v; __syncthreads(); v = -inf_(); for (int w = 0; w < WPR; w++) v = fmaxf(v, red[rib][w]); }
  return v;
}
extern "C" __global__ void __launch_bounds__(256) region_main(const u16* __restrict__ in0, const float* __restrict__ in2, const u16* __restrict__ in5, const u16* __restrict__ in7, u16* __restrict__ out27, float* __restrict__ ws30, float p10, long long rows) {
  const int t = threadIdx.x % TPR, rib = threadIdx.x / TPR;
  __shared__ float red[2][RPB][RW]; int par = 0; (void)par;
  float acc30[8] = {0};
    const long long o5 = 0LL;
    float v5[8];
    #pragma unroll
    for (int k = 0; k < 1; k++) {
      const int j0 = (k * TPR + t) * VEC; unsigned w[4];
      if (j0 < 128) {
        const unsigned* p = reinterpret_cast<const unsigned*>(in5 + o5 + j0);
        { const uint4 q = *reinterpret_cast<const uint4*>(p + 0); w[0] = q.x; w[1] = q.y; w[2] = q.z; w[3] = q.w;  }
      } else {
        #pragma unroll
        for (int x = 0; x < 4; x++) w[x] = 0u;
      }
      #pragma unroll
      for (int u = 0; u < VEC; u++) v5[k * VEC + u] = __uint_as_float((u & 1) ? (w[u >> 1] & 0xffff0000u) : (w[u >> 1] << 16));
    }
  unsigned n0[4];
  unsigned n2[8];
  unsigned n7[4];
  {
    const long long row = (long long)blockIdx.x * RPB + rib; const bool act = row < rows;
    long long rr = row;
    const long long i1 = rr % 32LL; rr /= 32LL;
    const long long i0 = rr;
    const long long o0 = i0 * 4096LL + i1 * 128LL;
    #pragma unroll
    for (int k = 0; k < 1; k++) {
      const int j0 = (k * TPR + t) * VEC; unsigned w[4];
      if (act && j0 < 128) {
        const unsigned* p = reinterpret_cast<const unsigned*>(in0 + o0 + j0);
        { const uint4 q = *reinterpret_cast<const uint4*>(p + 0); w[0] = q.x; w[1] = q.y; w[2] = q.z; w[3] = q.w;  }
      } else {
        #pragma unroll
        for (int x = 0; x < 4; x++) w[x] = 0u;
      }
      #pragma unroll
      for (int x = 0; x < 4; x++) n0[k * 4 + x] = w[x];
    }
    const long long o2 = i0 * 128LL;
    #pragma unroll
    for (int k = 0; k < 1; k++) {
      const int j0 = (k * TPR + t) * VEC; unsigned w[8];
      if (act && j0 < 128) {
        const unsigned* p = reinterpret_cast<const unsigned*>(in2 + o2 + j0);
        { const uint4 q = *reinterpret_cast<const uint4*>(p + 0); w[0] = q.x; w[1] = q.y; w[2] = q.z; w[3] = q.w;  }
        { const uint4 q = *reinterpret_cast<const uint4*>(p + 4); w[4] = q.x; w[5] = q.y; w[6] = q.z; w[7] = q.w;  }
      } else {
        #pragma unroll
        for (int x = 0; x < 8; x++) w[x] = 0u;
      }
      #pragma unroll
      for (int x = 0; x < 8; x++) n2[k * 8 + x] = w[x];
    }
    const long long o7 = i0 * 4096LL + i1 * 128LL;
    #pragma unroll
    for (int k = 0; k < 1; k++) {
      const int j0 = (k * TPR + t) * VEC; unsigned w[4];
      if (act && j0 < 128) {
        const unsigned* p = reinterpret_cast<const unsigned*>(in7 + o7 + j0);
        { const uint4 q = *reinterpret_cast<const uint4*>(p + 0); w[0] = q.x; w[1] = q.y; w[2] = q.z; w[3] = q.w;  }
      } else {
        #pragma unroll
        for (int x = 0; x < 4; x++) w[x] = 0u;
      }
      #pragma unroll
      for (int x = 0; x < 4; x++) n7[k * 4 + x] = w[x];
    }
  }
  for (long long base = (long long)blockIdx.x * RPB; base < rows; base += (long long)gridDim.x * RPB) {
    const long long row = base + rib; const bool act = row < rows;
    long long rr = row;
    const long long i1 = rr % 32LL; rr /= 32LL;
    const long long i0 = rr;
    float v0[8];
    #pragma unroll
    for (int k = 0; k < 1; k++) {
      const unsigned* w = &n0[k * 4];
      #pragma unroll
      for (int u = 0; u < VEC; u++) v0[k * VEC + u] = __uint_as_float((u & 1) ? (w[u >> 1] & 0xffff0000u) : (w[u >> 1] << 16));
    }
    const long long o0 = i0 * 4096LL + i1 * 128LL; (void)o0;
    float v2[8];
    #pragma unroll
    for (int k = 0; k < 1; k++) {
      const unsigned* w = &n2[k * 8];
      #pragma unroll
      for (int u = 0; u < VEC; u++) v2[k * VEC + u] = __uint_as_float(w[u]);
    }
    const long long o2 = i0 * 128LL; (void)o2;
    float v7[8];
    #pragma unroll
    for (int k = 0; k < 1; k++) {
      const unsigned* w = &n7[k * 4];
      #pragma unroll
      for (int u = 0; u < VEC; u++) v7[k * VEC + u] = __uint_as_float((u & 1) ? (w[u >> 1] & 0xffff0000u) : (w[u >> 1] << 16));
    }
    const long long o7 = i0 * 4096LL + i1 * 128LL; (void)o7;
    {
    const long long row = base + (long long)gridDim.x * RPB + rib; const bool act = row < rows;
    long long rr = row;
    const long long i1 = rr % 32LL; rr /= 32LL;
    const long long i0 = rr;
    const long long o0 = i0 * 4096LL + i1 * 128LL;
    #pragma unroll
    for (int k = 0; k < 1; k++) {
      const int j0 = (k * TPR + t) * VEC; unsigned w[4];
      if (act && j0 < 128) {
        const unsigned* p = reinterpret_cast<const unsigned*>(in0 + o0 + j0);
        { const uint4 q = *reinterpret_cast<const uint4*>(p + 0); w[0] = q.x; w[1] = q.y; w[2] = q.z; w[3] = q.w;  }
      } else {
        #pragma unroll
        for (int x = 0; x < 4; x++) w[x] = 0u;
      }
      #pragma unroll
      for (int x = 0; x < 4; x++) n0[k * 4 + x] = w[x];
    }
    const long long o2 = i0 * 128LL;
    #pragma unroll
    for (int k = 0; k < 1; k++) {
      const int j0 = (k * TPR + t) * VEC; unsigned w[8];
      if (act && j0 < 128) {
        const unsigned* p = reinterpret_cast<const unsigned*>(in2 + o2 + j0);
        { const uint4 q = *reinterpret_cast<const uint4*>(p + 0); w[0] = q.x; w[1] = q.y; w[2] = q.z; w[3] = q.w;  }
        { const uint4 q = *reinterpret_cast<const uint4*>(p + 4); w[4] = q.x; w[5] = q.y; w[6] = q.z; w[7] = q.w;  }
      } else {
        #pragma unroll
        for (int x = 0; x < 8; x++) w[x] = 0u;
      }
      #pragma unroll
      for (int x = 0; x < 8; x++) n2[k * 8 + x] = w[x];
    }
    const long long o7 = i0 * 4096LL + i1 * 128LL;
    #pragma unroll
    for (int k = 0; k < 1; k++) {
      const int j0 = (k * TPR + t) * VEC; unsigned w[4];
      if (act && j0 < 128) {
        const unsigned* p = reinterpret_cast<const unsigned*>(in7 + o7 + j0);
        { const uint4 q = *reinterpret_cast<const uint4*>(p + 0); w[0] = q.x; w[1] = q.y; w[2] = q.z; w[3] = q.w;  }
      } else {
        #pragma unroll
        for (int x = 0; x < 4; x++) w[x] = 0u;
      }
      #pragma unroll
      for (int x = 0; x < 4; x++) n7[k * 4 + x] = w[x];
    }
    }
    const long long o1 = i0 * 4096LL + i1 * 128LL;
    float v1[8];
    #pragma unroll
    for (int k = 0; k < 1; k++) {
      #pragma unroll
      for (int u = 0; u < VEC; u++) { const int kk = k * VEC + u, j = (k * TPR + t) * VEC + u; (void)j; (void)kk; v1[kk] = v0[kk]; }
    }
    const long long o3 = i0 * 128LL;
    float v3[8];
    #pragma unroll
    for (int k = 0; k < 1; k++) {
      #pragma unroll
      for (int u = 0; u < VEC; u++) { const int kk = k * VEC + u, j = (k * TPR + t) * VEC + u; (void)j; (void)kk; v3[kk] = j < 128 ? ((j & 1) ? -v2[kk] : v2[kk]) : 0.f; }
    }
    const long long o4 = i0 * 4096LL + i1 * 128LL;
    float v4[8];
    #pragma unroll
    for (int k = 0; k < 1; k++) {
      #pragma unroll
      for (int u = 0; u < VEC; u++) { const int kk = k * VEC + u, j = (k * TPR + t) * VEC + u; (void)j; (void)kk; v4[kk] = j < 128 ? ((kk & 1) ? v1[cl(kk & ~1, 8)] * v3[cl(kk | 1, 8)] + v1[cl(kk | 1, 8)] * v3[cl(kk & ~1, 8)] : v1[cl(kk & ~1, 8)] * v3[cl(kk & ~1, 8)] - v1[cl(kk | 1, 8)] * v3[cl(kk | 1, 8)]) : 0.f; }
    }
    const long long o6 = i0 * 4096LL + i1 * 128LL;
    float v6[8];
    #pragma unroll
    for (int k = 0; k < 1; k++) {
      #pragma unroll
      for (int u = 0; u < VEC; u++) { const int kk = k * VEC + u, j = (k * TPR + t) * VEC + u; (void)j; (void)kk; v6[kk] = (v4[kk] * v5[kk]); }
    }
    const long long o8 = i0 * 4096LL + i1 * 128LL;
    float v8[8];
    #pragma unroll
    for (int k = 0; k < 1; k++) {
      #pragma unroll
      for (int u = 0; u < VEC; u++) { const int kk = k * VEC + u, j = (k * TPR + t) * VEC + u; (void)j; (void)kk; v8[kk] = (v7[kk] * v7[kk]); }
    }
    const float s10 = p10;
    const long long o14 = i0 * 4096LL + i1 * 128LL;
    float v14[8];
    #pragma unroll
    for (int k = 0; k < 1; k++) {
      #pragma unroll
      for (int u = 0; u < VEC; u++) { const int kk = k * VEC + u, j = (k * TPR + t) * VEC + u; (void)j; (void)kk; v14[kk] = (v6[kk] * v7[kk]); }
    }
    const float s18 = -5.000000000e-01f;
    const float s20 = 7.812500000e-03f;
    const float s24 = 2.000000000e+00f;
    const long long o9 = i0 * 32LL + i1 * 1LL;
    float s9 = 0.f;
    #pragma unroll
    for (int k = 0; k < 1; k++) {
      #pragma unroll
      for (int u = 0; u < VEC; u++) { const int kk = k * VEC + u, j = (k * TPR + t) * VEC + u; (void)j; (void)kk; if (j < 128) s9 = s9 + v8[kk]; }
    }
    const long long o15 = i0 * 32LL + i1 * 1LL;
    float s15 = 0.f;
    #pragma unroll
    for (int k = 0; k < 1; k++) {
      #pragma unroll
      for (int u = 0; u < VEC; u++) { const int kk = k * VEC + u, j = (k * TPR + t) * VEC + u; (void)j; (void)kk; if (j < 128) s15 = s15 + v14[kk]; }
    }
    { float sb[2] = {s9, s15}; row_sums<2>(sb, red[par], rib, t); s9 = sb[0]; s15 = sb[1]; } par ^= 1;
    s9 *= 7.812500000e-03f;
    const long long o11 = i0 * 32LL + i1 * 1LL;
    const float s11 = (s9 + s10);
    const long long o12 = i0 * 32LL + i1 * 1LL;
    const float s12 = rsqrtf(s11);
    const long long o13 = i0 * 4096LL + i1 * 128LL;
    float v13[8];
    #pragma unroll
    for (int k = 0; k < 1; k++) {
      #pragma unroll
      for (int u = 0; u < VEC; u++) { const int kk = k * VEC + u, j = (k * TPR + t) * VEC + u; (void)j; (void)kk; v13[kk] = (v6[kk] * s12); }
    }
    const long long o16 = i0 * 32LL + i1 * 1LL;
    const float s16 = (s12 * s12 * s12);
    const long long o17 = i0 * 32LL + i1 * 1LL;
    const float s17 = (s15 * s16);
    const long long o19 = i0 * 32LL + i1 * 1LL;
    const float s19 = (s17 * s18);
    const long long o21 = i0 * 32LL + i1 * 1LL;
    const float s21 = (s19 * s20);
    const long long o22 = i0 * 4096LL + i1 * 128LL;
    float v22[8];
    #pragma unroll
    for (int k = 0; k < 1; k++) {
      #pragma unroll
      for (int u = 0; u < VEC; u++) { const int kk = k * VEC + u, j = (k * TPR + t) * VEC + u; (void)j; (void)kk; v22[kk] = s21; }
    }
    const long long o23 = i0 * 4096LL + i1 * 128LL;
    float v23[8];
    #pragma unroll
    for (int k = 0; k < 1; k++) {
      #pragma unroll
      for (int u = 0; u < VEC; u++) { const int kk = k * VEC + u, j = (k * TPR + t) * VEC + u; (void)j; (void)kk; v23[kk] = (v22[kk] * v7[kk]); }
    }
    const long long o25 = i0 * 4096LL + i1 * 128LL;
    float v25[8];
    #pragma unroll
    for (int k = 0; k < 1; k++) {
      #pragma unroll
      for (int u = 0; u < VEC; u++) { const int kk = k * VEC + u, j = (k * TPR + t) * VEC + u; (void)j; (void)kk; v25[kk] = (v23[kk] * s24); }
    }
    const long long o26 = i0 * 4096LL + i1 * 128LL;
    float v26[8];
    #pragma unroll
    for (int k = 0; k < 1; k++) {
      #pragma unroll
      for (int u = 0; u < VEC; u++) { const int kk = k * VEC + u, j = (k * TPR + t) * VEC + u; (void)j; (void)kk; v26[kk] = (v13[kk] + v25[kk]); }
    }
    const long long o27 = i0 * 4096LL + i1 * 128LL;
    float v27[8];
    #pragma unroll
    for (int k = 0; k < 1; k++) {
      #pragma unroll
      for (int u = 0; u < VEC; u++) { const int kk = k * VEC + u, j = (k * TPR + t) * VEC + u; (void)j; (void)kk; v27[kk] = bf2f(f2bf(v26[kk])); }
    }
    #pragma unroll
    for (int k = 0; k < 1; k++) {
      const int j0 = (k * TPR + t) * VEC; unsigned w[4];
      #pragma unroll
      for (int x = 0; x < 4; x++) w[x] = bf2x(v27[k * VEC + 2 * x], v27[k * VEC + 2 * x + 1]);
      if (act && j0 < 128) {
        unsigned* p = reinterpret_cast<unsigned*>(out27 + o27 + j0);
        { uint4 q; q.x = w[0]; q.y = w[1]; q.z = w[2]; q.w = w[3];  *reinterpret_cast<uint4*>(p + 0) = q; }
      }
    }
    const long long o28 = i0 * 4096LL + i1 * 128LL;
    float v28[8];
    #pragma unroll
    for (int k = 0; k < 1; k++) {
      #pragma unroll
      for (int u = 0; u < VEC; u++) { const int kk = k * VEC + u, j = (k * TPR + t) * VEC + u; (void)j; (void)kk; v28[kk] = (v7[kk] * s12); }
    }
    const long long o29 = i0 * 4096LL + i1 * 128LL;
    float v29[8];
    #pragma unroll
    for (int k = 0; k < 1; k++) {
      #pragma unroll
      for (int u = 0; u < VEC; u++) { const int kk = k * VEC + u, j = (k * TPR + t) * VEC + u; (void)j; (void)kk; v29[kk] = (v4[kk] * v28[kk]); }
    }
    const long long o30 = 0LL;
    #pragma unroll
    for (int k = 0; k < 1; k++) {
      #pragma unroll
      for (int u = 0; u < VEC; u++) { const int kk = k * VEC + u, j = (k * TPR + t) * VEC + u; (void)j; (void)kk; acc30[kk] += act ? v29[kk] : 0.f; }
    }
  }
  __shared__ float part30[128];
  for (int r = 0; r < RPB; r++) {
    if (rib == r) {
    #pragma unroll
    for (int k = 0; k < 1; k++) {
      #pragma unroll
      for (int u = 0; u < VEC; u++) { const int kk = k * VEC + u, j = (k * TPR + t) * VEC + u; (void)j; (void)kk; if (j < 128) part30[j] = r == 0 ? acc30[kk] : part30[j] + acc30[kk]; }
    }
    }
    __syncthreads();
  }
  for (int j = threadIdx.x; j < 128; j += blockDim.x) ws30[(long long)blockIdx.x * 128 + j] = part30[j];
}
extern "C" __global__ void __launch_bounds__(1024) region_finalize(float* ws30, u16* out30, long long parts) {
  __shared__ float lane[32][33];
  const int x = threadIdx.x & 31, y = threadIdx.x >> 5; const long long col = (long long)blockIdx.x * 32 + x;
  { float s = 0.f; if (col < 128LL) for (long long g = y; g < parts; g += 32) s += ws30[g * 128LL + col];
    lane[y][x] = s; __syncthreads();
    if (y == 0 && col < 128LL) { float t = 0.f; for (int r = 0; r < 32; r++) t += lane[r][x]; out30[col] = f2bf(t); }
    __syncthreads(); }
}
