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
