// Lesson 02: the scalar ends of steps 4 and 5, which cover the arrays once in float4 groups.
//
// Teaches: the split of a, b and c into a scalar head, whole groups and a scalar tail is
// course::float4_split (common/include/course/float4_split.hpp): a, b and c must be misaligned
// by the same amount, or no head aligns all three. The groups are the kernels' own work
// (add_one_pass: --ilp x blockDim.x per block, add_bulk_copy: --tile / 4), and block 0's first
// threads do the few scalar elements at both ends.
#pragma once

#include <cstddef>

#include "course/float4_split.hpp"

namespace elementwise_add::detail {

// Block 0: at most 3 scalar elements before the groups and 3 after them.
__device__ __forceinline__ void add_head_and_tail(const float* __restrict__ a, const float* __restrict__ b,
                                                  float* __restrict__ c, std::size_t head, std::size_t vectors,
                                                  std::size_t n) {
  if (blockIdx.x != 0) return;
  const std::size_t tail_begin = head + 4 * vectors;
  if (threadIdx.x < head) c[threadIdx.x] = a[threadIdx.x] + b[threadIdx.x];
  if (tail_begin + threadIdx.x < n) c[tail_begin + threadIdx.x] = a[tail_begin + threadIdx.x] + b[tail_begin + threadIdx.x];
}

}  // namespace elementwise_add::detail
