// Lesson 06's exercises: each has a starter (what you edit) and a solution (what the tests check).
// Both are built into the test binary (add_lesson compiles exercises/*.cu and *.cpp there), never
// into the lesson's table. The tests run each solution against the double reference and each
// starter as shipped, which must FAIL: "it ran" is never taken for "it is right".
#pragma once

#include <memory>
#include <span>

#include "fft_convolve.hpp"

namespace fft_convolve::exercises {

// Exercise 1 (GPU): make the classic's naive FFT right. The starter is kernel 01 (complex-to-
// complex at the image's own size, the filter in the corner); pad, centre and crop, keeping C2C.
// Checked by GpuExercise.FixedNaiveSolutionMatches and ...StarterAsShippedFails.
std::unique_ptr<GpuConvolver> make_fixed_naive_starter(const GpuProblem& problem);
std::unique_ptr<GpuConvolver> make_fixed_naive_solution(const GpuProblem& problem);

// Exercise 2 (CPU): a separable filter in two passes on the CPU (rows, then columns), OpenMP
// across rows, SIMD along them. `filter` must be separable. Checked by
// Exercise.SeparableCpuSolutionMatches and ...StarterAsShippedFails (label cpu: runs anywhere).
void convolve_separable_starter(const Image& image, const Filter& filter, std::span<float> output, int threads);
void convolve_separable_solution(const Image& image, const Filter& filter, std::span<float> output, int threads);

// Exercise 6 (CPU): the box filter from a summed-area table (sat.hpp): each output pixel from
// four reads of the double table, the window clipped to the image. Checked by
// SatExercise.SolutionMatches and ...StarterAsShippedFails (label cpu: runs anywhere).
void sat_box_starter(std::span<const double> table, int height, int width, int filter_size, double tap,
                     std::span<float> output);
void sat_box_solution(std::span<const double> table, int height, int width, int filter_size, double tap,
                      std::span<float> output);

}  // namespace fft_convolve::exercises

namespace fft_convolve::exercises {

// Find the bug, on a GPU: a 3 x 3 box blur (the mean of the nine pixels, zeros outside) through a
// shared-memory tile with a one-pixel halo; compute-sanitizer's memcheck shows what is wrong.
// `in` and `out` are height x width, row-major, on the device. See halo_edge_starter.cu.
void launch_halo_edge_starter(const float* in, float* out, int height, int width, cudaStream_t stream);
void launch_halo_edge_solution(const float* in, float* out, int height, int width, cudaStream_t stream);

}  // namespace fft_convolve::exercises
