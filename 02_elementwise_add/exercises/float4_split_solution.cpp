// Exercise 2, a solution: the head never longer than the array (kernels/03_float4.cu's split).
#include <algorithm>

#include "exercises/exercises.hpp"

namespace elementwise_add::exercises {

HeadAndGroups split_float4_solution(std::size_t n, std::size_t offset) {
  HeadAndGroups split;
  // [docs:float4_split]
  // An array shorter than the distance to the boundary is all head: without the min, n - head
  // wraps around to about 2^64 and the "groups" run far past the array.
  split.head = std::min<std::size_t>(n, (16 - offset) % 16 / 4);
  split.vectors = (n - split.head) / 4;
  // [docs:end float4_split]
  return split;
}

}  // namespace elementwise_add::exercises
