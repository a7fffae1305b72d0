// Lesson 01, step 10 (part two, reductions): warp shuffles instead of shared memory.
//
// Teaches: the 32 threads of a warp run in lockstep and can read each other's registers with
// __shfl_down_sync (kernels/block_reduce.cuh, warp_reduce): five exchanges (offsets 16, 8, 4,
// 2, 1) reduce a warp with no shared memory and no __syncthreads. A block then needs shared
// memory only for one value per warp (at most 32), which the first warp reduces the same way:
// two barriers instead of one per tree level. Changed from step 9: the block's tree, and any
// block of whole warps works (not only powers of two). Still two launches.
#include <cuda_runtime.h>

#include <cmath>

#include "course/check.hpp"
#include "kernels/block_reduce.cuh"
#include "reduce.hpp"

namespace vector_exp {

namespace {

using reduce_device::block_reduce;
using reduce_device::Max;
using reduce_device::Sum;

// [docs:kernel]
template <class Op>
__global__ void reduce_shuffle(const float* x, std::size_t n, float* out) {
  const Op op;
  float v = Op::identity();
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    v = op(v, x[i]);
  }
  v = block_reduce(v, op);  // warp_reduce in each warp, then the warps' results in warp 0
  if (threadIdx.x == 0) out[blockIdx.x] = v;
}
// [docs:end kernel]

template <class Op>
ReduceShape launch(const float* x, std::size_t n, float* result, const ReduceWorkspace& work,
                   const LaunchConfig& config, cudaStream_t stream) {
  const int threads = whole_warps(config.block_size);
  const long long blocks = reduction_grid(reinterpret_cast<const void*>(reduce_shuffle<Op>), n, threads, 1, config.grid_size);
  reduce_shuffle<Op><<<static_cast<unsigned>(blocks), threads, 0, stream>>>(x, n, work.partials);
  CUDA_CHECK_LAUNCH("reduce_shuffle (the blocks)");
  reduce_shuffle<Op><<<1, 1024, 0, stream>>>(work.partials, static_cast<std::size_t>(blocks), result);
  CUDA_CHECK_LAUNCH("reduce_shuffle (their partials)");
  const double per_thread = std::ceil(static_cast<double>(n) / (static_cast<double>(blocks) * threads));
  return {{blocks, threads}, grid_sum_depth(per_thread, threads, blocks, 1024)};
}

}  // namespace

ReduceShape launch_reduce_warp_shuffle(const float* x, std::size_t n, float* result, Reduction op,
                                       const ReduceWorkspace& work, const LaunchConfig& config, cudaStream_t stream) {
  if (n == 0) return {};
  return op == Reduction::sum ? launch<Sum>(x, n, result, work, config, stream)
                              : launch<Max>(x, n, result, work, config, stream);
}

}  // namespace vector_exp
