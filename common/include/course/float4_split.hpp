// How an elementwise kernel covers its arrays in float4 groups when the arrays may start anywhere.
//
// Teaches: a float4 load or store needs a 16-byte aligned address, and an array view may start
// anywhere (x + 1 is a valid array). So the arrays are split into a scalar head (the elements
// before the first 16-byte boundary, 0 to 3), whole groups of 4, and a scalar tail; every array
// must then be misaligned by the same amount, or no head aligns them all and the caller falls
// back to scalar code. One block per tile of groups, and at least one block, so that the head
// and tail of a tiny array are done too. Lessons 01 and 02 use it for their one-pass and
// bulk-copy steps (their kernels do the head and tail in block 0).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>

namespace course {

struct Float4Split {
  std::size_t head = 0;     // scalar elements before the first 16-byte boundary (0 to 3)
  std::size_t vectors = 0;  // whole float4 groups after the head
  std::size_t blocks = 0;   // one per tile of groups_per_block groups
};

// The split of n floats of every array in `arrays`, or nothing when they cannot all be aligned
// (or a block has fewer than 4 threads, too few for the scalar ends). Throws std::invalid_argument,
// naming `kernel`, when the grid would need more blocks than CUDA allows.
template <typename... Arrays>
std::optional<Float4Split> float4_split(std::size_t n, std::size_t groups_per_block, int block_size,
                                        const std::string& kernel, const Arrays*... arrays) {
  static_assert(sizeof...(Arrays) > 0, "float4_split needs at least one array");
  const std::uintptr_t addresses[] = {reinterpret_cast<std::uintptr_t>(arrays)...};
  const std::uintptr_t offset = addresses[0] % 16;
  for (const std::uintptr_t address : addresses) {
    if (address % 16 != offset) return std::nullopt;
  }
  if (offset % 4 != 0 || block_size < 4 || groups_per_block == 0) return std::nullopt;
  Float4Split split;
  split.head = std::min<std::size_t>(n, (16 - offset) % 16 / 4);
  split.vectors = (n - split.head) / 4;
  split.blocks = std::max<std::size_t>(1, (split.vectors + groups_per_block - 1) / groups_per_block);
  if (split.blocks > 2147483647ull) {  // gridDim.x's limit
    throw std::invalid_argument(kernel + ": more blocks than a grid may have; use larger tiles (--block, --ilp, --tile)");
  }
  return split;
}

}  // namespace course
