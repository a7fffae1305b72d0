// Lesson 03, the kernel: y[i] = f(x[i]), f = `intensity` steps of v = v * a + b.
//
// Teaches:
//  - arithmetic intensity as a knob: each element costs 8 bytes of memory traffic (and 8 bytes
//    over PCIe end to end) and 2 * intensity floating-point operations. At low intensity the
//    copies dominate whatever the kernel does; at high intensity the kernel does. In between,
//    overlapping copies with the kernel (pipeline.cpp) can hide one behind the other;
//  - exact CPU/GPU agreement: __fmul_rn and __fadd_rn round to nearest after each operation and
//    are never fused by the compiler into an FMA (which rounds once), so each step is the same
//    two roundings as on the CPU and the results match to the bit. The price: two instructions
//    per step where an FMA would be one, so the kernel reaches at most half of the FP32 FMA
//    ceiling it is held against;
//  - the grid-stride loop (lesson 01): one launch covers any n, whatever the grid.
#include <cuda_runtime.h>

#include <algorithm>

#include "course/check.hpp"
#include "course/launch.hpp"
#include "streams.hpp"

namespace streams {

namespace {

// [docs:kernel]
__global__ void transform_kernel(const float* __restrict__ x, float* __restrict__ y, std::size_t n,
                                 int intensity) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    float v = x[i];
    // A chain of dependent steps: its latency is hidden by the many other warps on each SM.
    for (int k = 0; k < intensity; ++k) v = __fadd_rn(__fmul_rn(v, kA), kB);
    y[i] = v;
  }
}
// [docs:end kernel]

// How many blocks of the kernel fit on the current GPU at once, asked once per device: the
// occupancy query is host work, and before every launch it would sit between a start event and
// the kernel it times (a pipeline launches once per chunk).
int resident_blocks() {
  thread_local int device = -1, blocks = 0;
  int current = 0;
  CUDA_CHECK(cudaGetDevice(&current));
  if (current != device) {
    blocks = course::resident_blocks(reinterpret_cast<const void*>(transform_kernel), kBlockSize);
    device = current;
  }
  return blocks;
}

}  // namespace

course::LaunchShape launch_transform(const float* x, float* y, std::size_t n, const Transform& transform,
                                     cudaStream_t stream) {
  if (n == 0) return {};
  // The grid covers n, up to the blocks that fit at once (the grid-stride loop does the rest).
  const int cap = transform.max_blocks > 0 ? transform.max_blocks : resident_blocks();
  const int grid = static_cast<int>(std::min(course::blocks_to_cover(n, kBlockSize), static_cast<std::size_t>(cap)));
  transform_kernel<<<grid, kBlockSize, 0, stream>>>(x, y, n, transform.intensity);
  CUDA_CHECK_LAUNCH("transform_kernel");
  return {grid, kBlockSize};
}

}  // namespace streams
