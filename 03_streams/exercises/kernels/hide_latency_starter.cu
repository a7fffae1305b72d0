// Exercise "hide_latency" (make it fast), the starter: the lesson's transform, right and slow.
//
// Each element goes through `intensity` dependent steps v = v * a + b (a multiply, then an add
// that needs its result: a chain, two instructions per step, each waiting for the one before).
// The launcher below starts one block of 32 threads per SM: one warp, so while its next
// instruction waits for the previous one's result (a few cycles), the SM has nothing else to
// issue. The arithmetic units sit idle most of the time.
//
// Goal (--intensity 2000): at least 25% of the FP32 FMA ceiling the same run measures (the
// "GPU kernel only" row; the lesson's own transform gets there), as
//   ./scripts/check_exercise.sh 03 hide_latency
// reports. Keep the launcher's name and signature and the arithmetic (__fadd_rn(__fmul_rn(v, kA),
// kB): the check compares every element with the CPU bit for bit).
// Hints: ./scripts/check_exercise.sh 03 hide_latency --hint
#include <cuda_runtime.h>

#include "course/check.hpp"
#include "streams.hpp"

namespace streams {

namespace {

__global__ void hide_latency_starter(const float* __restrict__ x, float* __restrict__ y, std::size_t n, int intensity) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    float v = x[i];
    for (int k = 0; k < intensity; ++k) v = __fadd_rn(__fmul_rn(v, kA), kB);
    y[i] = v;
  }
}

}  // namespace

course::LaunchShape launch_exercise_hide_latency(const float* x, float* y, std::size_t n, const Transform& transform,
                                                 cudaStream_t stream) {
  if (n == 0) return {};
  int device = 0, sms = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  const int block = 32;  // the launch shape to rethink: one warp on each SM
  const int grid = sms;
  hide_latency_starter<<<grid, block, 0, stream>>>(x, y, n, transform.intensity);
  CUDA_CHECK_LAUNCH("hide_latency_starter");
  return {grid, block};
}

}  // namespace streams
