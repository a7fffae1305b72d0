// Lesson 01, step 2: the grid-stride loop.
//
// Teaches: with a loop, any grid covers any n, so the grid is sized to the GPU instead of to the
// data: enough blocks to fill every SM (the occupancy calculator says how many fit), a few
// waves of them. Each thread handles i, i + stride, i + 2 * stride, ..., where stride is the
// number of threads in the grid; on every trip neighbouring threads touch neighbouring
// addresses, so the warp's loads are coalesced.
//
// What changed from step 1: the kernel's if became a loop (i += stride), and the launcher sizes
// the grid to the GPU (kWaves waves of resident blocks) instead of to n.
#include <cuda_runtime.h>

#include <algorithm>

#include "course/check.hpp"
#include "vector_exp.hpp"

namespace vector_exp {

namespace {

// [docs:kernel]
__global__ void exp_grid_stride(const float* x, float* y, std::size_t n) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    y[i] = expf(x[i]);
  }
}
// [docs:end kernel]

constexpr std::size_t kWaves = 4;  // default grid: this many waves of resident blocks

}  // namespace

course::LaunchShape launch_grid_stride(const float* x, float* y, std::size_t n, const LaunchConfig& config,
                                       cudaStream_t stream) {
  if (n == 0) return {};
  // [docs:launch]
  int grid = config.grid_size;
  if (grid <= 0) {  // the occupancy query only when no grid is given (never between timing events)
    const std::size_t needed = course::blocks_to_cover(n, config.block_size);
    const auto resident = static_cast<std::size_t>(
        course::resident_blocks(reinterpret_cast<const void*>(exp_grid_stride), config.block_size));
    grid = static_cast<int>(std::min(needed, kWaves * resident));
  }
  exp_grid_stride<<<grid, config.block_size, 0, stream>>>(x, y, n);
  CUDA_CHECK_LAUNCH("exp_grid_stride");
  // [docs:end launch]
  return {grid, config.block_size};
}

}  // namespace vector_exp
