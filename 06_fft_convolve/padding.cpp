// Padding for a linear convolution by FFT: how large, which size, and where the data goes.
//
// Teaches: the FFT computes a circular convolution: what leaves the array on one side comes back
// on the other. Padding the image with zeros to at least H + K - 1 by W + K - 1 leaves room for
// everything the filter spreads out, so nothing wraps onto the image (the classic did not pad,
// and its result wrapped). Beyond that minimum, the size should be one the FFT handles fast,
// a product of small primes 2^a 3^b 5^c 7^d: 4100 = 2^2 5^2 41 is 2-3 times slower than
// 4116 = 2^2 3 7^3, and rounding up to a power of two (8192) would quadruple the work. Which
// of the few smallest fast sizes is quickest on a given GPU is measured (kernels/fft_steps.cu).
//
// Where the filter goes decides where the output lands. With the filter's centre at (0, 0)
// and its upper-left part wrapped to the far corners, output pixel (row, col) of the circular
// convolution is the "same"-mode pixel (row, col): the result is the padded array's upper-left
// H x W corner, no shift.
#include <algorithm>
#include <cassert>
#include <string>
#include <vector>

#include "fft_convolve.hpp"

namespace fft_convolve {

bool is_fast_size(std::int64_t n) {
  if (n < 1) return false;
  for (const std::int64_t prime : {2, 3, 5, 7}) {
    while (n % prime == 0) n /= prime;
  }
  return n == 1;
}

std::int64_t next_fast_size(std::int64_t n) {
  std::int64_t m = std::max<std::int64_t>(n, 1);
  while (!is_fast_size(m)) ++m;  // 7-smooth numbers are dense: a few steps at most here
  return m;
}

std::vector<std::int64_t> fast_size_candidates(std::int64_t n, int count) {
  std::vector<std::int64_t> sizes;
  for (std::int64_t m = std::max<std::int64_t>(n, 1); static_cast<int>(sizes.size()) < count; ++m) {
    if (is_fast_size(m)) sizes.push_back(m);
  }
  return sizes;
}

std::string PaddedShape::text() const { return std::to_string(height) + " x " + std::to_string(width); }

// At least 2 per side: a 2-D FFT plan of one row or one column is not something cuFFT accepts
// for every type, and the extra zeros change nothing.
PaddedShape linear_padding(int height, int width, int filter_size) {
  return {static_cast<int>(next_fast_size(std::max(height + filter_size - 1, 2))),
          static_cast<int>(next_fast_size(std::max(width + filter_size - 1, 2)))};
}

std::vector<PaddedShape> padding_candidates(int height, int width, int filter_size, int per_side) {
  // Per side: the `per_side` smallest fast sizes, and the next power of two (what rounding up
  // would pick), so the measurement shows what each choice costs.
  auto side = [per_side](std::int64_t n) {
    n = std::max<std::int64_t>(n, 2);
    std::vector<std::int64_t> sizes = fast_size_candidates(n, per_side);
    std::int64_t power = 1;
    while (power < n) power *= 2;
    if (std::find(sizes.begin(), sizes.end(), power) == sizes.end()) sizes.push_back(power);
    return sizes;
  };
  std::vector<PaddedShape> shapes;
  for (const std::int64_t h : side(height + filter_size - 1)) {
    for (const std::int64_t w : side(width + filter_size - 1)) shapes.push_back({static_cast<int>(h), static_cast<int>(w)});
  }
  return shapes;
}

// [docs:place_filter_centred]
void place_filter_centred(const Filter& filter, PaddedShape shape, std::span<float> padded) {
  assert(padded.size() == shape.real_count());
  assert(shape.height >= filter.size && shape.width >= filter.size);
  std::fill(padded.begin(), padded.end(), 0.0f);
  const int r = filter.radius();
  for (int i = 0; i < filter.size; ++i) {
    const int row = (i - r + shape.height) % shape.height;
    for (int j = 0; j < filter.size; ++j) {
      const int col = (j - r + shape.width) % shape.width;
      padded[static_cast<std::size_t>(row) * static_cast<std::size_t>(shape.width) + static_cast<std::size_t>(col)] =
          filter.at(i, j);
    }
  }
}
// [docs:end place_filter_centred]

void place_image(const Image& image, PaddedShape shape, std::span<float> padded, int threads) {
  assert(padded.size() == shape.real_count());
  assert(shape.height >= image.height && shape.width >= image.width);
  const auto pw = static_cast<std::size_t>(shape.width);
  const auto w = static_cast<std::size_t>(image.width);
#pragma omp parallel for schedule(static) num_threads(threads)
  for (int row = 0; row < shape.height; ++row) {
    float* out = padded.data() + static_cast<std::size_t>(row) * pw;
    if (row < image.height) {
      std::copy_n(image.pixels.data() + static_cast<std::size_t>(row) * w, w, out);
      std::fill(out + w, out + pw, 0.0f);
    } else {
      std::fill(out, out + pw, 0.0f);
    }
  }
}

}  // namespace fft_convolve
