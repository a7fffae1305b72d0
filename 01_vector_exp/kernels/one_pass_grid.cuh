// Lesson 01: the grid of steps 5 and 7, which cover the array once in float4 vectors.
//
// Teaches: a float4 load needs a 16-byte aligned address, and an array view may start anywhere.
// So the array is split into a scalar head (the elements before the first 16-byte boundary),
// whole vectors, and a scalar tail; x and y must then be misaligned by the same amount, or no
// head aligns both. The grid has one block per tile of vectors (one_pass: --ilp x blockDim.x,
// bulk_copy: --tile / 4), at least one block, so that the head and tail of a tiny array are done
// too; block 0's first threads do the head and the tail.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>

#include "vector_exp.hpp"

namespace vector_exp::detail {

struct OnePassGrid {
  std::size_t head = 0;     // scalar elements before the first 16-byte boundary (0 to 3)
  std::size_t vectors = 0;  // whole float4 vectors after the head
  std::size_t blocks = 0;   // one per tile of vectors_per_block vectors
};

// The split for x and y, or nothing when they cannot both be aligned (the caller falls back).
inline std::optional<OnePassGrid> one_pass_grid(const float* x, const float* y, std::size_t n,
                                                std::size_t vectors_per_block, int block_size,
                                                const std::string& kernel) {
  const auto x_address = reinterpret_cast<std::uintptr_t>(x);
  const auto y_address = reinterpret_cast<std::uintptr_t>(y);
  if (x_address % 16 != y_address % 16 || x_address % 4 != 0 || block_size < 4) return std::nullopt;
  OnePassGrid grid;
  grid.head = std::min<std::size_t>(n, (16 - x_address % 16) % 16 / 4);
  grid.vectors = (n - grid.head) / 4;
  grid.blocks = std::max<std::size_t>(1, (grid.vectors + vectors_per_block - 1) / vectors_per_block);
  if (grid.blocks > 2147483647ull) throw std::invalid_argument(kernel + ": more blocks than a grid may have");
  return grid;
}

// Block 0: the scalar head (before the first 16-byte boundary) and tail (after the last vector).
__device__ __forceinline__ void exp_head_and_tail(const float* __restrict__ x, float* __restrict__ y,
                                                  std::size_t head, std::size_t vectors, std::size_t n) {
  if (blockIdx.x != 0) return;
  const std::size_t tail_begin = head + 4 * vectors;
  if (threadIdx.x < head) y[threadIdx.x] = expf(x[threadIdx.x]);
  if (tail_begin + threadIdx.x < n) y[tail_begin + threadIdx.x] = expf(x[tail_begin + threadIdx.x]);
}

}  // namespace vector_exp::detail
