// Lesson 01, exercise 3 (solution): log-sum-exp in one pass over x.
//
// log(sum_i exp(x_i)) = m + log(sum_i exp(x_i - m)) for m = max x: the (m, s) pair of the online
// softmax (kernels/14_softmax_online.cu) is exactly what it needs, so x is read once.
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

// [docs:log_sum_exp]
// One more element v.
__device__ MaxSum update(MaxSum a, float v) {
  if (v > a.m) return {v, a.s * expf(a.m - v) + 1.0f};
  return {a.m, a.s + expf(v - a.m)};
}

// Two partial results.
__device__ MaxSum combine(MaxSum a, MaxSum b) {
  if (b.m == -INFINITY) return a;
  if (a.m == -INFINITY) return b;
  const float m = fmaxf(a.m, b.m);
  return {m, a.s * expf(a.m - m) + b.s * expf(b.m - m)};
}
// [docs:end log_sum_exp]

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

void launch_log_sum_exp_solution(const float* x, std::size_t n, float* partials, float* result, cudaStream_t stream) {
  if (n == 0) return;
  const unsigned threads = 256;
  const auto blocks = static_cast<unsigned>(std::min<std::size_t>((n + threads - 1) / threads, kLogSumExpBlocks));
  blocks_kernel<<<blocks, threads, 0, stream>>>(x, n, partials);
  CUDA_CHECK_LAUNCH("log-sum-exp blocks_kernel (solution)");
  final_kernel<<<1, threads, 0, stream>>>(partials, blocks, result);
  CUDA_CHECK_LAUNCH("log-sum-exp final_kernel (solution)");
}

}  // namespace vector_exp::exercises
