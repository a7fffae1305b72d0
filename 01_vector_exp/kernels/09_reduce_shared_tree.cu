// Lesson 01, step 9 (part two, reductions): a tree in shared memory, one per block.
//
// Teaches: instead of queueing at one address, each block reduces its own share, and the
// blocks' results are combined afterwards. First every thread sums its elements in a
// grid-stride loop (step 2's loop: coalesced, any n) into a register; then the block's threads
// write their values to shared memory and combine them in a tree: at each level the first half
// of the threads adds the second half's values to its own, the stride halves (128, 64, ..., 1)
// and __syncthreads() between levels makes sure a value is written before it is read. Thread 0
// writes the block's result to a partials array; a SECOND launch of the same kernel, one block,
// reduces the partials to the result. The order is fixed by the code, so the result is the same
// bits on every run, and its depth is small: the thread's own loop, log2(threads) levels, the
// second launch's loop and tree (reduce.hpp: the error bound of that order).
// Changed from step 8: one atomic per element became a per-thread sum, a tree per block, and a
// second launch over the blocks' partials.
#include <cuda_runtime.h>

#include <algorithm>
#include <bit>
#include <cmath>

#include "course/check.hpp"
#include "kernels/block_reduce.cuh"
#include "reduce.hpp"

namespace vector_exp {

namespace {

using reduce_device::Max;
using reduce_device::Sum;

// [docs:kernel]
// blockDim.x must be a power of two; the block's shared memory holds blockDim.x floats.
template <class Op>
__global__ void reduce_tree(const float* x, std::size_t n, float* out) {
  extern __shared__ float values[];
  const Op op;
  float v = Op::identity();
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    v = op(v, x[i]);
  }
  values[threadIdx.x] = v;
  __syncthreads();
  for (unsigned half = blockDim.x / 2; half > 0; half /= 2) {  // the tree: 128, 64, ..., 1
    if (threadIdx.x < half) values[threadIdx.x] = op(values[threadIdx.x], values[threadIdx.x + half]);
    __syncthreads();  // this level written before the next reads it
  }
  if (threadIdx.x == 0) out[blockIdx.x] = values[0];
}
// [docs:end kernel]

template <class Op>
ReduceShape launch(const float* x, std::size_t n, float* result, const ReduceWorkspace& work,
                   const LaunchConfig& config, cudaStream_t stream) {
  const int threads = static_cast<int>(std::bit_ceil(static_cast<unsigned>(std::clamp(config.block_size, 32, 1024))));
  const std::size_t shared = threads * sizeof(float);
  const long long blocks = reduction_grid(reinterpret_cast<const void*>(reduce_tree<Op>), n, threads, 1, config.grid_size);
  // [docs:launch]
  reduce_tree<Op><<<static_cast<unsigned>(blocks), threads, shared, stream>>>(x, n, work.partials);
  CUDA_CHECK_LAUNCH("reduce_tree (the blocks)");
  reduce_tree<Op><<<1, threads, shared, stream>>>(work.partials, static_cast<std::size_t>(blocks), result);
  CUDA_CHECK_LAUNCH("reduce_tree (their partials)");
  // [docs:end launch]
  const double per_thread = std::ceil(static_cast<double>(n) / (static_cast<double>(blocks) * threads));
  return {{blocks, threads}, grid_sum_depth(per_thread, threads, blocks, threads)};
}

}  // namespace

ReduceShape launch_reduce_shared_tree(const float* x, std::size_t n, float* result, Reduction op,
                                      const ReduceWorkspace& work, const LaunchConfig& config, cudaStream_t stream) {
  if (n == 0) return {};
  return op == Reduction::sum ? launch<Sum>(x, n, result, work, config, stream)
                              : launch<Max>(x, n, result, work, config, stream);
}

}  // namespace vector_exp
