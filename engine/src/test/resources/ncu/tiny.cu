// A few launches of small kernels for ncu CSV samples: sizes chosen so ncu's auto units
// span byte..Gbyte and nsecond..msecond; a templated name puts commas in the kernel name.
#include <cstdio>
#include <cuda_runtime.h>
template <typename T, int UNROLL>
__global__ void scale_copy(const T* __restrict__ in, T* __restrict__ out, long n, T a) {
  long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
  long stride = (long)gridDim.x * blockDim.x;
  for (; i < n; i += stride) out[i] = in[i] * a;
}
__global__ void spin(long long cycles, int* flag) {
  long long t0 = clock64();
  while (clock64() - t0 < cycles) {}
  if (threadIdx.x == 0 && blockIdx.x == 0) *flag = 1;
}
int main() {
  const long big = 1L << 28;  // 256 Mi floats = 1 GiB
  float *a, *b; int* flag;
  cudaMalloc(&a, big * sizeof(float)); cudaMalloc(&b, big * sizeof(float)); cudaMalloc(&flag, 4);
  cudaMemset(a, 0, big * sizeof(float));
  long sizes[] = {256, 1L << 20, big};
  for (long n : sizes) {
    int blocks = (int)((n + 255) / 256); if (blocks > 132 * 16) blocks = 132 * 16;
    scale_copy<float, 4><<<blocks, 256>>>(a, b, n, 2.0f);
  }
  spin<<<1, 32>>>(4000000LL, flag);  // ~2 ms at ~2 GHz
  cudaError_t e = cudaDeviceSynchronize();
  printf("done: %s\n", cudaGetErrorString(e));
  return e == cudaSuccess ? 0 : 1;
}
