// Lesson 02, step 3: c = a + b with 16-byte float4 loads and stores.
//
// Teaches: the add is limited by memory, so the only way to make it faster is to keep the
// memory system busier. Three things do that here:
//  - 16-byte accesses: one float4 load moves 16 bytes with one instruction, so a warp moves 512
//    bytes per load instead of 128, with a quarter of the load/store instructions and of the
//    index arithmetic;
//  - more loads in flight: each thread loads kIlp float4 of a and of b (i, i + stride, ...)
//    before it adds and stores any; the loads are independent, so all of them travel at once;
//  - a grid of the blocks that fit on the GPU at once (resident blocks), striding over the
//    array, so no block waits for a free SM and no thread is idle at the end of a wave.
// The price is alignment: a float4 access must start at a multiple of 16 bytes. cudaMalloc
// returns memory aligned to 256 bytes, but a view into the middle of an array (a + 1) is not.
// When a, b and c sit at the same offset from a 16-byte boundary, a scalar head brings all three
// to the boundary together, the body runs on float4, and a scalar tail finishes the last
// n % 4 elements. When they do not (a + 1, c + 2), no head aligns all three, and the launcher
// falls back to step 2's scalar grid-stride kernel.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <stdexcept>

#include "course/check.hpp"
#include "course/launch.hpp"
#include "elementwise_add.hpp"

namespace elementwise_add {

namespace {

__device__ __forceinline__ float4 add4(float4 x, float4 y) {
  return make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
}

// head: scalar elements before the first 16-byte boundary (0 to 3, the same for a, b and c);
// vectors: float4 groups after the head; n: all elements (the tail is what is left after them).
template <int kIlp>
__global__ void add_float4(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c,
                           std::size_t head, std::size_t vectors, std::size_t n) {
  const std::size_t thread = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;

  // At most 3 elements before and 3 after the vector body: the first threads take them
  // (written as loops so that even a grid of one thread covers them).
  const std::size_t tail_begin = head + 4 * vectors;
  for (std::size_t i = thread; i < head; i += stride) c[i] = a[i] + b[i];
  for (std::size_t i = tail_begin + thread; i < n; i += stride) c[i] = a[i] + b[i];

  const float4* a4 = reinterpret_cast<const float4*>(a + head);
  const float4* b4 = reinterpret_cast<const float4*>(b + head);
  float4* c4 = reinterpret_cast<float4*>(c + head);
  std::size_t v = thread;
  // [docs:ilp_loop]
  // Whole trips: all kIlp groups of this trip are inside the array. Every load is issued
  // before the first add, so they are all in flight together.
  for (; v + (kIlp - 1) * stride < vectors; v += kIlp * stride) {
    float4 x[kIlp], y[kIlp];
#pragma unroll
    for (int k = 0; k < kIlp; ++k) {
      x[k] = a4[v + k * stride];
      y[k] = b4[v + k * stride];
    }
#pragma unroll
    for (int k = 0; k < kIlp; ++k) c4[v + k * stride] = add4(x[k], y[k]);
  }
  // The rest: fewer than kIlp groups are left for this thread.
  for (; v < vectors; v += stride) c4[v] = add4(a4[v], b4[v]);
  // [docs:end ilp_loop]
}

using Float4Kernel = void (*)(const float*, const float*, float*, std::size_t, std::size_t, std::size_t);

Float4Kernel pick_kernel(int ilp) {
  switch (ilp) {
    case 1: return add_float4<1>;
    case 2: return add_float4<2>;
    case 4: return add_float4<4>;
  }
  throw std::invalid_argument("add_float4: ilp must be 1, 2 or 4");
}

}  // namespace

course::LaunchShape launch_add_float4(const float* a, const float* b, float* c, std::size_t n,
                                      const LaunchConfig& config, cudaStream_t stream) {
  if (n == 0) return {};
  const auto a_address = reinterpret_cast<std::uintptr_t>(a);
  const auto b_address = reinterpret_cast<std::uintptr_t>(b);
  const auto c_address = reinterpret_cast<std::uintptr_t>(c);
  // [docs:alignment]
  const std::uintptr_t offset = a_address % 16;
  if (b_address % 16 != offset || c_address % 16 != offset || offset % 4 != 0) {
    return launch_add_grid_stride(a, b, c, n, config, stream);  // no head aligns all three
  }
  const std::size_t head = std::min<std::size_t>(n, (16 - offset) % 16 / 4);
  const std::size_t vectors = (n - head) / 4;
  // [docs:end alignment]

  const Float4Kernel kernel = pick_kernel(config.ilp);
  // Enough threads to give each one kIlp groups, at most the resident blocks (at least one
  // block, which also covers a head and tail with no body).
  const std::size_t per_thread = static_cast<std::size_t>(config.ilp);
  const int grid = config.grid_size > 0
                       ? config.grid_size
                       : course::grid_stride_blocks(reinterpret_cast<const void*>(kernel),
                                                    (vectors + per_thread - 1) / per_thread, config.block_size);
  kernel<<<grid, config.block_size, 0, stream>>>(a, b, c, head, vectors, n);
  CUDA_CHECK_LAUNCH("add_float4");
  return {grid, config.block_size};
}

}  // namespace elementwise_add
