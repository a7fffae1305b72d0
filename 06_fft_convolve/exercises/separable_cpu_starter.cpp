// Exercise 2, starter: a separable filter in two passes on the CPU.
//
// A Gaussian or box filter is a column times a row, f(i, j) = column[i] * row[j], so
//   y(r, c) = sum_i column[i] * t(r + R - i, c),   t(r, c) = sum_j row[j] * x(r, c + R - j)
// (R = K / 2, x and t zero outside the image): 2K multiply-adds per pixel instead of K^2.
// The row pass below is done. As shipped the column pass is missing (the row pass's result is
// copied out), so the test `Exercise.SeparableCpuStarterAsShippedFails` shows a blur in one
// direction only. Your task:
//  1. write the column pass: for every output row r, sum column[i] * t(r + R - i, :) over the
//     filter rows i whose source row is inside the image (or frame t with R zero rows, as
//     fft_convolve_cpu.cpp frames the image, and drop the test);
//  2. keep the loop over columns innermost and branch-free so it vectorises (#pragma omp simd),
//     and the rows in parallel (#pragma omp parallel for num_threads(threads));
//  3. check it: `./scripts/check_exercise.sh 06 separable_cpu` (PASS, or FAIL with the reason);
//  4. compare with exercises/separable_cpu_solution.cpp, then time both against
//     convolve_direct for K = 31 (docs/06_fft_convolve.md, exercise 2): how far is the speedup
//     from K^2 / 2K = 15.5, and why?
#include <vector>

#include "exercises/exercises.hpp"

namespace fft_convolve::exercises {

void convolve_separable_starter(const Image& image, const Filter& filter, std::span<float> output, int threads) {
  const int h = image.height, w = image.width, k = filter.size, r = filter.radius();
  std::vector<float> t(image.size());
  // Row pass: t(row, col) = sum_j row[j] * x(row, col + r - j), zero outside the image.
#pragma omp parallel for schedule(static) num_threads(threads)
  for (int row = 0; row < h; ++row) {
    for (int col = 0; col < w; ++col) {
      float sum = 0.0f;
      for (int j = 0; j < k; ++j) {
        const int source = col + r - j;
        if (source >= 0 && source < w) sum += filter.row[static_cast<std::size_t>(j)] * image.at(row, source);
      }
      t[image.index(row, col)] = sum;
    }
  }
  // TODO: the column pass. As shipped, the row pass's result is the output.
  for (std::size_t i = 0; i < t.size(); ++i) output[i] = t[i];
}

}  // namespace fft_convolve::exercises
