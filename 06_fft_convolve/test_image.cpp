// The generated test image: something worth filtering, with no data file to ship.
//
// Teaches: a benchmark input should look like the real thing. A convolution does different
// things to flat areas (nothing, for a zero-sum filter), edges (the classic filter lights them
// up), thin lines and texture (a blur removes them), so the image has all of them, at positions
// relative to its size so every size looks alike. The noise comes from a hash of the pixel's
// index and the seed, not from a sequential generator: any thread can compute any pixel, and the
// image does not depend on how many threads made it.
#include <algorithm>
#include <cmath>
#include <cstdint>

#include "fft_convolve.hpp"

namespace fft_convolve {

Image::Image(int image_width, int image_height)
    : width(image_width),
      height(image_height),
      pixels(static_cast<std::size_t>(image_width) * static_cast<std::size_t>(image_height), 0.0f) {}

namespace {

// splitmix64: a good 64-bit hash, one multiply-xorshift chain per call.
std::uint64_t mix(std::uint64_t z) {
  z += 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

// Uniform in [-0.5, 0.5) from the pixel's index and the seed.
double noise(std::uint64_t seed, std::size_t index) {
  return static_cast<double>(mix(seed ^ mix(index)) >> 11) * 0x1.0p-53 - 0.5;
}

// The shapes, in coordinates u, v in [0, 1) across the image: a value in [0, 1].
double scene(double u, double v) {
  double value = 0.15 + 0.35 * u;  // a gradient from left to right
  const double disc = std::hypot(u - 0.3, v - 0.35);
  if (disc < 0.18) value = 0.85;                                      // a bright disc
  if (std::abs(std::hypot(u - 0.72, v - 0.3) - 0.15) < 0.02) value = 0.95;  // a thin ring
  if (u > 0.55 && u < 0.9 && v > 0.58 && v < 0.8) value = 0.05;      // a dark rectangle
  if (u > 0.62 && u < 0.83 && v > 0.64 && v < 0.74) value = 0.6;     // a lighter one inside it
  if (std::abs(v - 0.9 + 0.4 * (u - 0.5)) < 0.004) value = 1.0;       // a thin diagonal line
  if (u > 0.08 && u < 0.38 && v > 0.66 && v < 0.94) {                 // a checkerboard
    const int cu = static_cast<int>(std::floor((u - 0.08) * 40.0));
    const int cv = static_cast<int>(std::floor((v - 0.66) * 40.0));
    value = ((cu + cv) % 2 == 0) ? 0.2 : 0.8;
  }
  return value;
}

}  // namespace

Image test_image(int width, int height, std::uint64_t seed) {
  Image image(width, height);
#pragma omp parallel for schedule(static)
  for (int row = 0; row < height; ++row) {
    const double v = (row + 0.5) / height;
    for (int col = 0; col < width; ++col) {
      const double u = (col + 0.5) / width;
      const std::size_t index = image.index(row, col);
      double value = scene(u, v);
      const bool noise_patch = u > 0.45 && u < 0.55 && v > 0.08 && v < 0.2;
      value += noise_patch ? 0.9 * noise(seed, index) : 0.02 * noise(seed, index);
      image.pixels[index] = static_cast<float>(std::clamp(value, 0.0, 1.0));
    }
  }
  return image;
}

}  // namespace fft_convolve
