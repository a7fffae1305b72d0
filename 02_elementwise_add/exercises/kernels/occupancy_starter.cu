// Exercise "occupancy" (make it fast), the starter: c = a + b, correct, and slow.
//
// The kernel is the grid-stride loop of step 2, but the launcher below picks the launch shape
// badly: one block of 64 threads per SM. Each thread has one load of a and one of b in flight
// at a time, so the whole GPU keeps only a few thousand loads waiting on memory, far fewer than
// it takes to cover the memory's latency at its bandwidth (section "Little's law" of the page).
//
// Goal: at least 75% of the device copy (the d2d_copy ceiling the same run measures), as
//   ./scripts/check_exercise.sh 02 occupancy
// reports. Change the kernel, the launcher or both; keep the launcher's name and signature, and
// keep every element right (the check verifies c like every row of the lesson). Hints:
//   ./scripts/check_exercise.sh 02 occupancy --hint
#include <cuda_runtime.h>

#include "course/check.hpp"
#include "elementwise_add.hpp"

namespace elementwise_add {

namespace {

__global__ void add_occupancy_starter(const float* a, const float* b, float* c, std::size_t n) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    c[i] = a[i] + b[i];
  }
}

}  // namespace

course::LaunchShape launch_exercise_occupancy(const float* a, const float* b, float* c, std::size_t n,
                                              const LaunchConfig& /*config*/, cudaStream_t stream) {
  if (n == 0) return {};
  int device = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  int sms = 0;
  CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  const int block = 64;  // the launch shape to rethink: 64 threads on each SM
  const int grid = sms;
  add_occupancy_starter<<<grid, block, 0, stream>>>(a, b, c, n);
  CUDA_CHECK_LAUNCH("add_occupancy_starter");
  return {grid, block};
}

}  // namespace elementwise_add
