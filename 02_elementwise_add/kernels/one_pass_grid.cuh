// Lesson 02: the grid of steps 4 and 5, which cover the arrays once in float4 groups.
//
// Teaches: a float4 load or store needs a 16-byte aligned address, and array views may start
// anywhere. The arrays are split into a scalar head (before the first 16-byte boundary), whole
// groups of 4, and a scalar tail; a, b and c must then be misaligned by the same amount, or no
// head aligns all three. One block per tile of groups (add_one_pass: --ilp x blockDim.x,
// add_bulk_copy: --tile / 4), at least one, so that the ends of a tiny array are done too;
// block 0's first threads do the head and the tail.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>

#include "elementwise_add.hpp"

namespace elementwise_add::detail {

struct OnePassGrid {
  std::size_t head = 0;     // scalar elements before the first 16-byte boundary (0 to 3)
  std::size_t vectors = 0;  // whole float4 groups after the head
  std::size_t blocks = 0;   // one per tile of groups_per_block groups
};

// The split for a, b and c, or nothing when they cannot all be aligned (the caller falls back).
inline std::optional<OnePassGrid> one_pass_grid(const float* a, const float* b, const float* c, std::size_t n,
                                                std::size_t groups_per_block, int block_size,
                                                const std::string& kernel) {
  const std::uintptr_t offset = reinterpret_cast<std::uintptr_t>(a) % 16;
  if (reinterpret_cast<std::uintptr_t>(b) % 16 != offset || reinterpret_cast<std::uintptr_t>(c) % 16 != offset ||
      offset % 4 != 0 || block_size < 4) {
    return std::nullopt;
  }
  OnePassGrid grid;
  grid.head = std::min<std::size_t>(n, (16 - offset) % 16 / 4);
  grid.vectors = (n - grid.head) / 4;
  grid.blocks = std::max<std::size_t>(1, (grid.vectors + groups_per_block - 1) / groups_per_block);
  if (grid.blocks > static_cast<std::size_t>(kMaxGridBlocks)) {
    throw std::invalid_argument(kernel + ": more blocks than a grid may have; use larger tiles (--block, --ilp, --tile)");
  }
  return grid;
}

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
