// Lesson 05's exercises: each has a starter (what you edit) and a solution (what the tests check).
// The tests also run the starter as shipped and expect it to FAIL verification: an unwritten
// output is caught, so "it ran" is never mistaken for "it is right".
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "mandelbrot.hpp"

namespace mandelbrot::exercises {

// Exercise 1: the Julia set of k = kx + i ky (z starts at the pixel, z = z^2 + k), one count per
// pixel, the 2-D grid-stride loops of the lesson's kernels (kernels/pixel_grid.cuh), blocks of `block` threads.
void launch_julia_starter(std::uint32_t* counts, const Frame<float>& frame, float kx, float ky, int max_iters,
                          Extent block, cudaStream_t stream);
void launch_julia_solution(std::uint32_t* counts, const Frame<float>& frame, float kx, float ky, int max_iters,
                           Extent block, cudaStream_t stream);

}  // namespace mandelbrot::exercises
