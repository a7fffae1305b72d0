// Lesson 01, step 12 (part two, reductions): float4 loads, several in flight, one wave of blocks.
//
// Teaches: step 11 is one pass, but each thread still has one 4-byte load in flight at a time
// and adds it before asking for the next. As in exp's steps 4 and 5, the loads are made wide
// (float4: 16 bytes, a quarter of the instructions) and independent (--ilp of them issued
// before any is added: kernels/block_reduce.cuh, visit_vectorized), so each SM keeps enough
// bytes in flight to cover the memory's latency. The grid is exactly the blocks that fit on the
// GPU at once (one wave: no block waits for another to leave), so there are few partials and
// the last block's combine is short. Each thread keeps four running values (one per float4
// lane): four independent chains of additions, a quarter as long. Changed from step 11: the
// loads, the accumulators, the grid.
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

// Four running values, one per float4 lane: four independent chains of additions. A lone
// element (before the first 16-byte boundary or after the last whole float4) goes to lane 0.
template <class Op>
struct FourLanes {
  float lane[4] = {Op::identity(), Op::identity(), Op::identity(), Op::identity()};
  __device__ void operator()(float v) { lane[0] = Op()(lane[0], v); }
  __device__ void operator()(float4 v) {
    lane[0] = Op()(lane[0], v.x), lane[1] = Op()(lane[1], v.y);
    lane[2] = Op()(lane[2], v.z), lane[3] = Op()(lane[3], v.w);
  }
  __device__ float result() const { return Op()(Op()(lane[0], lane[1]), Op()(lane[2], lane[3])); }
};

// [docs:kernel]
template <class Op, int Ilp>
__global__ void reduce_vectorized(const float* x, std::size_t n, float* partials, unsigned* counter, float* result) {
  const Op op;
  FourLanes<Op> lanes;
  reduce_device::visit_vectorized<Ilp>(x, n, lanes);  // float4 loads, Ilp in flight
  float v = block_reduce(lanes.result(), op);
  if (threadIdx.x == 0) partials[blockIdx.x] = v;
  if (!last_block_to_finish(counter)) return;
  v = Op::identity();
  for (unsigned b = threadIdx.x; b < gridDim.x; b += blockDim.x) v = op(v, __ldcg(partials + b));
  v = block_reduce(v, op);
  if (threadIdx.x == 0) *result = v;
}
// [docs:end kernel]

template <class Op, int Ilp>
ReduceShape launch(const float* x, std::size_t n, float* result, const ReduceWorkspace& work,
                   const LaunchConfig& config, cudaStream_t stream) {
  const int threads = whole_warps(config.block_size);
  const auto kernel = reduce_vectorized<Op, Ilp>;
  const long long blocks = reduction_grid(reinterpret_cast<const void*>(kernel), n, threads, 4 * Ilp, config.grid_size);
  kernel<<<static_cast<unsigned>(blocks), threads, 0, stream>>>(x, n, work.partials, work.counter, result);
  CUDA_CHECK_LAUNCH("reduce_vectorized");
  // Each lane's chain: a quarter of the thread's elements (+ the head and tail), then 2 levels.
  const double per_thread = std::ceil(static_cast<double>(n) / (static_cast<double>(blocks) * threads * 4)) + 4;
  return {{blocks, threads}, grid_sum_depth(per_thread, threads, blocks, threads)};
}

template <class Op>
ReduceShape launch_ilp(const float* x, std::size_t n, float* result, const ReduceWorkspace& work,
                       const LaunchConfig& config, cudaStream_t stream) {
  switch (config.ilp) {
    case 1: return launch<Op, 1>(x, n, result, work, config, stream);
    case 2: return launch<Op, 2>(x, n, result, work, config, stream);
    case 8: return launch<Op, 8>(x, n, result, work, config, stream);
    default: return launch<Op, 4>(x, n, result, work, config, stream);
  }
}

}  // namespace

ReduceShape launch_reduce_vectorized(const float* x, std::size_t n, float* result, Reduction op,
                                     const ReduceWorkspace& work, const LaunchConfig& config, cudaStream_t stream) {
  if (n == 0) return {};
  return op == Reduction::sum ? launch_ilp<Sum>(x, n, result, work, config, stream)
                              : launch_ilp<Max>(x, n, result, work, config, stream);
}

}  // namespace vector_exp
