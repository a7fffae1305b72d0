// Lesson 02's exercises: each has a starter (what you edit) and a solution (what the tests check).
// The tests also run the starter as shipped and expect it to FAIL verification: the elements it
// does not write stay poisoned, so "it ran" is never mistaken for "it is right".
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>

namespace elementwise_add::exercises {

// Exercise 1: c = a + b for ANY n with ONE block of (at most) `block_size` threads: each thread
// loops over the elements i = threadIdx.x, threadIdx.x + blockDim.x, ... (start from part 2's
// add_one_block, which stops at one element per thread).
void launch_one_block_loop_starter(const float* a, const float* b, float* c, std::size_t n, int block_size,
                                   cudaStream_t stream);
void launch_one_block_loop_solution(const float* a, const float* b, float* c, std::size_t n, int block_size,
                                    cudaStream_t stream);

}  // namespace elementwise_add::exercises

namespace elementwise_add::exercises {

// Exercise 2 (CPU, find the bug): the split of n floats starting `offset` bytes (0, 4, 8, 12) past
// a 16-byte boundary into a scalar head and whole float4 groups; the tail is what is left.
// See float4_split_starter.cpp.
struct HeadAndGroups {
  std::size_t head = 0;
  std::size_t vectors = 0;
};
HeadAndGroups split_float4_starter(std::size_t n, std::size_t offset);
HeadAndGroups split_float4_solution(std::size_t n, std::size_t offset);

}  // namespace elementwise_add::exercises

namespace elementwise_add::exercises {

// Exercise 4 (find the bug, on a GPU): c = a + b with two neighbouring elements per thread. The
// sums are right; compute-sanitizer's memcheck shows what else is wrong. See pair_tail_starter.cu.
void launch_pair_tail_starter(const float* a, const float* b, float* c, std::size_t n, int block_size,
                              cudaStream_t stream);
void launch_pair_tail_solution(const float* a, const float* b, float* c, std::size_t n, int block_size,
                               cudaStream_t stream);

}  // namespace elementwise_add::exercises
