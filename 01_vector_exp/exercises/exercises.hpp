// Lesson 01's exercises: each has a starter (what you edit) and a solution (what the tests check).
// The tests also run the starter as shipped and expect it to FAIL verification: an unwritten
// output is caught, so "it ran" is never mistaken for "it is right".
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>

namespace vector_exp::exercises {

// Exercise 1: a Gaussian, y = exp(-x^2 / 2), one thread per element (start from step 1's kernel).
void launch_gaussian_starter(const float* x, float* y, std::size_t n, cudaStream_t stream);
void launch_gaussian_solution(const float* x, float* y, std::size_t n, cudaStream_t stream);

}  // namespace vector_exp::exercises

namespace vector_exp::exercises {

// Exercise 2 (part two): the max of x with warp shuffles. *result = max of x[0, n), n >= 1.
void launch_warp_max_starter(const float* x, std::size_t n, float* result, cudaStream_t stream);
void launch_warp_max_solution(const float* x, std::size_t n, float* result, cudaStream_t stream);

// Exercise 3 (part two): log-sum-exp in one pass, *result = log(sum_i exp(x_i)), n >= 1.
// `partials` holds 2 * kLogSumExpBlocks floats of scratch.
inline constexpr int kLogSumExpBlocks = 256;
void launch_log_sum_exp_starter(const float* x, std::size_t n, float* partials, float* result, cudaStream_t stream);
void launch_log_sum_exp_solution(const float* x, std::size_t n, float* partials, float* result, cudaStream_t stream);

}  // namespace vector_exp::exercises

namespace vector_exp::exercises {

// Exercise 4 (CPU, find the bug): the blocks of `block` threads for a grid-stride loop over n
// elements: ceil(n / block), at most max_blocks, 0 for n == 0. See launch_shape_starter.cpp.
unsigned blocks_for_starter(std::size_t n, unsigned block, unsigned max_blocks);
unsigned blocks_for_solution(std::size_t n, unsigned block, unsigned max_blocks);

}  // namespace vector_exp::exercises

namespace vector_exp::exercises {

// Find the bug, on a GPU: *result = max(x) by one block and a tree in shared memory, with a line
// of step 9 missing; compute-sanitizer's racecheck shows it. See tree_barrier_starter.cu.
void launch_tree_barrier_starter(const float* x, std::size_t n, float* result, cudaStream_t stream);
void launch_tree_barrier_solution(const float* x, std::size_t n, float* result, cudaStream_t stream);

}  // namespace vector_exp::exercises
