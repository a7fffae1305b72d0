// Lesson 01, step 6: __expf, the hardware approximation.
//
// Teaches: expf is accurate to 2 ulp and costs a dozen instructions; __expf is one
// special-function-unit instruction (ex2.approx after a multiply) whose error grows with |x|
// (2 + floor(1.173 |x|) ulp). In a memory-bound kernel the saving buys no time at all: the
// table shows both at the copy's speed. The intrinsic pays only where arithmetic is the
// bottleneck, and only where its error is acceptable.
//
// What changed from step 3: expf became __expf, twice; the tiles, the loads in flight and the
// launcher are step 3's (kernels/03_grid_stride_ilp.cu), line for line.
#include <cuda_runtime.h>

#include <algorithm>
#include <stdexcept>

#include "course/check.hpp"
#include "course/launch.hpp"
#include "vector_exp.hpp"

namespace vector_exp {

namespace {

template <int kIlp>
__global__ void exp_fast_grid_stride_kernel(const float* __restrict__ x, float* __restrict__ y, std::size_t n) {
  const std::size_t tile = static_cast<std::size_t>(kIlp) * blockDim.x;
  const std::size_t stride = tile * gridDim.x;
  for (std::size_t base = blockIdx.x * tile; base < n; base += stride) {
    const float* x_tile = x + base;
    float* y_tile = y + base;
    if (base + tile <= n) {
      float v[kIlp];
#pragma unroll
      for (int k = 0; k < kIlp; ++k) v[k] = x_tile[threadIdx.x + k * blockDim.x];
#pragma unroll
      for (int k = 0; k < kIlp; ++k) y_tile[threadIdx.x + k * blockDim.x] = __expf(v[k]);  // was expf
    } else {
      const unsigned remaining = static_cast<unsigned>(n - base);
#pragma unroll
      for (int k = 0; k < kIlp; ++k) {
        const unsigned j = threadIdx.x + k * blockDim.x;
        if (j < remaining) y_tile[j] = __expf(x_tile[j]);  // was expf
      }
    }
  }
}

using IlpKernel = void (*)(const float*, float*, std::size_t);

IlpKernel pick(int ilp) {
  switch (ilp) {
    case 1: return exp_fast_grid_stride_kernel<1>;
    case 2: return exp_fast_grid_stride_kernel<2>;
    case 4: return exp_fast_grid_stride_kernel<4>;
    case 8: return exp_fast_grid_stride_kernel<8>;
  }
  throw std::invalid_argument("ilp must be 1, 2, 4 or 8");
}

constexpr std::size_t kWaves = 4;  // default grid: this many waves of resident blocks

}  // namespace

course::LaunchShape launch_fast_expf(const float* x, float* y, std::size_t n, const LaunchConfig& config,
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
  CUDA_CHECK_LAUNCH("exp_fast_grid_stride_kernel");
  return {grid, config.block_size};
}

}  // namespace vector_exp
