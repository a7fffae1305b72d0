// Exercise 2, solution: a separable filter in two passes on the CPU.
//
// Both passes read a framed copy (R zeros around), so the innermost loop over columns has no
// branch and vectorises; rows run in parallel. The row pass is a 1-D convolution along each
// row, the column pass one down each column of its result, both as sliding dot products with
// the flipped factors (convolution = correlation with the flipped filter).
#include <algorithm>
#include <vector>

#include "exercises/exercises.hpp"

namespace fft_convolve::exercises {

void convolve_separable_solution(const Image& image, const Filter& filter, std::span<float> output, int threads) {
  const int h = image.height, w = image.width, k = filter.size, r = filter.radius();
  const std::size_t fw = static_cast<std::size_t>(w) + 2 * static_cast<std::size_t>(r);
  std::vector<float> row_taps(filter.row.rbegin(), filter.row.rend());  // flipped
  std::vector<float> column_taps(filter.column.rbegin(), filter.column.rend());

  // Row pass on rows framed left and right: t(row, col) = sum_j g[j] * X(row, col + j).
  std::vector<float> framed_row(fw * static_cast<std::size_t>(h), 0.0f);
  for (int row = 0; row < h; ++row) {
    std::copy_n(image.pixels.data() + image.index(row, 0), w, framed_row.data() + static_cast<std::size_t>(row) * fw + r);
  }
  // t framed above and below by r zero rows, for the column pass.
  std::vector<float> t(static_cast<std::size_t>(h + 2 * r) * static_cast<std::size_t>(w), 0.0f);
#pragma omp parallel for schedule(static) num_threads(threads)
  for (int row = 0; row < h; ++row) {
    float* out = t.data() + static_cast<std::size_t>(row + r) * static_cast<std::size_t>(w);
    const float* in = framed_row.data() + static_cast<std::size_t>(row) * fw;
    for (int j = 0; j < k; ++j) {
      const float tap = row_taps[static_cast<std::size_t>(j)];
#pragma omp simd
      for (int col = 0; col < w; ++col) out[col] += tap * in[col + j];
    }
  }
  // Column pass: y(row, col) = sum_i g[i] * T(row + i, col).
#pragma omp parallel for schedule(static) num_threads(threads)
  for (int row = 0; row < h; ++row) {
    float* out = output.data() + image.index(row, 0);
    std::fill(out, out + w, 0.0f);
    for (int i = 0; i < k; ++i) {
      const float tap = column_taps[static_cast<std::size_t>(i)];
      const float* in = t.data() + static_cast<std::size_t>(row + i) * static_cast<std::size_t>(w);
#pragma omp simd
      for (int col = 0; col < w; ++col) out[col] += tap * in[col];
    }
  }
}

}  // namespace fft_convolve::exercises
