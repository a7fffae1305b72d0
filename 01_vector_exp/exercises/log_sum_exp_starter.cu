// Lesson 01, exercise 3 (starter): log-sum-exp in one pass over x.
//
// log(sum_i exp(x_i)) = m + log(sum_i exp(x_i - m)) for m = max x (without the shift, exp(89)
// overflows). Keep the online softmax's pair (kernels/14_softmax_online.cu): a running max m and
// the sum s of exp(x - m). Everything else is written: fill in update (one more element) and
// combine (two partial pairs) so that the pair stays right, and x is read once. Check with
//   ./scripts/check_exercise.sh 01 log_sum_exp
// (PASS or FAIL with the reason; then compare with exercises/log_sum_exp_solution.cu).
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>

#include "course/check.hpp"
#include "exercises/exercises.hpp"

namespace vector_exp::exercises {

namespace {

struct MaxSum {
  float m = -INFINITY, s = 0.0f;  // running max, sum of exp(x - m); empty: (-inf, 0)
};

// One more element v. TODO: if v is a new max, rescale s by exp(old m - v) and count exp(0) = 1;
// else add exp(v - m).
__device__ MaxSum update(MaxSum a, float v) {
  (void)v;
  return a;
}

// Two partial results. TODO: the larger m, and both sums rescaled to it (mind the empty pair
// (-inf, 0): -inf - (-inf) is NaN).
__device__ MaxSum combine(MaxSum a, MaxSum b) {
  (void)b;
  return a;
}

// The block's pair (thread 0 returns it): shuffles in each warp, then warp 0 over the warps.
__device__ MaxSum block_combine(MaxSum v) {
  __shared__ float ms[32], ss[32];
  for (int offset = 16; offset > 0; offset /= 2) {
    v = combine(v, {__shfl_down_sync(0xffffffffu, v.m, offset), __shfl_down_sync(0xffffffffu, v.s, offset)});
  }
  if (threadIdx.x % 32 == 0) ms[threadIdx.x / 32] = v.m, ss[threadIdx.x / 32] = v.s;
  __syncthreads();
  if (threadIdx.x < 32) {
    v = threadIdx.x < blockDim.x / 32 ? MaxSum{ms[threadIdx.x], ss[threadIdx.x]} : MaxSum{};
    for (int offset = 16; offset > 0; offset /= 2) {
      v = combine(v, {__shfl_down_sync(0xffffffffu, v.m, offset), __shfl_down_sync(0xffffffffu, v.s, offset)});
    }
  }
  return v;
}

__global__ void blocks_kernel(const float* x, std::size_t n, float* partials) {
  MaxSum mine;
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    mine = update(mine, x[i]);
  }
  mine = block_combine(mine);
  if (threadIdx.x == 0) partials[2 * blockIdx.x] = mine.m, partials[2 * blockIdx.x + 1] = mine.s;
}

__global__ void final_kernel(const float* partials, unsigned blocks, float* result) {
  MaxSum v;
  for (unsigned b = threadIdx.x; b < blocks; b += blockDim.x) v = combine(v, {partials[2 * b], partials[2 * b + 1]});
  v = block_combine(v);
  if (threadIdx.x == 0) *result = v.m + logf(v.s);
}

}  // namespace

void launch_log_sum_exp_starter(const float* x, std::size_t n, float* partials, float* result, cudaStream_t stream) {
  if (n == 0) return;
  const unsigned threads = 256;
  const auto blocks = static_cast<unsigned>(std::min<std::size_t>((n + threads - 1) / threads, kLogSumExpBlocks));
  blocks_kernel<<<blocks, threads, 0, stream>>>(x, n, partials);
  CUDA_CHECK_LAUNCH("log-sum-exp blocks_kernel (starter)");
  final_kernel<<<1, threads, 0, stream>>>(partials, blocks, result);
  CUDA_CHECK_LAUNCH("log-sum-exp final_kernel (starter)");
}

}  // namespace vector_exp::exercises
