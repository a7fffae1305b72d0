// Lesson 01, step 5: one pass, no loop: every thread loads its float4 vectors, all at once.
//
// Teaches what closes the last few percent to the copy: a grid-stride loop keeps a resident
// grid busy, but each thread's trips are serial (load, wait, compute, store, next trip), and the
// loop's bookkeeping (64-bit indices, bounds, trip count) runs between loads. Here the grid
// covers the array exactly once: each block owns a tile of kVectors * blockDim.x float4s, each
// thread issues its kVectors 16-byte loads back to back (every one in flight before the first
// is used), computes, stores, and exits; the hardware's block scheduler hands the next tile to
// whichever SM has room. That is the shape a library's elementwise kernels use. The few
// elements before the first 16-byte boundary and after the last whole vector are done by the
// first threads of the grid, one by one (exp_head_and_tail, kernels/scalar_ends.cuh).
//
// What changed from step 4: no loop. Step 4's grid strides over the vectors one per thread per
// trip; here each block takes one tile of --ilp x blockDim.x vectors, all its loads first, and the
// grid is as large as the array needs (course::float4_split: the head, the vectors, the blocks).
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <stdexcept>

#include "course/check.hpp"
#include "kernels/scalar_ends.cuh"
#include "vector_exp.hpp"

namespace vector_exp {

namespace {

// [docs:kernel]
template <int kVectors>
__global__ void exp_one_pass(const float* __restrict__ x, float* __restrict__ y, std::size_t head,
                             std::size_t vectors, std::size_t n) {
  const float4* x4 = reinterpret_cast<const float4*>(x + head);
  float4* y4 = reinterpret_cast<float4*>(y + head);
  const std::size_t tile = static_cast<std::size_t>(blockIdx.x) * kVectors * blockDim.x;
  float4 v[kVectors];
#pragma unroll
  for (int k = 0; k < kVectors; ++k) {  // all loads first: kVectors x 16 bytes in flight per thread
    const std::size_t i = tile + k * blockDim.x + threadIdx.x;
    if (i < vectors) v[k] = x4[i];
  }
#pragma unroll
  for (int k = 0; k < kVectors; ++k) {
    const std::size_t i = tile + k * blockDim.x + threadIdx.x;
    if (i < vectors) y4[i] = make_float4(expf(v[k].x), expf(v[k].y), expf(v[k].z), expf(v[k].w));
  }
  detail::exp_head_and_tail(x, y, head, vectors, n);  // block 0: the scalar ends
}
// [docs:end kernel]

using OnePassKernel = void (*)(const float*, float*, std::size_t, std::size_t, std::size_t);

// --ilp is a run-time flag, kVectors a compile-time constant: one instantiation per allowed value.
OnePassKernel pick(int vectors_per_thread) {
  switch (vectors_per_thread) {
    case 1: return exp_one_pass<1>;
    case 2: return exp_one_pass<2>;
    case 4: return exp_one_pass<4>;
    case 8: return exp_one_pass<8>;
  }
  throw std::invalid_argument("ilp must be 1, 2, 4 or 8");
}

}  // namespace

course::LaunchShape launch_one_pass(const float* x, float* y, std::size_t n, const LaunchConfig& config,
                                    cudaStream_t stream) {
  if (n == 0) return {};
  const auto grid = course::float4_split(n, static_cast<std::size_t>(config.ilp) * config.block_size, config.block_size,
                                         "one_pass", x, y);
  if (!grid) return launch_grid_stride_ilp(x, y, n, config, stream);  // x and y cannot both be aligned: step 3
  const auto [head, vectors, blocks] = *grid;
  pick(config.ilp)<<<static_cast<unsigned>(blocks), config.block_size, 0, stream>>>(x, y, head, vectors, n);
  CUDA_CHECK_LAUNCH("exp_one_pass");
  return {static_cast<long long>(blocks), config.block_size};
}

}  // namespace vector_exp
