// Lesson 01, step 11 (part two, reductions): one launch, the grid's combine included.
//
// Teaches: a second launch for the partials costs a launch and a wait. Instead, each block
// writes its partial, and the last block to finish combines them all in the same launch
// (kernels/block_reduce.cuh, last_block_to_finish): a __threadfence() so the partial is visible
// to the whole GPU, an atomic counter that hands out tickets, and the block with the last ticket
// reads every partial and writes the result. It also resets the counter to zero, so the kernel
// can be launched again (the tests launch it twice in a row). Blocks never wait for each other:
// no block can know that the others are even running, which is why this needs no co-residency
// (a grid-wide barrier would: cudaLaunchCooperativeKernel). The combine's order is fixed (the
// last block reads partials 0, 1, 2, ... whichever block it is), so the bits are the same on
// every run. Changed from step 10: the second launch.
#include <cuda_runtime.h>

#include <cmath>

#include "course/check.hpp"
#include "kernels/block_reduce.cuh"
#include "reduce.hpp"

namespace vector_exp {

namespace {

using reduce_device::block_reduce;
using reduce_device::last_block_to_finish;
using reduce_device::Max;
using reduce_device::Sum;

// [docs:kernel]
template <class Op>
__global__ void reduce_one_pass(const float* x, std::size_t n, float* partials, unsigned* counter, float* result) {
  const Op op;
  float v = Op::identity();
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    v = op(v, x[i]);
  }
  v = block_reduce(v, op);
  if (threadIdx.x == 0) partials[blockIdx.x] = v;
  if (!last_block_to_finish(counter)) return;
  // The last block: every partial is written. Read them in a fixed order, reduce, write.
  v = Op::identity();
  for (unsigned b = threadIdx.x; b < gridDim.x; b += blockDim.x) v = op(v, __ldcg(partials + b));
  v = block_reduce(v, op);
  if (threadIdx.x == 0) *result = v;
}
// [docs:end kernel]

template <class Op>
ReduceShape launch(const float* x, std::size_t n, float* result, const ReduceWorkspace& work,
                   const LaunchConfig& config, cudaStream_t stream) {
  const int threads = whole_warps(config.block_size);
  const long long blocks = reduction_grid(reinterpret_cast<const void*>(reduce_one_pass<Op>), n, threads, 1, config.grid_size);
  reduce_one_pass<Op><<<static_cast<unsigned>(blocks), threads, 0, stream>>>(x, n, work.partials, work.counter, result);
  CUDA_CHECK_LAUNCH("reduce_one_pass");
  const double per_thread = std::ceil(static_cast<double>(n) / (static_cast<double>(blocks) * threads));
  return {{blocks, threads}, grid_sum_depth(per_thread, threads, blocks, threads)};
}

}  // namespace

ReduceShape launch_reduce_one_pass(const float* x, std::size_t n, float* result, Reduction op,
                                   const ReduceWorkspace& work, const LaunchConfig& config, cudaStream_t stream) {
  if (n == 0) return {};
  return op == Reduction::sum ? launch<Sum>(x, n, result, work, config, stream)
                              : launch<Max>(x, n, result, work, config, stream);
}

}  // namespace vector_exp
