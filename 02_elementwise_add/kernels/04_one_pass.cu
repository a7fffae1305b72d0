// Lesson 02, step 4: one pass, no loop: every thread issues all its float4 loads at once.
//
// Teaches what the last few percent to the copy are made of (lesson 01 shows the same step for
// exp): a grid-stride loop serialises each thread's trips (load, wait, add, store, next trip)
// and runs its bookkeeping between loads. Here the grid covers the array exactly once: each
// block owns a tile of --ilp x blockDim.x float4 groups, each thread loads its --ilp groups of a
// and of b back to back (all in flight before the first add), adds, stores and exits; the block
// scheduler hands the next tile to whichever SM has room. That is how a library's elementwise
// kernels are shaped. The first threads of block 0 do the scalar head and tail.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <stdexcept>

#include "course/check.hpp"
#include "elementwise_add.hpp"
#include "kernels/scalar_ends.cuh"

namespace elementwise_add {

namespace {

template <int kGroups>
__global__ void add_one_pass(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c,
                             std::size_t head, std::size_t vectors, std::size_t n) {
  const float4* a4 = reinterpret_cast<const float4*>(a + head);
  const float4* b4 = reinterpret_cast<const float4*>(b + head);
  float4* c4 = reinterpret_cast<float4*>(c + head);
  // [docs:kernel_body]
  const std::size_t tile = static_cast<std::size_t>(blockIdx.x) * kGroups * blockDim.x;
  float4 x[kGroups], y[kGroups];
#pragma unroll
  for (int k = 0; k < kGroups; ++k) {  // every load first: 2 x kGroups x 16 bytes in flight per thread
    const std::size_t i = tile + k * blockDim.x + threadIdx.x;
    if (i < vectors) {
      x[k] = a4[i];
      y[k] = b4[i];
    }
  }
#pragma unroll
  for (int k = 0; k < kGroups; ++k) {
    const std::size_t i = tile + k * blockDim.x + threadIdx.x;
    if (i < vectors) c4[i] = make_float4(x[k].x + y[k].x, x[k].y + y[k].y, x[k].z + y[k].z, x[k].w + y[k].w);
  }
  // [docs:end kernel_body]
  detail::add_head_and_tail(a, b, c, head, vectors, n);  // block 0: the scalar ends
}

using OnePassKernel = void (*)(const float*, const float*, float*, std::size_t, std::size_t, std::size_t);

OnePassKernel pick(int groups) {
  switch (groups) {
    case 1: return add_one_pass<1>;
    case 2: return add_one_pass<2>;
    case 4: return add_one_pass<4>;
  }
  throw std::invalid_argument("add_one_pass: ilp must be 1, 2 or 4");
}

}  // namespace

course::LaunchShape launch_add_one_pass(const float* a, const float* b, float* c, std::size_t n,
                                        const LaunchConfig& config, cudaStream_t stream) {
  if (n == 0) return {};
  const auto grid = course::float4_split(n, static_cast<std::size_t>(config.ilp) * config.block_size, config.block_size,
                                         "add_one_pass", a, b, c);
  if (!grid) return launch_add_grid_stride(a, b, c, n, config, stream);  // no head aligns all three
  const auto [head, vectors, blocks] = *grid;
  pick(config.ilp)<<<static_cast<unsigned>(blocks), config.block_size, 0, stream>>>(a, b, c, head, vectors, n);
  CUDA_CHECK_LAUNCH("add_one_pass");
  return {static_cast<long long>(blocks), config.block_size};
}

}  // namespace elementwise_add
