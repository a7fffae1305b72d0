// Lesson 01, step 4: exp with 16-byte vector loads and stores.
//
// Teaches: one float4 load moves 16 bytes with one instruction, so a warp moves 512 bytes per
// load instead of 128, with a quarter of the load/store instructions and of the index
// arithmetic. The price is alignment: a float4 access must start at a multiple of 16 bytes.
// cudaMalloc returns memory aligned to 256 bytes, but a pointer into the middle of an array
// (x + 1) is not, so the launcher peels a scalar head until x is aligned, runs the float4 body,
// and finishes a scalar tail of the last n % 4 elements. When x and y cannot both be aligned
// (their offsets differ), it falls back to step 3's launcher, launch_grid_stride_ilp.
//
// What changed from step 3: float4 instead of float, one vector per thread per trip of step 2's
// grid-stride loop, and the scalar head and tail around it.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include "course/check.hpp"
#include "course/launch.hpp"
#include "vector_exp.hpp"

namespace vector_exp {

namespace {

// head: scalar elements before the first 16-byte boundary of x (0 to 3);
// vectors: float4 groups after the head; n: all elements (the tail is what is left).
__global__ void exp_float4_kernel(const float* __restrict__ x, float* __restrict__ y, std::size_t head,
                                  std::size_t vectors, std::size_t n) {
  const std::size_t thread = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;

  // At most 3 elements before and 3 after the vector body: the first threads take them
  // (written as loops so that even a grid of one thread covers them).
  const std::size_t tail_begin = head + 4 * vectors;
  for (std::size_t i = thread; i < head; i += stride) y[i] = expf(x[i]);
  for (std::size_t i = tail_begin + thread; i < n; i += stride) y[i] = expf(x[i]);

  // [docs:float4_loop]
  const float4* x4 = reinterpret_cast<const float4*>(x + head);
  float4* y4 = reinterpret_cast<float4*>(y + head);
  for (std::size_t v = thread; v < vectors; v += stride) {
    float4 value = x4[v];
    value.x = expf(value.x);
    value.y = expf(value.y);
    value.z = expf(value.z);
    value.w = expf(value.w);
    y4[v] = value;
  }
  // [docs:end float4_loop]
}

}  // namespace

course::LaunchShape launch_float4(const float* x, float* y, std::size_t n, const LaunchConfig& config,
                                  cudaStream_t stream) {
  if (n == 0) return {};
  const auto x_address = reinterpret_cast<std::uintptr_t>(x);
  const auto y_address = reinterpret_cast<std::uintptr_t>(y);
  if (x_address % 16 != y_address % 16 || x_address % 4 != 0) {
    return launch_grid_stride_ilp(x, y, n, config, stream);  // cannot align both: step 3
  }
  const std::size_t head = std::min<std::size_t>(n, (16 - x_address % 16) % 16 / 4);
  const std::size_t vectors = (n - head) / 4;
  const int grid = config.grid_size > 0
                       ? config.grid_size
                       : course::grid_stride_blocks(reinterpret_cast<const void*>(exp_float4_kernel),
                                                    vectors + 3, config.block_size);
  exp_float4_kernel<<<grid, config.block_size, 0, stream>>>(x, y, head, vectors, n);
  CUDA_CHECK_LAUNCH("exp_float4_kernel");
  return {grid, config.block_size};
}

}  // namespace vector_exp
