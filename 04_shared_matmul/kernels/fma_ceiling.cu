// The FP32 FMA ceiling: how many fused multiply-adds per second the SMs really do, measured.
//
// Teaches: a matmul kernel does 2 flops per FFMA, so its roof is the FFMA rate. A loop of
// independent FMAs on registers (16 chains per thread, so no FMA waits for the previous one)
// measures it at the clock the GPU actually runs, which under load is below the datasheet's
// boost clock. Every GPU row of the lesson reports its percentage of this number.
#include "course/check.hpp"
#include "course/device_buffer.hpp"
#include "course/stream.hpp"
#include "matmul.hpp"

namespace matmul {

namespace {

constexpr int kChains = 16;

__global__ void fma_loop_kernel(float* out, int iterations, float a, float b) {
  float x[kChains];
#pragma unroll
  for (int j = 0; j < kChains; ++j) x[j] = static_cast<float>(threadIdx.x + j);
  for (int i = 0; i < iterations; ++i) {
#pragma unroll
    for (int j = 0; j < kChains; ++j) x[j] = fmaf(x[j], a, b);
  }
  float sum = 0;
#pragma unroll
  for (int j = 0; j < kChains; ++j) sum += x[j];
  out[blockIdx.x * blockDim.x + threadIdx.x] = sum;  // keeps the loop from being optimised away
}

}  // namespace

course::Ceiling measure_fma_ceiling(const course::RepeatOptions& options) {
  int sms = 0;
  CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const int blocks = sms * 8, threads = 256, iterations = 4096;
  course::DeviceBuffer<float> out(static_cast<std::size_t>(blocks) * threads, "FMA ceiling output");
  course::Stream stream;
  const course::TimingStats t = course::time_device(options, stream.get(), [&] {
    fma_loop_kernel<<<blocks, threads, 0, stream.get()>>>(out.data(), iterations, 0.999f, 0.001f);
    CUDA_CHECK_LAUNCH("fma_loop_kernel");
  });
  course::Ceiling ceiling;
  ceiling.name = "fp32_fma";
  ceiling.unit = "GFLOP/s";
  ceiling.value = 2.0 * kChains * iterations * static_cast<double>(blocks) * threads / (t.median_ms * 1e6);
  ceiling.description = "FP32 FMA loop in registers (" + std::to_string(blocks) + " blocks of " +
                        std::to_string(threads) + " threads, 16 chains each), median of " + std::to_string(t.reps);
  return ceiling;
}

}  // namespace matmul
