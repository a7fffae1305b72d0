// Exercise "hide_latency" (make it fast), a solution: the starter's kernel with enough warps.
//
// What changed from the starter: the launch. Blocks of 256 threads, as many as cover the array up
// to the blocks that fit on the GPU at once (course::grid_stride_blocks): every SM holds 64 warps,
// and while one waits for its previous result, the scheduler issues another's instruction. The
// chain of each element stays as long; the SM just has many chains to interleave. (The lesson's
// transform, kernels/01_transform.cu, launches the same way.)
#include <cuda_runtime.h>

#include "course/check.hpp"
#include "course/launch.hpp"
#include "streams.hpp"

namespace streams {

namespace {

__global__ void hide_latency_solution(const float* __restrict__ x, float* __restrict__ y, std::size_t n, int intensity) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    float v = x[i];
    for (int k = 0; k < intensity; ++k) v = __fadd_rn(__fmul_rn(v, kA), kB);
    y[i] = v;
  }
}

}  // namespace

course::LaunchShape launch_exercise_hide_latency_solution(const float* x, float* y, std::size_t n,
                                                          const Transform& transform, cudaStream_t stream) {
  if (n == 0) return {};
  const int block = kBlockSize;
  int grid = course::grid_stride_blocks(reinterpret_cast<const void*>(hide_latency_solution), n, block);
  if (transform.max_blocks > 0 && grid > transform.max_blocks) grid = transform.max_blocks;
  hide_latency_solution<<<grid, block, 0, stream>>>(x, y, n, transform.intensity);
  CUDA_CHECK_LAUNCH("hide_latency_solution");
  return {grid, block};
}

}  // namespace streams
