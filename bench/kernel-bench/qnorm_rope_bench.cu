// Standalone timing of q-norm + RoPE kernel configurations (kernels/src/main/cuda/qnorm_rope.cu
// compiled per config into cubins by build.sh) on one GPU, without Java: launches them as
// QNormRopeFamily does (grid from the occupancy calculator, dw partials summed by base.cu's
// column_sum unless dwfin=1), L2 flushed before each launch, medians of cudaEvent times, the copy
// floor measured in the same process, and an fp64 check of each config at the smallest size.
// Usage: qnorm_rope_bench MANIFEST TOKENS... (manifest lines: name cubin pass complex threads lanes vec rpi stages dwfin gpsm)
#include <cuda.h>
#include <cuda_runtime.h>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>
#include <dlfcn.h>

// The driver API's few entry points this needs, from libcuda at run time (no libcuda to link
// against where this is built): the memory calls go through the runtime API.
#define DRV(name) static decltype(&::name) p_##name;
DRV(cuInit) DRV(cuGetErrorString) DRV(cuDeviceGet) DRV(cuDeviceGetAttribute) DRV(cuModuleLoad) DRV(cuModuleGetFunction)
DRV(cuFuncSetAttribute) DRV(cuOccupancyMaxActiveBlocksPerMultiprocessor) DRV(cuLaunchKernel)
static void loadDriver() {
    void* h = dlopen("libcuda.so.1", RTLD_NOW);
    if (!h) { fprintf(stderr, "libcuda.so.1: %s\n", dlerror()); exit(1); }
#define SYM(name) p_##name = (decltype(p_##name))dlsym(h, #name); if (!p_##name) { fprintf(stderr, "no %s in libcuda\n", #name); exit(1); }
    SYM(cuInit) SYM(cuGetErrorString) SYM(cuDeviceGet) SYM(cuDeviceGetAttribute) SYM(cuModuleLoad) SYM(cuModuleGetFunction)
    SYM(cuFuncSetAttribute) SYM(cuOccupancyMaxActiveBlocksPerMultiprocessor) SYM(cuLaunchKernel)
}
#define cuInit p_cuInit
#define cuGetErrorString p_cuGetErrorString
#define cuDeviceGet p_cuDeviceGet
#define cuDeviceGetAttribute p_cuDeviceGetAttribute
#define cuModuleLoad p_cuModuleLoad
#define cuModuleGetFunction p_cuModuleGetFunction
#define cuFuncSetAttribute p_cuFuncSetAttribute
#define cuOccupancyMaxActiveBlocksPerMultiprocessor p_cuOccupancyMaxActiveBlocksPerMultiprocessor
#define cuLaunchKernel p_cuLaunchKernel

#define CK(x) do { CUresult r_ = (x); if (r_ != CUDA_SUCCESS) { const char* m; cuGetErrorString(r_, &m); fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, m); exit(1); } } while (0)
#define RK(x) do { cudaError_t r_ = (x); if (r_ != cudaSuccess) { fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(r_)); exit(1); } } while (0)

static const int H = 32, HD = 128, HALF = HD / 2;
static const float EPS = 1e-5f;

// A generated region (name reg_*: region_main + region_finalize of CudaSource's output, launched as
// CudaRegion.bind does) or a catalogue config.
struct Config { std::string name, cubin, pass; int complex, threads, lanes, vec, rpi, stages, dwfin, gpsm; CUfunction fn, fin; bool region; };

static unsigned short f2bf(float f) { unsigned b; memcpy(&b, &f, 4); return (unsigned short)((b + 0x7fffu + ((b >> 16) & 1u)) >> 16); }
static float bf2f(unsigned short h) { unsigned b = (unsigned)h << 16; float f; memcpy(&f, &b, 4); return f; }

struct Bufs { CUdeviceptr q, dy, out, w, freqs, cosv, sinv, partial, dw, bar, slices, flush; size_t flushBytes; };

static int sms;
static CUfunction colsum, colslices;

static void launch(const Config& c, Bufs& b, long long T, CUstream st) {
    long long rows = T * H, heads = H; int hd = HD; float eps = EPS;
    if (c.region) {
        long long rpb = c.threads / c.lanes, groups = (rows + rpb - 1) / rpb;
        int occ = 0; CK(cuOccupancyMaxActiveBlocksPerMultiprocessor(&occ, c.fn, c.threads, 0));
        int perSm = c.gpsm > 0 ? std::min(c.gpsm, std::max(1, occ)) : 0;
        long long grid = std::max(1LL, std::min(groups, perSm > 0 ? (long long)perSm * sms : (long long)INT32_MAX));
        // Parameters in the order of the region's inputs (CatalogueRegions), then outputs, workspaces, eps, rows.
        if (c.pass == "fwd" && c.complex) {
            void* args[] = {&b.q, &b.w, &b.freqs, &b.out, &eps, &rows};
            CK(cuLaunchKernel(c.fn, (unsigned)grid, 1, 1, c.threads, 1, 1, 0, st, args, nullptr));
        } else if (c.pass == "fwd") {
            void* args[] = {&b.q, &b.w, &b.cosv, &b.sinv, &b.out, &eps, &rows};
            CK(cuLaunchKernel(c.fn, (unsigned)grid, 1, 1, c.threads, 1, 1, 0, st, args, nullptr));
        } else {
            void* ac[] = {&b.dy, &b.freqs, &b.w, &b.q, &b.out, &b.partial, &eps, &rows};
            void* ar[] = {&b.dy, &b.cosv, &b.sinv, &b.w, &b.q, &b.out, &b.partial, &eps, &rows};
            CK(cuLaunchKernel(c.fn, (unsigned)grid, 1, 1, c.threads, 1, 1, 0, st, c.complex ? ac : ar, nullptr));
            void* a2[] = {&b.partial, &b.dw, &grid};
            CK(cuLaunchKernel(c.fin, (HD + 31) / 32, 1, 1, 1024, 1, 1, 0, st, a2, nullptr));
        }
        return;
    }
    int smem = 0;
    if (c.stages) smem = c.stages * (c.pass == "fwd" ? 1 : 2) * (c.vec * 2 / 16) * c.threads * 16;
    int occ = 0; CK(cuOccupancyMaxActiveBlocksPerMultiprocessor(&occ, c.fn, c.threads, smem));
    occ = std::max(1, occ); if (c.gpsm > 0) occ = std::min(occ, c.gpsm);
    long long wave = (long long)sms * occ, gpb = c.threads / c.lanes;
    CUdeviceptr nul = 0;
    CUdeviceptr fr = c.complex ? b.freqs : nul, cs = c.complex ? nul : b.cosv, sn = c.complex ? nul : b.sinv;
    if (c.pass == "fwd") {
        long long rpb = gpb * c.rpi; int grid = (int)std::min((rows + rpb - 1) / rpb, wave);
        void* args[] = {&b.q, &b.w, &fr, &cs, &sn, &b.out, &rows, &heads, &hd, &eps};
        CK(cuLaunchKernel(c.fn, grid, 1, 1, c.threads, 1, 1, smem, st, args, nullptr));
    } else {
        long long groups0 = std::min(rows, wave * gpb), rpg = (rows + groups0 - 1) / groups0;
        long long blocks = ((rows + rpg - 1) / rpg + gpb - 1) / gpb;
        CUdeviceptr bar = c.dwfin ? b.bar : nul;
        void* args[] = {&b.q, &b.w, &fr, &cs, &sn, &b.dy, &b.out, &b.partial, &rows, &heads, &hd, &rpg, &eps, &b.dw, &bar};
        CK(cuLaunchKernel(c.fn, (unsigned)blocks, 1, 1, c.threads, 1, 1, smem, st, args, nullptr));
        if (!c.dwfin) {
            long long n = hd; int dto = 0;
            if (blocks <= 256) {
                void* a2[] = {&b.partial, &blocks, &n, &b.dw, &dto};
                CK(cuLaunchKernel(colsum, (unsigned)((n + 31) / 32), 1, 1, 32, 32, 1, 0, st, a2, nullptr));
            } else {
                long long per = 256, slices = (blocks + per - 1) / per, tiles = (n + 31) / 32;
                void* a1[] = {&b.partial, &blocks, &n, &per, &b.slices};
                CK(cuLaunchKernel(colslices, (unsigned)(tiles * slices), 1, 1, 32, 32, 1, 0, st, a1, nullptr));
                void* a2[] = {&b.slices, &slices, &n, &b.dw, &dto};
                CK(cuLaunchKernel(colsum, (unsigned)((n + 31) / 32), 1, 1, 32, 32, 1, 0, st, a2, nullptr));
            }
        }
    }
    if (smem > 48 * 1024) {}  // attribute raised at load
}

static double median(std::vector<float> v) { std::sort(v.begin(), v.end()); return v[v.size() / 2]; }

// Times `reps` launches, each after an L2 flush (a memset over 2x the L2), by events around the launch only.
static double timeit(const Config& c, Bufs& b, long long T, int reps) {
    cudaEvent_t e0, e1; RK(cudaEventCreate(&e0)); RK(cudaEventCreate(&e1));
    std::vector<float> ts;
    for (int i = 0; i < reps + 5; i++) {
        RK(cudaMemsetAsync((void*)b.flush, i & 0xff, b.flushBytes, 0));
        RK(cudaEventRecord(e0, 0));
        launch(c, b, T, 0);
        RK(cudaEventRecord(e1, 0));
        RK(cudaEventSynchronize(e1));
        float ms; RK(cudaEventElapsedTime(&ms, e0, e1));
        if (i >= 5) ts.push_back(ms * 1000.f);
    }
    RK(cudaGetLastError());
    return median(ts);
}

int main(int argc, char** argv) {
    if (argc < 3) { fprintf(stderr, "usage: %s MANIFEST TOKENS...\n", argv[0]); return 2; }
    loadDriver(); CK(cuInit(0)); RK(cudaSetDevice(0)); RK(cudaFree(0));
    CUdevice dev; CK(cuDeviceGet(&dev, 0));
    CK(cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev));
    std::vector<long long> toks; for (int i = 2; i < argc; i++) toks.push_back(atoll(argv[i]));
    long long Tmax = *std::max_element(toks.begin(), toks.end());
    std::string dir = argv[1]; dir = dir.substr(0, dir.find_last_of('/') + 1);
    CUmodule base; CK(cuModuleLoad(&base, (dir + "base.cubin").c_str()));
    CK(cuModuleGetFunction(&colsum, base, "column_sum")); CK(cuModuleGetFunction(&colslices, base, "column_sum_slices"));
    std::vector<Config> cfgs;
    { std::ifstream in(argv[1]); std::string line;
      while (std::getline(in, line)) {
          if (line.empty() || line[0] == '#') continue;
          std::istringstream s(line); Config c;
          s >> c.name >> c.cubin >> c.pass >> c.complex >> c.threads >> c.lanes >> c.vec >> c.rpi >> c.stages >> c.dwfin >> c.gpsm;
          CUmodule m; if (cuModuleLoad(&m, (dir + c.cubin).c_str()) != CUDA_SUCCESS) { fprintf(stderr, "skip %s: cubin does not load\n", c.name.c_str()); continue; }
          if (getenv("ONLY") && c.name != getenv("ONLY")) continue;
          c.region = c.name.rfind("reg_", 0) == 0;
          if (c.region) {
              CK(cuModuleGetFunction(&c.fn, m, "region_main"));
              if (c.pass == "bwd") CK(cuModuleGetFunction(&c.fin, m, "region_finalize"));
              cfgs.push_back(c);
              continue;
          }
          CK(cuModuleGetFunction(&c.fn, m, c.pass == "fwd" ? "fused_qnorm_rope_fwd" : "fused_qnorm_rope_bwd"));
          CK(cuFuncSetAttribute(c.fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 100 * 1024));
          cfgs.push_back(c);
      } }
    size_t act = (size_t)Tmax * H * HD * 2;
    Bufs b{};
    RK(cudaMalloc((void**)&b.q, act)); RK(cudaMalloc((void**)&b.dy, act)); RK(cudaMalloc((void**)&b.out, act));
    RK(cudaMalloc((void**)&b.w, HD * 2)); RK(cudaMalloc((void**)&b.freqs, (size_t)Tmax * HALF * 8));
    RK(cudaMalloc((void**)&b.cosv, (size_t)Tmax * HALF * 4)); RK(cudaMalloc((void**)&b.sinv, (size_t)Tmax * HALF * 4));
    RK(cudaMalloc((void**)&b.partial, (size_t)sms * 64 * HD * 4 + (1 << 20)));
    RK(cudaMalloc((void**)&b.slices, (size_t)1 << 22)); RK(cudaMalloc((void**)&b.dw, HD * 2)); RK(cudaMalloc((void**)&b.bar, 8)); RK(cudaMemset((void*)b.bar, 0, 8));
    b.flushBytes = 256u << 20; RK(cudaMalloc((void**)&b.flush, b.flushBytes));
    // Inputs: q, dy ~ U(-2, 2) bf16; w ~ U(0.5, 1.5); the RoPE table of positions 0..T-1.
    std::vector<unsigned short> hq(act / 2), hdy(act / 2), hw(HD);
    unsigned s = 12345; auto rnd = [&]() { s = s * 1664525u + 1013904223u; return (s >> 8) / 16777216.f; };
    for (auto& x : hq) x = f2bf(rnd() * 4 - 2);
    for (auto& x : hdy) x = f2bf(rnd() * 4 - 2);
    for (auto& x : hw) x = f2bf(0.5f + rnd());
    std::vector<float> hf((size_t)Tmax * HALF * 2), hc((size_t)Tmax * HALF), hs((size_t)Tmax * HALF);
    for (long long t = 0; t < Tmax; t++) for (int k = 0; k < HALF; k++) {
        double th = t * std::pow(500000.0, -2.0 * k / HD);
        hc[t * HALF + k] = (float)std::cos(th); hs[t * HALF + k] = (float)std::sin(th);
        hf[(t * HALF + k) * 2] = hc[t * HALF + k]; hf[(t * HALF + k) * 2 + 1] = hs[t * HALF + k];
    }
    RK(cudaMemcpy((void*)b.q, hq.data(), act, cudaMemcpyHostToDevice)); RK(cudaMemcpy((void*)b.dy, hdy.data(), act, cudaMemcpyHostToDevice)); RK(cudaMemcpy((void*)b.w, hw.data(), HD * 2, cudaMemcpyHostToDevice));
    RK(cudaMemcpy((void*)b.freqs, hf.data(), hf.size() * 4, cudaMemcpyHostToDevice)); RK(cudaMemcpy((void*)b.cosv, hc.data(), hc.size() * 4, cudaMemcpyHostToDevice)); RK(cudaMemcpy((void*)b.sinv, hs.data(), hs.size() * 4, cudaMemcpyHostToDevice));
    // Copy floor: D2D copies of 2 x act bytes counted (read + write), median of 20.
    double bw;
    { cudaEvent_t e0, e1; RK(cudaEventCreate(&e0)); RK(cudaEventCreate(&e1)); std::vector<float> ts;
      for (int i = 0; i < 25; i++) { RK(cudaEventRecord(e0)); RK(cudaMemcpyAsync((void*)b.out, (void*)b.q, act, cudaMemcpyDeviceToDevice, 0)); RK(cudaEventRecord(e1)); RK(cudaEventSynchronize(e1));
          float ms; RK(cudaEventElapsedTime(&ms, e0, e1)); if (i >= 5) ts.push_back(ms); }
      bw = 2.0 * act / (median(ts) * 1e-3); }
    printf("# copy %.0f GB/s (%zu MiB copied), %d SMs\n", bw / 1e9, act >> 20, sms);
    // fp64 check at the smallest token count: max error in bf16 ulps of the fp64 result, and dw's relative error.
    long long Tc = *std::min_element(toks.begin(), toks.end()), rowsC = Tc * H;
    std::vector<double> refF((size_t)rowsC * HD), refB((size_t)rowsC * HD), refDw(HD, 0.0);
    for (int form = 0; form < 2; form++) {}
    auto reference = [&](int complex) {
        std::fill(refDw.begin(), refDw.end(), 0.0);
        for (long long r = 0; r < rowsC; r++) {
            long long t = r / H; double ss = 0;
            for (int k = 0; k < HD; k++) { double a = bf2f(hq[r * HD + k]); ss += a * a; }
            double rs = 1.0 / std::sqrt(ss / HD + EPS), dot = 0; double ga[HD];
            for (int k = 0; k < HALF; k++) {
                double c = complex ? hf[(t * HALF + k) * 2] : hc[t * HALF + k], sn = complex ? hf[(t * HALF + k) * 2 + 1] : hs[t * HALF + k];
                double x0 = bf2f(hq[r * HD + 2 * k]) * rs * bf2f(hw[2 * k]), x1 = bf2f(hq[r * HD + 2 * k + 1]) * rs * bf2f(hw[2 * k + 1]);
                refF[r * HD + 2 * k] = x0 * c - x1 * sn; refF[r * HD + 2 * k + 1] = x0 * sn + x1 * c;
                double d0 = bf2f(hdy[r * HD + 2 * k]), d1 = bf2f(hdy[r * HD + 2 * k + 1]);
                ga[2 * k] = d0 * c + d1 * sn; ga[2 * k + 1] = -d0 * sn + d1 * c;
            }
            for (int k = 0; k < HD; k++) dot += ga[k] * bf2f(hw[k]) * bf2f(hq[r * HD + k]);
            dot = dot * rs / HD;
            for (int k = 0; k < HD; k++) { double nv = bf2f(hq[r * HD + k]) * rs; refDw[k] += ga[k] * nv; refB[r * HD + k] = rs * (ga[k] * bf2f(hw[k]) - nv * dot); }
        }
    };
    auto ulps = [](double got, double ref) { double a = std::fabs(ref); if (a < 1e-30) return std::fabs(got) * 1e30; int e; std::frexp(a, &e); double ulp = std::ldexp(1.0, e - 8); return std::fabs(got - ref) / ulp; };
    int refForm = -1;
    std::vector<unsigned short> got((size_t)rowsC * HD), gdw(HD);
    printf("config\tpass\tform\ttokens\tus\tfloor_us\tpct_floor\tmax_ulp\tover_half_ulp\tdw_rel\n");
    for (auto& c : cfgs) {
        if (refForm != c.complex) { reference(c.complex); refForm = c.complex; }
        RK(cudaMemset((void*)b.out, 0, (size_t)rowsC * HD * 2));
        launch(c, b, Tc, 0); RK(cudaDeviceSynchronize());
        RK(cudaMemcpy(got.data(), (void*)b.out, got.size() * 2, cudaMemcpyDeviceToHost)); RK(cudaMemcpy(gdw.data(), (void*)b.dw, HD * 2, cudaMemcpyDeviceToHost));
        const auto& ref = c.pass == "fwd" ? refF : refB;
        double mx = 0; long long over = 0;
        for (size_t i = 0; i < got.size(); i++) { double u = ulps(bf2f(got[i]), ref[i]); mx = std::max(mx, u); if (u > 0.5 + 1e-9) over++; }
        double dwrel = 0;
        if (c.pass == "bwd") for (int k = 0; k < HD; k++) dwrel = std::max(dwrel, std::fabs(bf2f(gdw[k]) - refDw[k]) / std::max(1e-6, std::fabs(refDw[k])));
        for (long long T : toks) {
            double us = timeit(c, b, T, T <= 4096 ? 200 : 100);
            double bytes = (c.pass == "fwd" ? 2.0 : 3.0) * T * H * HD * 2 + (double)T * HALF * 8;
            double floor = bytes / bw * 1e6;
            printf("%s\t%s\t%s\t%lld\t%.2f\t%.2f\t%.1f\t%.2f\t%lld\t%.2e\n", c.name.c_str(), c.pass.c_str(), c.complex ? "complex" : "real", T, us, floor,
                   100.0 * floor / us, mx, over, dwrel);
            fflush(stdout);
        }
    }
    return 0;
}
