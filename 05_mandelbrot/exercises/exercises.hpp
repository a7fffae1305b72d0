// Lesson 05's exercises: each has a starter (what you edit) and a solution (what the tests check).
// The tests also run the starter as shipped and expect it to FAIL verification: an unwritten
// output is caught, so "it ran" is never mistaken for "it is right".
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <span>

#include "mandelbrot.hpp"

namespace mandelbrot::exercises {

// Exercise 1: the Julia set of k = kx + i ky (z starts at the pixel, z = z^2 + k), one count per
// pixel, the 2-D grid-stride loops of the lesson's kernels (kernels/pixel_grid.cuh), blocks of `block` threads.
void launch_julia_starter(std::uint32_t* counts, const Frame<float>& frame, float kx, float ky, int max_iters,
                          Extent block, cudaStream_t stream);
void launch_julia_solution(std::uint32_t* counts, const Frame<float>& frame, float kx, float ky, int max_iters,
                           Extent block, cudaStream_t stream);

// Exercise 2 (CPU): the histogram-equalised grey level of a pixel with escape count `count`, from
// the CDF of the counts' histogram (max_iters + 1 entries). See equalise_starter.cpp.
std::uint8_t equalised_level_starter(std::uint32_t count, std::span<const std::uint32_t> cdf, int max_iters);
std::uint8_t equalised_level_solution(std::uint32_t count, std::span<const std::uint32_t> cdf, int max_iters);

// Exercise 3 (find the bug, on a GPU): cdf[i] = bins[0] + ... + bins[i] for i < num_bins, device
// pointers, one block scanning tile by tile in shared memory. The starter has a race that
// compute-sanitizer --tool racecheck reports (scripts/check_exercise.sh runs the test under it).
void launch_scan_race_starter(const std::uint32_t* bins, std::uint32_t* cdf, int num_bins, cudaStream_t stream);
void launch_scan_race_solution(const std::uint32_t* bins, std::uint32_t* cdf, int num_bins, cudaStream_t stream);

}  // namespace mandelbrot::exercises
