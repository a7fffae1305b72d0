// Lesson 02, step 2: a grid-stride loop.
//
// Teaches: each thread handles i, i + stride, i + 2 * stride, ... where stride is the number of
// threads in the grid. Any grid covers any n, so the grid is sized to the GPU (the blocks that
// can be resident at once) instead of to the data. Neighbouring threads still touch
// neighbouring addresses on every trip (coalesced). The kernel is memory-bound: one add per 12
// bytes moved (two 4-byte loads, one 4-byte store), so the speed to compare with is the
// memory's (a device-to-device copy), not the FLOP rate. The launch sweep (--sweep launch) runs
// this kernel at every block and grid size.
#include <cuda_runtime.h>

#include "course/check.hpp"
#include "course/launch.hpp"
#include "elementwise_add.hpp"

namespace elementwise_add {

namespace {

// [docs:kernel]
__global__ void add_grid_stride(const float* a, const float* b, float* c, std::size_t n) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    c[i] = a[i] + b[i];
  }
}
// [docs:end kernel]

}  // namespace

course::LaunchShape launch_add_grid_stride(const float* a, const float* b, float* c, std::size_t n,
                                           const LaunchConfig& config, cudaStream_t stream) {
  if (n == 0) return {};
  const int grid = config.grid_size > 0 ? config.grid_size
                                        : course::grid_stride_blocks(reinterpret_cast<const void*>(add_grid_stride),
                                                                     n, config.block_size);
  add_grid_stride<<<grid, config.block_size, 0, stream>>>(a, b, c, n);
  CUDA_CHECK_LAUNCH("add_grid_stride");
  return {grid, config.block_size};
}

int grid_stride_blocks_per_sm(int block_size) {
  int per_sm = 0;
  CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, add_grid_stride, block_size, 0));
  return per_sm;
}

}  // namespace elementwise_add
