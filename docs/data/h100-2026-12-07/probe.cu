// Probes for the fixed part of a one-wave kernel on a cold L2, and for the 1 : 2 read/write bound.
// nvcc -O3 -arch=sm_90 -std=c++17 probe.cu -o probe
#include <cuda_runtime.h>
#include <algorithm>
#include <cstdio>
#include <vector>
#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("%s: %s (line %d)\n", #x, cudaGetErrorString(e), __LINE__); return 1; } } while (0)

__device__ __forceinline__ unsigned long long gtime() { unsigned long long t; asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)); return t; }
__device__ __forceinline__ unsigned smid() { unsigned s; asm volatile("mov.u32 %0, %%smid;" : "=r"(s)); return s; }

__global__ void flush_read(const unsigned* __restrict__ p, size_t n, unsigned* sink) {
  unsigned acc = 0;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) acc ^= p[i];
  if (acc == 0x12345678u) *sink = acc;
}
__global__ void touch_pages(const float* __restrict__ p, size_t n, size_t step, float* sink) {
  float acc = 0;
  for (size_t i = threadIdx.x * step; i < n; i += blockDim.x * step) acc += p[i];
  if (acc == 1234.5f) *sink = acc;
}
__global__ void empty_kernel(int* sink) { extern __shared__ int s[]; if (threadIdx.x == 1023) { s[0] = 1; *sink = s[0]; } }

// Step 27's copy at 1024 x 1024, K = 15: 30 rows x 66 float4 of the image into shared memory.
__global__ void tile_probe(const float* __restrict__ in, int width, int rows, unsigned long long* stamps) {
  extern __shared__ float4 tile[];
  const unsigned long long t0 = gtime();
  const int fours = 66, col0 = blockIdx.x * 256 - 8, row0 = blockIdx.y * 16 - 7;
  const int thread = threadIdx.x;
  for (int e = thread; e < rows * fours; e += 256) {
    const int a = e / fours, g = e % fours;
    const int row = row0 + a, col = col0 + 4 * g;
    const int bytes = row >= 0 && row < 1024 && col >= 0 && col < width ? 16 : 0;
    const unsigned address = static_cast<unsigned>(__cvta_generic_to_shared(tile + a * 100 + g));
    const float* src = bytes ? in + (size_t)row * width + col : in;
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(address), "l"(src), "r"(bytes) : "memory");
  }
  asm volatile("cp.async.wait_all;\n" ::: "memory");
  __syncthreads();
  const unsigned long long t1 = gtime();
  if (thread == 0) {
    const int b = blockIdx.y * gridDim.x + blockIdx.x;
    stamps[3 * b] = t0; stamps[3 * b + 1] = t1; stamps[3 * b + 2] = smid();
  }
  if (tile[thread].x == 12345.f) stamps[0] = 0;
}

__global__ void widen(const float4* __restrict__ in, double2* __restrict__ out, size_t n4) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n4; i += (size_t)gridDim.x * blockDim.x) {
    float4 v = in[i];
    out[2 * i] = make_double2(v.x, v.y);
    out[2 * i + 1] = make_double2(v.z, v.w);
  }
}
// float2 in, double2 out: a warp's store is 512 contiguous bytes.
__global__ void widen2(const float2* __restrict__ in, double2* __restrict__ out, size_t n2) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n2; i += (size_t)gridDim.x * blockDim.x) {
    float2 v = in[i];
    out[i] = make_double2(v.x, v.y);
  }
}
// float4 in, exchanged by shuffles so that each store instruction of a warp is 512 contiguous bytes.
__global__ void widen4x(const float4* __restrict__ in, double2* __restrict__ out, size_t n4) {
  const int lane = threadIdx.x % 32;
  const size_t warps = (size_t)gridDim.x * blockDim.x / 32;
  for (size_t w = (blockIdx.x * (size_t)blockDim.x + threadIdx.x) / 32; w * 32 < n4; w += warps) {
    const size_t b = w * 32;
    float4 v = in[b + lane];
    for (int h = 0; h < 2; ++h) {
      const int src = h * 16 + lane / 2;
      float x = __shfl_sync(0xffffffffu, v.x, src), y = __shfl_sync(0xffffffffu, v.y, src);
      float z = __shfl_sync(0xffffffffu, v.z, src), u = __shfl_sync(0xffffffffu, v.w, src);
      out[2 * b + 32 * h + lane] = lane % 2 ? make_double2(z, u) : make_double2(x, y);
    }
  }
}
__global__ void copy4(const float4* __restrict__ in, float4* __restrict__ out, size_t n4) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n4; i += (size_t)gridDim.x * blockDim.x) out[i] = in[i];
}

int main() {
  int sms, l2;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  CK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0));
  const size_t flush_n = 2ull * l2 / 4;
  unsigned* flush; CK(cudaMalloc(&flush, flush_n * 4)); CK(cudaMemset(flush, 1, flush_n * 4));
  int* sink; CK(cudaMalloc(&sink, 64));
  cudaEvent_t e0, e1; CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1));
  auto do_flush = [&] { flush_read<<<sms * 8, 256>>>(flush, flush_n, (unsigned*)sink); };
  auto timeit = [&](bool flushed, auto pre, auto fn) {
    std::vector<float> t;
    for (int r = 0; r < 43; ++r) {
      if (flushed) do_flush();
      pre();
      cudaEventRecord(e0); fn(); cudaEventRecord(e1); cudaEventSynchronize(e1);
      float ms; cudaEventElapsedTime(&ms, e0, e1); if (r >= 3) t.push_back(ms * 1000.f);
    }
    std::sort(t.begin(), t.end()); return t[t.size() / 2];
  };
  auto none = [] {};
  printf("device: %d SMs, L2 %d MiB\n", sms, l2 >> 20);
  // 1. Launch floor.
  CK(cudaFuncSetAttribute(empty_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, 60 * 1024));
  for (int flushed = 0; flushed < 2; ++flushed) {
    for (int smem : {0, 46080, 61440}) {
      float us = timeit(flushed, none, [&] { empty_kernel<<<256, 256, smem>>>(sink); });
      printf("launch floor: empty kernel 256 x 256, %5d B dynamic shared, %s: %.2f us\n", smem, flushed ? "after flush" : "warm     ", us);
    }
  }
  CK(cudaGetLastError());
  // 2. First bytes of step 27's tile copy at 1024 x 1024, K = 15.
  const int width = 1024;
  float* img; CK(cudaMalloc(&img, 1024ull * 1024 * 4)); CK(cudaMemset(img, 0, 1024ull * 1024 * 4));
  unsigned long long* stamps; CK(cudaMalloc(&stamps, 256 * 3 * 8));
  CK(cudaFuncSetAttribute(tile_probe, cudaFuncAttributeMaxDynamicSharedMemorySize, 60 * 1024));
  std::vector<unsigned long long> h(256 * 3);
  for (int rows : {30, 1}) {
    for (int mode = 0; mode < 4; ++mode) {
      // 0 warm L2; 1 flushed; 2 flushed then one word per 64 KiB of the image touched; 3 flushed then one word per 2 MiB
      auto pre = [&] {
        if (mode == 2) touch_pages<<<1, 64>>>(img, 1024ull * 1024, 16384, (float*)sink);
        if (mode == 3) touch_pages<<<1, 64>>>(img, 1024ull * 1024, 524288, (float*)sink);
      };
      float us = timeit(mode > 0, pre, [&] { tile_probe<<<dim3(4, 64), 256, 30 * 100 * 16>>>(img, width, rows, stamps); });
      CK(cudaMemcpy(h.data(), stamps, h.size() * 8, cudaMemcpyDeviceToHost));
      unsigned long long s0 = ~0ull, s1 = 0, e1max = 0; std::vector<double> lat;
      for (int b = 0; b < 256; ++b) { s0 = std::min(s0, h[3 * b]); s1 = std::max(s1, h[3 * b]); e1max = std::max(e1max, h[3 * b + 1]); lat.push_back((h[3 * b + 1] - h[3 * b]) / 1000.0); }
      std::sort(lat.begin(), lat.end());
      const char* names[] = {"warm L2", "flushed", "flushed + 64 KiB touch", "flushed + 2 MiB touch"};
      printf("tile copy %2d rows, %-24s: event %.2f us; blocks start within %.2f us; copy latency min %.2f median %.2f max %.2f us; first start to last arrival %.2f us\n",
             rows, names[mode], us, (s1 - s0) / 1000.0, lat[0], lat[128], lat[255], (e1max - s0) / 1000.0);
    }
  }
  CK(cudaGetLastError());
  // 3. The 1 : 2 bound.
  const size_t n = 4096ull * 4096ull;
  float* in; double* out; char *a, *b;
  CK(cudaMalloc(&in, n * 4)); CK(cudaMalloc(&out, n * 8)); CK(cudaMalloc(&a, 64ull << 20)); CK(cudaMalloc(&b, 64ull << 20));
  CK(cudaMemset(in, 0, n * 4)); CK(cudaMemset(a, 1, 64ull << 20)); CK(cudaMemset(out, 0, n * 8));
  float us = timeit(true, none, [&] { cudaMemcpy(b, a, 64ull << 20, cudaMemcpyDeviceToDevice); });
  printf("memcpy 64 MiB: %.2f us %.0f GB/s\n", us, 2.0 * (64ull << 20) / us / 1e3);
  for (int bps : {2, 4, 8}) {
    us = timeit(true, none, [&] { copy4<<<sms * bps, 256>>>((const float4*)a, (float4*)b, (64ull << 20) / 16); });
    printf("copy kernel 64 MiB grid %d: %.2f us %.0f GB/s\n", sms * bps, us, 2.0 * (64ull << 20) / us / 1e3);
    us = timeit(true, none, [&] { widen<<<sms * bps, 256>>>((const float4*)in, (double2*)out, n / 4); });
    printf("widen (float4 in, two strided double2 stores) grid %d: %.2f us %.0f GB/s\n", sms * bps, us, 12.0 * n / us / 1e3);
    us = timeit(true, none, [&] { widen2<<<sms * bps, 256>>>((const float2*)in, (double2*)out, n / 2); });
    printf("widen2 (float2 in, one contiguous double2 store) grid %d: %.2f us %.0f GB/s\n", sms * bps, us, 12.0 * n / us / 1e3);
    us = timeit(true, none, [&] { widen4x<<<sms * bps, 256>>>((const float4*)in, (double2*)out, n / 4); });
    printf("widen4x (float4 in, shuffled, contiguous double2 stores) grid %d: %.2f us %.0f GB/s\n", sms * bps, us, 12.0 * n / us / 1e3);
  }
  CK(cudaGetLastError()); CK(cudaDeviceSynchronize());
  // Check widen4x's output once.
  std::vector<float> hi(4096); for (int i = 0; i < 4096; ++i) hi[i] = (float)i;
  CK(cudaMemcpy(in, hi.data(), 4096 * 4, cudaMemcpyHostToDevice));
  widen4x<<<sms * 2, 256>>>((const float4*)in, (double2*)out, n / 4);
  std::vector<double> ho(4096); CK(cudaMemcpy(ho.data(), out, 4096 * 8, cudaMemcpyDeviceToHost));
  int bad = 0; for (int i = 0; i < 4096; ++i) bad += ho[i] != (double)i;
  printf("widen4x check: %d wrong of 4096\n", bad);
  return bad != 0;
}
