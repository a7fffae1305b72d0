// Lesson 01: the scalar ends of steps 5 and 7, which cover the array once in float4 vectors.
//
// Teaches: the split of x and y into a scalar head, whole vectors and a scalar tail is
// course::float4_split (common/include/course/float4_split.hpp); the vectors are the kernels'
// own work (one_pass: --ilp x blockDim.x per block, bulk_copy: --tile / 4), and block 0's first
// threads do the few scalar elements at both ends.
#pragma once

#include <cstddef>

#include "course/float4_split.hpp"

namespace vector_exp::detail {

// Block 0: the scalar head (before the first 16-byte boundary) and tail (after the last vector).
__device__ __forceinline__ void exp_head_and_tail(const float* __restrict__ x, float* __restrict__ y,
                                                  std::size_t head, std::size_t vectors, std::size_t n) {
  if (blockIdx.x != 0) return;
  const std::size_t tail_begin = head + 4 * vectors;
  if (threadIdx.x < head) y[threadIdx.x] = expf(x[threadIdx.x]);
  if (tail_begin + threadIdx.x < n) y[tail_begin + threadIdx.x] = expf(x[tail_begin + threadIdx.x]);
}

}  // namespace vector_exp::detail
