// The FMA-throughput ceiling: how many fused multiply-adds per second the SMs really deliver.
//
// Teaches: a compute-bound kernel's ceiling is the arithmetic rate, and the honest number is
// measured, not read off a datasheet (clocks boost and throttle). Each thread runs kChains
// independent chains v = v * a + b on registers: independent, so an SM's FMA pipes never wait
// for a result (an FMA's latency is about 4 cycles; one chain per thread could not fill them).
#include <cuda_runtime.h>

#include <string>

#include "course/ceilings.hpp"
#include "course/check.hpp"
#include "course/device_buffer.hpp"
#include "course/stream.hpp"

namespace course {

namespace {

constexpr int kChains = 8;
constexpr int kIterations = 2048;
constexpr int kThreads = 256;

template <class T>
__global__ void fma_chains_kernel(T* sink, T a, T b) {
  T v[kChains];
#pragma unroll
  for (int c = 0; c < kChains; ++c) v[c] = static_cast<T>(threadIdx.x + c);
  for (int i = 0; i < kIterations; ++i) {
#pragma unroll
    for (int c = 0; c < kChains; ++c) v[c] = v[c] * a + b;  // contracted to one FMA
  }
  T sum = 0;
#pragma unroll
  for (int c = 0; c < kChains; ++c) sum += v[c];
  // Written only when impossible in practice, so the compiler must keep the arithmetic.
  if (sum == static_cast<T>(-1.2345)) sink[threadIdx.x] = sum;
}

template <class T>
Ceiling measure(const char* name, const char* type, const RepeatOptions& options) {
  int device = 0, sms = 0, per_sm = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, fma_chains_kernel<T>, kThreads, 0));
  const int blocks = 4 * sms * (per_sm > 0 ? per_sm : 1);  // several waves: the tail matters little
  DeviceBuffer<T> sink(kThreads, "FMA ceiling sink");
  // a and b keep the values bounded (|a| < 1), so no denormals or infinities slow anything.
  const T a = static_cast<T>(0.999), b = static_cast<T>(0.001);
  Stream stream;
  const TimingStats stats = time_device(options, stream.get(), [&] {
    fma_chains_kernel<T><<<blocks, kThreads, 0, stream.get()>>>(sink.data(), a, b);
    CUDA_CHECK_LAUNCH("fma_chains_kernel");
  });
  const double flops = 2.0 * kChains * kIterations * static_cast<double>(kThreads) * blocks;
  Ceiling ceiling;
  ceiling.name = name;
  ceiling.unit = "GFLOP/s";
  ceiling.value = flops / (stats.median_ms * 1e6);
  ceiling.description = std::string(type) + " FMA chains in registers, " + std::to_string(kChains) +
                        " per thread, " + std::to_string(blocks) + " blocks of " + std::to_string(kThreads) +
                        ", median of " + std::to_string(stats.reps);
  return ceiling;
}

}  // namespace

Ceiling measure_fma_throughput(Precision precision, const RepeatOptions& options) {
  return precision == Precision::fp32 ? measure<float>("fp32_fma", "float", options)
                                      : measure<double>("fp64_fma", "double", options);
}

}  // namespace course
