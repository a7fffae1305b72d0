// Lesson 01, find-the-bug exercise tree_barrier, solution: a barrier between the writes and the tree.
//
// Each thread writes its own value to values[threadIdx.x]; the tree's first level then reads
// values[threadIdx.x + 128], which another warp writes. Without a barrier between the two, a
// fast warp reads the word before the slow warp has written it (a read after a write, with
// nothing between them). __syncthreads() after the writes makes every warp wait until all the
// block's values are in shared memory; every thread reaches it, outside any if.
#include <cuda_runtime.h>

#include <cmath>

#include "course/check.hpp"
#include "exercises/exercises.hpp"

namespace vector_exp::exercises {

namespace {

constexpr int kThreads = 256;

__global__ void tree_max_fixed_kernel(const float* x, std::size_t n, float* result) {
  __shared__ float values[kThreads];
  float v = -INFINITY;
  for (std::size_t i = threadIdx.x; i < n; i += kThreads) v = fmaxf(v, x[i]);
  values[threadIdx.x] = v;
  __syncthreads();  // the fix: every value is written before the tree reads it
  for (int half = kThreads / 2; half > 0; half /= 2) {
    if (threadIdx.x < half) values[threadIdx.x] = fmaxf(values[threadIdx.x], values[threadIdx.x + half]);
    __syncthreads();
  }
  if (threadIdx.x == 0) *result = values[0];
}

}  // namespace

void launch_tree_barrier_solution(const float* x, std::size_t n, float* result, cudaStream_t stream) {
  tree_max_fixed_kernel<<<1, kThreads, 0, stream>>>(x, n, result);
  CUDA_CHECK_LAUNCH("tree_max_fixed_kernel (solution)");
}

}  // namespace vector_exp::exercises
