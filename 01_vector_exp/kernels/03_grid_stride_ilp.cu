// Lesson 01, step 3: several loads in flight per thread (instruction-level parallelism).
//
// Teaches: memory-bound work needs many loads in flight. Step 2's loop issues one load, waits
// about a microsecond for DRAM, computes, stores, and only then loads again. A GPU hides that
// latency with other warps, but at full occupancy there are not enough of them to cover it.
//
// What changed from step 2: the loop walks tiles instead of elements. A block's tile is
// kIlp * blockDim.x consecutive elements (kIlp is --ilp); thread t first loads elements t,
// t + blockDim.x, ... of it, then computes and stores them. The loads are independent, so all
// kIlp travel at once: --ilp times as many bytes in flight per thread. For every k the threads of
// a warp still touch consecutive addresses (coalesced). With kIlp = 1 this is step 2's loop.
#include <cuda_runtime.h>

#include <algorithm>
#include <stdexcept>

#include "course/check.hpp"
#include "course/launch.hpp"
#include "vector_exp.hpp"

namespace vector_exp {

namespace {

// [docs:kernel]
template <int kIlp>
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
      for (int k = 0; k < kIlp; ++k) y_tile[threadIdx.x + k * blockDim.x] = expf(v[k]);
    } else {
      // The last, partial tile: each element checked.
      const unsigned remaining = static_cast<unsigned>(n - base);
#pragma unroll
      for (int k = 0; k < kIlp; ++k) {
        const unsigned j = threadIdx.x + k * blockDim.x;
        if (j < remaining) y_tile[j] = expf(x_tile[j]);
      }
    }
  }
}
// [docs:end kernel]

using IlpKernel = void (*)(const float*, float*, std::size_t);

// --ilp is a run-time flag, kIlp a compile-time constant (the loads must unroll into registers):
// one instantiation per allowed value.
IlpKernel pick(int ilp) {
  switch (ilp) {
    case 1: return exp_grid_stride_kernel<1>;
    case 2: return exp_grid_stride_kernel<2>;
    case 4: return exp_grid_stride_kernel<4>;
    case 8: return exp_grid_stride_kernel<8>;
  }
  throw std::invalid_argument("ilp must be 1, 2, 4 or 8");
}

constexpr std::size_t kWaves = 4;  // default grid: this many waves of resident blocks

}  // namespace

// By default the grid is 4 times what can be resident on the GPU at once: when a block
// finishes early, a waiting block takes its place, instead of its SM idling until the slowest
// block of a single wave is done (measured on an H100: about 1% more bandwidth). A block
// covers ilp * block elements per trip, so no more than n / ilp threads are needed.
// Steps 4, 5 and 7 fall back to this launcher when x and y cannot both be 16-byte aligned.
course::LaunchShape launch_grid_stride_ilp(const float* x, float* y, std::size_t n, const LaunchConfig& config,
                                           cudaStream_t stream) {
  if (n == 0) return {};
  const IlpKernel function = pick(config.ilp);
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

}  // namespace vector_exp
