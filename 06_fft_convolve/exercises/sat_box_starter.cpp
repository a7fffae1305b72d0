// Exercise 6 (lesson 06, runs without a GPU): the box filter from a summed-area table.
//
// `table` is the summed-area table of an H x W image (sat.hpp): table[r * W + c] is the sum of
// every pixel at or above row r and at or left of column c. Write output[r * W + c] = the sum
// of the K x K window centred on (r, c), clipped to the image (pixels outside count as 0), times
// `tap`, from FOUR reads of the table:
//   sum = T(r1, c1) - T(r0 - 1, c1) - T(r1, c0 - 1) + T(r0 - 1, c0 - 1)
// with r0 = r - K/2, r1 = r + K/2 (and c0, c1 the same way), r1 and c1 clipped to the last row
// and column, and T(row, col) = 0 when row < 0 or col < 0.
//
// As shipped it forgets the fourth corner, so the region above and to the left of the window is
// subtracted twice: the check fails until the corner is added back (and the edges handled).
// Check it:   ./scripts/check_exercise.sh 06 sat_box
#include <algorithm>
#include <cstddef>

#include "exercises/exercises.hpp"

namespace fft_convolve::exercises {

void sat_box_starter(std::span<const double> table, int height, int width, int filter_size, double tap,
                     std::span<float> output) {
  const int radius = filter_size / 2;
  auto at = [&](int r, int c) -> double {
    return r < 0 || c < 0 ? 0.0 : table[static_cast<std::size_t>(r) * static_cast<std::size_t>(width) + static_cast<std::size_t>(c)];
  };
  for (int r = 0; r < height; ++r) {
    for (int c = 0; c < width; ++c) {
      const int r1 = std::min(r + radius, height - 1), c1 = std::min(c + radius, width - 1);
      const double sum = at(r1, c1) - at(r - radius - 1, c1) - at(r1, c - radius - 1);  // TODO: the fourth corner
      output[static_cast<std::size_t>(r) * static_cast<std::size_t>(width) + static_cast<std::size_t>(c)] =
          static_cast<float>(sum * tap);
    }
  }
}

}  // namespace fft_convolve::exercises
