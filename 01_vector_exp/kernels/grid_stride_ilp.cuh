// Lesson 01: the tiled grid-stride kernel with several loads in flight per thread, shared by
// kernels/03_grid_stride_ilp.cu (expf) and kernels/06_fast_expf.cu (__expf).
//
// Teaches: memory-bound work needs many loads in flight. Each thread first loads kIlp elements,
// then computes and stores them: the loads are independent, so all kIlp travel at once
// (memory-level parallelism). A block's tile is kIlp * blockDim.x consecutive elements; thread t
// takes elements t, t + blockDim.x, ... of it, so for every k the threads of a warp touch
// consecutive addresses (coalesced). The blocks then stride over the tiles of the whole array.
// With kIlp = 1 this is step 2's classic loop.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <stdexcept>

#include "course/check.hpp"
#include "course/launch.hpp"
#include "vector_exp.hpp"

namespace vector_exp::detail {

template <bool kFast>
__device__ __forceinline__ float exp_of(float v) {
  if constexpr (kFast) {
    return __expf(v);
  } else {
    return expf(v);
  }
}

// [docs:kernel]
template <int kIlp, bool kFast>
__global__ void exp_grid_stride_kernel(const float* __restrict__ x, float* __restrict__ y, std::size_t n) {
  const std::size_t tile = static_cast<std::size_t>(kIlp) * blockDim.x;
  const std::size_t stride = tile * gridDim.x;
  for (std::size_t base = blockIdx.x * tile; base < n; base += stride) {
    // Offsets inside a tile fit in 32 bits: cheaper arithmetic than 64-bit indices per element.
    const float* x_tile = x + base;
    float* y_tile = y + base;
    if (base + tile <= n) {
      // A whole tile inside the array: no bounds checks between the loads.
      float v[kIlp];
#pragma unroll
      for (int k = 0; k < kIlp; ++k) v[k] = x_tile[threadIdx.x + k * blockDim.x];
#pragma unroll
      for (int k = 0; k < kIlp; ++k) y_tile[threadIdx.x + k * blockDim.x] = exp_of<kFast>(v[k]);
    } else {
      // The last, partial tile: each element checked.
      const unsigned remaining = static_cast<unsigned>(n - base);
#pragma unroll
      for (int k = 0; k < kIlp; ++k) {
        const unsigned j = threadIdx.x + k * blockDim.x;
        if (j < remaining) y_tile[j] = exp_of<kFast>(x_tile[j]);
      }
    }
  }
}
// [docs:end kernel]


using IlpKernel = void (*)(const float*, float*, std::size_t);

template <bool kFast>
IlpKernel pick_ilp_kernel(int ilp) {
  switch (ilp) {
    case 1: return exp_grid_stride_kernel<1, kFast>;
    case 2: return exp_grid_stride_kernel<2, kFast>;
    case 4: return exp_grid_stride_kernel<4, kFast>;
    case 8: return exp_grid_stride_kernel<8, kFast>;
  }
  throw std::invalid_argument("ilp must be 1, 2, 4 or 8");
}

// By default the grid is 4 times what can be resident on the GPU at once: when a block
// finishes early, a waiting block takes its place, instead of its SM idling until the slowest
// block of a single wave is done (measured on an H100: about 1% more bandwidth). A block
// covers ilp * block elements per trip, so no more than n / ilp threads are needed.
template <bool kFast>
course::LaunchShape launch_ilp(const float* x, float* y, std::size_t n, const LaunchConfig& config,
                               cudaStream_t stream) {
  if (n == 0) return {};
  constexpr std::size_t kWaves = 4;
  const IlpKernel function = pick_ilp_kernel<kFast>(config.ilp);
  int grid = config.grid_size;
  if (grid <= 0) {  // the occupancy query only when no grid is given (never between timing events)
    const std::size_t per_thread = static_cast<std::size_t>(config.ilp);
    const std::size_t needed = course::blocks_to_cover((n + per_thread - 1) / per_thread, config.block_size);
    const auto resident =
        static_cast<std::size_t>(course::resident_blocks(reinterpret_cast<const void*>(function), config.block_size));
    grid = static_cast<int>(std::min(needed, kWaves * resident));
  }
  function<<<grid, config.block_size, 0, stream>>>(x, y, n);
  CUDA_CHECK_LAUNCH("exp_grid_stride_kernel");
  return {grid, config.block_size};
}

}  // namespace vector_exp::detail
