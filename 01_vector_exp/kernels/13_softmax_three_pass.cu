// Lesson 01, step 13 (part two, softmax): softmax in three passes over x.
//
// Teaches: softmax(x)_i = exp(x_i - m) / S with m = max x and S = sum_j exp(x_j - m). Why
// subtract m: exp(89) is already larger than the largest float (3.4e38), so exp(x_i) overflows
// to inf for any x_i >= 89 and inf / inf is NaN; after the shift every exponent is <= 0, every
// exp(x_i - m) is in (0, 1], and the sum is at least 1. The direct way is three passes: the max
// (step 12's kernel), the sum of exp(x - m) (the same kernel shape, with expf before adding),
// then y = exp(x - m) / S (softmax_normalize.cuh). x is read three times and y written once:
// 16 bytes per element. m and S stay on the device between the launches.
// Changed from step 12: the reduction becomes two of softmax's three passes (the max, then the sum
// of exp(x - m)), and a third pass writes y.
#include <cuda_runtime.h>

#include <cmath>

#include "course/check.hpp"
#include "kernels/block_reduce.cuh"
#include "kernels/softmax_normalize.cuh"
#include "reduce.hpp"

namespace vector_exp {

namespace {

using reduce_device::block_reduce;
using reduce_device::last_block_to_finish;
using reduce_device::Sum;

// Four running sums of exp(x - m), one per float4 lane.
struct ShiftedExpSum {
  float m;
  float lane[4] = {0.0f, 0.0f, 0.0f, 0.0f};
  __device__ void operator()(float v) { lane[0] += expf(v - m); }
  __device__ void operator()(float4 v) {
    lane[0] += expf(v.x - m), lane[1] += expf(v.y - m), lane[2] += expf(v.z - m), lane[3] += expf(v.w - m);
  }
};

// [docs:kernel]
// Pass 2: scalars[1] = sum of exp(x - scalars[0]), in one launch (step 12's shape).
template <int Ilp>
__global__ void sum_shifted_exp(const float* x, std::size_t n, float* partials, unsigned* counter, float* scalars) {
  ShiftedExpSum sums{scalars[0]};
  reduce_device::visit_vectorized<Ilp>(x, n, sums);
  float v = block_reduce((sums.lane[0] + sums.lane[1]) + (sums.lane[2] + sums.lane[3]), Sum());
  if (threadIdx.x == 0) partials[blockIdx.x] = v;
  if (!last_block_to_finish(counter)) return;
  v = 0.0f;
  for (unsigned b = threadIdx.x; b < gridDim.x; b += blockDim.x) v += __ldcg(partials + b);
  v = block_reduce(v, Sum());
  if (threadIdx.x == 0) scalars[1] = v;
}
// [docs:end kernel]

template <int Ilp>
ReduceShape launch(const float* x, std::size_t n, float* y, const ReduceWorkspace& work, const LaunchConfig& config,
                   cudaStream_t stream) {
  const int threads = whole_warps(config.block_size);
  // [docs:launch]
  launch_reduce_vectorized(x, n, work.scalars, Reduction::max, work, config, stream);  // pass 1: m
  const auto kernel = sum_shifted_exp<Ilp>;
  const long long blocks = reduction_grid(reinterpret_cast<const void*>(kernel), n, threads, 4 * Ilp, config.grid_size);
  kernel<<<static_cast<unsigned>(blocks), threads, 0, stream>>>(x, n, work.partials, work.counter, work.scalars);
  CUDA_CHECK_LAUNCH("sum_shifted_exp");                                                   // pass 2: S
  reduce_device::launch_softmax_normalize<Ilp>(x, n, y, work.scalars, threads, stream);        // pass 3: y
  // [docs:end launch]
  const double per_thread = std::ceil(static_cast<double>(n) / (static_cast<double>(blocks) * threads * 4)) + 4;
  return {{blocks, threads}, grid_sum_depth(per_thread, threads, blocks, threads)};
}

}  // namespace

ReduceShape launch_softmax_three_pass(const float* x, std::size_t n, float* y, const ReduceWorkspace& work,
                                      const LaunchConfig& config, cudaStream_t stream) {
  if (n == 0) return {};
  switch (config.ilp) {
    case 1: return launch<1>(x, n, y, work, config, stream);
    case 2: return launch<2>(x, n, y, work, config, stream);
    case 8: return launch<8>(x, n, y, work, config, stream);
    default: return launch<4>(x, n, y, work, config, stream);
  }
}

}  // namespace vector_exp
