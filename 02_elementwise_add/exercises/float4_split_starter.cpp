// Exercise 2 (lesson 02, runs without a GPU), find the bug: the scalar head, float4 groups and
// scalar tail of an array that may start anywhere (deep dive, "Alignment, head and tail").
//
// split_float4_starter(n, offset) splits n floats whose first element lies `offset` bytes past a
// 16-byte boundary (0, 4, 8 or 12) into
//   - head:    the scalar elements before the first 16-byte boundary (0 to 3, never more than n),
//   - vectors: the whole float4 groups after the head (each starts on a 16-byte boundary),
//   - and the scalar tail, n - head - 4 * vectors elements (0 to 3), which the caller computes.
// The check walks the split on the CPU for n = 0 to 70 and a few large n, at every offset: every
// element covered exactly once, nothing beyond n, every group aligned.
//
// As shipped, some short arrays come out wrong. Find the bug and fix it.
// Check it:   ./scripts/check_exercise.sh 02 float4_split      (a hint: add --hint)
#include "exercises/exercises.hpp"

namespace elementwise_add::exercises {

HeadAndGroups split_float4_starter(std::size_t n, std::size_t offset) {
  HeadAndGroups split;
  split.head = (16 - offset) % 16 / 4;  // elements up to the next 16-byte boundary
  split.vectors = (n - split.head) / 4;
  return split;
}

}  // namespace elementwise_add::exercises
