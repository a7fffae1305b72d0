// Microbenchmark: the fixed cost of a read-only pass over N bytes, event-timed after an L2 flush,
// as the course harness does. Not part of the course.
#include <cstdio>
#include <cstdint>
#include <vector>
#include <algorithm>
#include <cuda_runtime.h>

#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("%s: %s\n", #x, cudaGetErrorString(e)); return 1; } } while (0)

__global__ void empty_kernel() {}

__global__ void flush_read(const uint4* p, size_t n, unsigned* sink) {
  uint4 acc = {0, 0, 0, 0};
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
    uint4 v = p[i]; acc.x ^= v.x; acc.y ^= v.y; acc.z ^= v.z; acc.w ^= v.w;
  }
  if ((acc.x ^ acc.y ^ acc.z ^ acc.w) == 0x12345678u) *sink = 1;
}

template <int L>
__global__ void read_l(const uint4* __restrict__ p, size_t n, unsigned* sink) {
  unsigned acc = 0;
  const size_t t = blockIdx.x * (size_t)blockDim.x + threadIdx.x, s = (size_t)gridDim.x * blockDim.x;
  for (size_t q = t; q < n; q += L * s) {
    uint4 c[L];
#pragma unroll
    for (int k = 0; k < L; ++k) c[k] = q + k * s < n ? p[q + k * s] : make_uint4(0, 0, 0, 0);
#pragma unroll
    for (int k = 0; k < L; ++k) acc += c[k].x + c[k].y + c[k].z + c[k].w;
  }
  if (acc == 0x12345678u) *sink = acc;
}

// Contiguous share per block instead of grid stride.
template <int L>
__global__ void read_contig(const uint4* __restrict__ p, size_t n, unsigned* sink) {
  unsigned acc = 0;
  const size_t per = (n + gridDim.x - 1) / gridDim.x;
  const size_t b0 = blockIdx.x * per, b1 = min(n, b0 + per);
  for (size_t q = b0 + threadIdx.x; q < b1; q += L * blockDim.x) {
    uint4 c[L];
#pragma unroll
    for (int k = 0; k < L; ++k) c[k] = q + k * blockDim.x < b1 ? p[q + k * blockDim.x] : make_uint4(0, 0, 0, 0);
#pragma unroll
    for (int k = 0; k < L; ++k) acc += c[k].x + c[k].y + c[k].z + c[k].w;
  }
  if (acc == 0x12345678u) *sink = acc;
}

__global__ void copy_kernel(const uint4* __restrict__ p, uint4* __restrict__ q, size_t n) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) q[i] = p[i];
}

int main() {
  int sms = 0; CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  int l2 = 0; CK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0));
  const size_t flush_bytes = 2 * (size_t)l2;
  uint4 *flush = nullptr, *a = nullptr, *b = nullptr; unsigned* sink = nullptr;
  const size_t max_bytes = (size_t)1 << 30;
  CK(cudaMalloc(&flush, flush_bytes)); CK(cudaMalloc(&a, max_bytes)); CK(cudaMalloc(&b, max_bytes)); CK(cudaMalloc(&sink, 4));
  CK(cudaMemset(flush, 1, flush_bytes)); CK(cudaMemset(a, 2, max_bytes)); CK(cudaMemset(b, 0, max_bytes));
  unsigned* bins = nullptr; CK(cudaMalloc(&bins, 4096));
  cudaEvent_t e0, e1; CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1));
  auto time = [&](auto&& enqueue) {
    std::vector<float> ms;
    for (int r = 0; r < 23; ++r) {
      flush_read<<<sms * 4, 512>>>(flush, flush_bytes / 16, sink);
      cudaEventRecord(e0); enqueue(); cudaEventRecord(e1); cudaEventSynchronize(e1);
      float t = 0; cudaEventElapsedTime(&t, e0, e1); if (r >= 3) ms.push_back(t * 1000.0f);
    }
    std::sort(ms.begin(), ms.end()); return ms[ms.size() / 2];
  };
  printf("device SMs %d, L2 %d MiB; median of 20 event-timed runs after an L2 flush (us)\n", sms, l2 >> 20);
  printf("empty kernel <<<1,32>>>            %8.2f\n", time([&] { empty_kernel<<<1, 32>>>(); }));
  printf("empty kernel <<<132,1024>>>         %8.2f\n", time([&] { empty_kernel<<<sms, 1024>>>(); }));
  printf("memset 4 KB                         %8.2f\n", time([&] { cudaMemsetAsync(bins, 0, 4004); }));
  printf("memset 4 KB + empty <<<132,1024>>>  %8.2f\n", time([&] { cudaMemsetAsync(bins, 0, 4004); empty_kernel<<<sms, 1024>>>(); }));
  for (size_t bytes : {(size_t)16 << 20, (size_t)64 << 20, (size_t)256 << 20, (size_t)1 << 30}) {
    const size_t n = bytes / 16;
    const float cm = time([&] { cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice); });
    const float ck = time([&] { copy_kernel<<<sms * 8, 256>>>(a, b, n); });
    const float r4 = time([&] { read_l<4><<<sms, 1024>>>(a, n, sink); });
    const float r4b = time([&] { read_l<4><<<sms * 2, 512>>>(a, n, sink); });
    const float r2 = time([&] { read_l<2><<<sms * 2, 1024>>>(a, n, sink); });
    const float r8 = time([&] { read_l<8><<<sms, 512>>>(a, n, sink); });
    const float rc = time([&] { read_contig<4><<<sms, 1024>>>(a, n, sink); });
    const float rc2 = time([&] { read_contig<4><<<sms * 4, 256>>>(a, n, sink); });
    const double mb = bytes / 1e6;
    printf("%5zu MiB: memcpy %8.2f us (%6.0f GB/s r+w) | copy kernel %8.2f (%6.0f)\n", bytes >> 20, cm, 2 * mb / cm * 1000, ck, 2 * mb / ck * 1000);
    printf("          read L4 132x1024 %8.2f (%6.0f GB/s, %5.1f%% of memcpy) | L4 264x512 %8.2f | L2 264x1024 %8.2f | L8 132x512 %8.2f | contig 132x1024 %8.2f | contig 528x256 %8.2f\n",
           r4, mb / r4 * 1000, 100.0 * (mb / r4) / (2 * mb / cm), r4b, r2, r8, rc, rc2);
  }
  return 0;
}
