// How close a float convolution must come to the double reference, and why.
//
// Teaches: a tolerance is derived, not guessed. Two ways of computing the same y in float:
//  - directly, each pixel is a sum of K^2 products: its rounding error is at most
//    gamma(K^2) * sum |f||x| <= gamma(K^2) * ||f||_1 * max|x|, gamma(n) = n u / (1 - n u);
//  - by FFT, every pixel is a mix of all pixels: the error of the whole image grows like
//    log2(N) (N = Ph * Pw, the transform's size) times u times the data's norm, and the filter's
//    spectrum, at most ||f||_1 in magnitude, multiplies it:
//    ||y - ref||_2 <= c log2(N) u ||f||_1 ||x||_2.
// The lesson holds every method to the larger of the two factors, e, per pixel against
// e ||f||_1 max|x| and as a whole against e ||f||_1 ||x||_2. Both scale with the input, so a
// high-pass filter whose output is near 0 in flat areas (the classic: its taps sum to 0) is not
// held to an impossible relative error there. A wrapped result (the naive FFT) is off by about
// the signal itself, orders of magnitude beyond: it fails, as it should. NaN, infinity and
// unwritten (poisoned) pixels fail whatever the bound.
#include <algorithm>
#include <cmath>
#include <sstream>
#include <vector>

#include "course/verify.hpp"
#include "fft_convolve.hpp"

namespace fft_convolve {

namespace {

constexpr double kUnitRoundoff = 0x1.0p-24;  // u for float

double max_abs(const Image& image) {
  double largest = 0;
  for (const float v : image.pixels) largest = std::max(largest, std::abs(static_cast<double>(v)));
  return largest;
}

double l2_norm(const Image& image) {
  double sum = 0;
  for (const float v : image.pixels) sum += static_cast<double>(v) * v;
  return std::sqrt(sum);
}

}  // namespace

double gamma_bound(std::int64_t n) { return course::gamma_bound(static_cast<double>(n), kUnitRoundoff); }

double error_factor(int filter_size, PaddedShape shape) {
  const double direct = gamma_bound(static_cast<std::int64_t>(filter_size) * filter_size);
  const double fft = kFftErrorFactor * std::log2(static_cast<double>(std::max<std::size_t>(shape.real_count(), 2))) *
                     kUnitRoundoff;
  return std::max(direct, fft);
}

course::Tolerance convolution_tolerance(const Image& image, const Filter& filter, PaddedShape shape,
                                        std::span<const double> reference) {
  const double e = error_factor(filter.size, shape);
  course::Tolerance tolerance;
  tolerance.abs = e * filter.l1_norm() * max_abs(image);
  double reference_norm = 0;
  for (const double v : reference) reference_norm += v * v;
  reference_norm = std::sqrt(reference_norm);
  if (reference_norm > 0) tolerance.rel_l2 = e * filter.l1_norm() * l2_norm(image) / reference_norm;
  // A zero image or a zero filter gives abs = 0 and no norm: every pixel must then be exactly 0.
  return tolerance;
}

std::string describe_tolerance(const Image& image, const Filter& filter, PaddedShape shape) {
  const double direct = gamma_bound(static_cast<std::int64_t>(filter.size) * filter.size);
  const double fft = kFftErrorFactor * std::log2(static_cast<double>(shape.real_count())) * kUnitRoundoff;
  std::ostringstream text;
  text.precision(3);
  text << "e = max(gamma(K^2) = " << direct << ", " << kFftErrorFactor << " log2(" << shape.height << " x "
       << shape.width << ") u = " << fft << "); per pixel |y - ref| <= e ||f||_1 max|x| = "
       << error_factor(filter.size, shape) * filter.l1_norm() * max_abs(image)
       << "; image ||y - ref||_2 <= e ||f||_1 ||x||_2";
  return text.str();
}

std::vector<std::size_t> border_indices(int height, int width, int filter_size) {
  const int r = filter_size / 2;
  std::vector<std::size_t> indices;
  for (int row = 0; row < height; ++row) {
    const bool edge_row = row < r || row >= height - r;
    for (int col = 0; col < width; ++col) {
      if (edge_row || col < r || col >= width - r) {
        indices.push_back(static_cast<std::size_t>(row) * static_cast<std::size_t>(width) + static_cast<std::size_t>(col));
      }
    }
  }
  return indices;
}

course::VerifyResult verify_border(std::span<const float> result, std::span<const double> reference, int height,
                                   int width, const Filter& filter, course::Tolerance tolerance) {
  const std::vector<std::size_t> indices = border_indices(height, width, filter.size);
  std::vector<float> border_result(indices.size());
  std::vector<double> border_reference(indices.size());
  for (std::size_t i = 0; i < indices.size(); ++i) {
    border_result[i] = result[indices[i]];
    border_reference[i] = reference[indices[i]];
  }
  tolerance.rel_l2 = 0;  // the per-pixel bound: the border is too thin for a norm to mean much
  return course::verify(std::span<const float>(border_result), std::span<const double>(border_reference), tolerance);
}

}  // namespace fft_convolve
