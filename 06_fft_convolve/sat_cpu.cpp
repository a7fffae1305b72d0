// Lesson 06, deep dive: the summed-area table on the CPU (the reference of the GPU steps) and the
// box filter from its four corners, in double and, to show why not, in float. See sat.hpp.
#include "sat.hpp"

#include <algorithm>
#include <cstddef>

namespace fft_convolve::sat {

std::string box_problem(const Filter& filter) {
  if (filter.taps.empty() || filter.taps.front() == 0.0f) return "the filter is not a box (its taps are zero)";
  for (const float t : filter.taps) {
    if (t != filter.taps.front()) return "the filter is not a box (its taps differ): the summed-area table sums boxes";
  }
  return "";
}

namespace {

template <class T>
std::vector<T> table_in(const Image& image) {
  const auto h = static_cast<std::size_t>(image.height), w = static_cast<std::size_t>(image.width);
  std::vector<T> t(h * w);
  for (std::size_t r = 0; r < h; ++r) {  // every row: an inclusive scan
    T sum = 0;
    for (std::size_t c = 0; c < w; ++c) {
      sum += static_cast<T>(image.pixels[r * w + c]);
      t[r * w + c] = sum;
    }
  }
  for (std::size_t r = 1; r < h; ++r) {  // every column: add the row above
    for (std::size_t c = 0; c < w; ++c) t[r * w + c] += t[(r - 1) * w + c];
  }
  return t;
}

}  // namespace

std::vector<double> table_cpu(const Image& image) { return table_in<double>(image); }

// [docs:sat_box_cpu]
template <class T>
void box_from_table(std::span<const T> table, int height, int width, int filter_size, double tap, std::span<float> output) {
  const int radius = filter_size / 2;
  auto at = [&](int r, int c) -> double {  // T(r, c), 0 above or left of the image
    return r < 0 || c < 0 ? 0.0 : static_cast<double>(table[static_cast<std::size_t>(r) * static_cast<std::size_t>(width) + static_cast<std::size_t>(c)]);
  };
  for (int r = 0; r < height; ++r) {
    const int r0 = r - radius - 1, r1 = std::min(r + radius, height - 1);
    for (int c = 0; c < width; ++c) {
      const int c0 = c - radius - 1, c1 = std::min(c + radius, width - 1);
      const double sum = at(r1, c1) - at(r0, c1) - at(r1, c0) + at(r0, c0);
      output[static_cast<std::size_t>(r) * static_cast<std::size_t>(width) + static_cast<std::size_t>(c)] =
          static_cast<float>(sum * tap);
    }
  }
}
// [docs:end sat_box_cpu]
template void box_from_table<double>(std::span<const double>, int, int, int, double, std::span<float>);
template void box_from_table<float>(std::span<const float>, int, int, int, double, std::span<float>);

std::vector<float> float_table_box(const Image& image, int filter_size, double tap) {
  const std::vector<float> table = table_in<float>(image);
  std::vector<float> output(image.size());
  box_from_table<float>(table, image.height, image.width, filter_size, tap, output);
  return output;
}

}  // namespace fft_convolve::sat
