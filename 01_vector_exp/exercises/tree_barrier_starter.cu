// Lesson 01, exercise (find the bug, on a GPU): the max of x by a tree in shared memory.
//
// One block: every thread takes the max of its elements in a grid-stride loop, writes it to
// shared memory, and the block combines the values in a tree, as step 9 (reduce_shared_tree) does
// for the sum. One line of step 9 is missing here. The result is often right anyway: what goes
// wrong depends on how the warps happen to be scheduled. compute-sanitizer's racecheck watches
// every shared-memory access and reports the race on every run. The check runs the test under it:
//   ./scripts/check_exercise.sh 01 tree_barrier          (FAIL names what racecheck reported)
// Find the race and fix it (one line). Hints: ./scripts/check_exercise.sh 01 tree_barrier --hint
#include <cuda_runtime.h>

#include <cmath>

#include "course/check.hpp"
#include "exercises/exercises.hpp"

namespace vector_exp::exercises {

namespace {

constexpr int kThreads = 256;

__global__ void tree_max_kernel(const float* x, std::size_t n, float* result) {
  __shared__ float values[kThreads];
  float v = -INFINITY;
  for (std::size_t i = threadIdx.x; i < n; i += kThreads) v = fmaxf(v, x[i]);
  values[threadIdx.x] = v;
  for (int half = kThreads / 2; half > 0; half /= 2) {  // the tree: 128, 64, ..., 1
    if (threadIdx.x < half) values[threadIdx.x] = fmaxf(values[threadIdx.x], values[threadIdx.x + half]);
    __syncthreads();  // this level written before the next reads it
  }
  if (threadIdx.x == 0) *result = values[0];
}

}  // namespace

void launch_tree_barrier_starter(const float* x, std::size_t n, float* result, cudaStream_t stream) {
  tree_max_kernel<<<1, kThreads, 0, stream>>>(x, n, result);
  CUDA_CHECK_LAUNCH("tree_max_kernel (starter)");
}

}  // namespace vector_exp::exercises
