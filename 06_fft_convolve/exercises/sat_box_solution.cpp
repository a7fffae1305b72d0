// Exercise 6, a solution: the box filter from four corners of the summed-area table.
#include <algorithm>
#include <cstddef>

#include "exercises/exercises.hpp"

namespace fft_convolve::exercises {

void sat_box_solution(std::span<const double> table, int height, int width, int filter_size, double tap,
                      std::span<float> output) {
  const int radius = filter_size / 2;
  auto at = [&](int r, int c) -> double {  // T(r, c), 0 above or left of the image
    return r < 0 || c < 0 ? 0.0 : table[static_cast<std::size_t>(r) * static_cast<std::size_t>(width) + static_cast<std::size_t>(c)];
  };
  for (int r = 0; r < height; ++r) {
    const int r0 = r - radius - 1, r1 = std::min(r + radius, height - 1);
    for (int c = 0; c < width; ++c) {
      const int c0 = c - radius - 1, c1 = std::min(c + radius, width - 1);
      const double sum = at(r1, c1) - at(r0, c1) - at(r1, c0) + at(r0, c0);  // D - B - C + A
      output[static_cast<std::size_t>(r) * static_cast<std::size_t>(width) + static_cast<std::size_t>(c)] =
          static_cast<float>(sum * tap);
    }
  }
}

}  // namespace fft_convolve::exercises
