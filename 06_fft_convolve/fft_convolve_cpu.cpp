// The direct convolution on the CPU: the double reference and the float baseline.
//
// Teaches: the definition, written so a compiler can vectorise it. The filter is flipped once
// (g(i, j) = f(K-1-i, K-1-j)), which turns the convolution into a sliding dot product:
//
//   y(row, col) = sum over i, j of g(i, j) * X(row + i, col + j)
//
// where X is the image inside a frame of r zeros (r = K / 2): the zero padding is data, not a
// branch, so the innermost loop runs over a whole row of outputs with one multiply-add each,
// contiguous loads and stores, in SIMD lanes (omp simd), rows split over threads (omp parallel).
// The cost is K^2 multiply-adds per pixel whatever the image: the FFT's cost hardly depends on K,
// which is the whole crossover story of this lesson.
//
// The references for the tests live here too: the full linear convolution, the circular one
// (what the classic's naive FFT computes), and the fold of one onto the other.
#include <omp.h>

#include <algorithm>
#include <cassert>
#include <memory>
#include <vector>

#include "fft_convolve.hpp"

namespace fft_convolve {

namespace {

// The image inside a frame of r zeros on every side, converted to T, written by `threads`
// threads: the buffer is left uninitialised and each thread writes its rows, frame included, so
// that the pages are first touched (and zeroed by the OS) in parallel. Inside a timed row, a
// serial std::vector<T>(n, 0) plus copy of a 4096 x 4096 image took several times as long as
// the sum at K = 3 on a 16-core host.
template <class T>
std::unique_ptr<T[]> framed_image(const Image& image, int r, int threads) {
  const std::size_t fw = static_cast<std::size_t>(image.width) + 2 * static_cast<std::size_t>(r);
  const int fh = image.height + 2 * r;
  auto framed = std::make_unique_for_overwrite<T[]>(fw * static_cast<std::size_t>(fh));
#pragma omp parallel for schedule(static) num_threads(threads)
  for (int framed_row = 0; framed_row < fh; ++framed_row) {
    T* out = framed.get() + static_cast<std::size_t>(framed_row) * fw;
    const int row = framed_row - r;
    if (row < 0 || row >= image.height) {
      std::fill(out, out + fw, T(0));
      continue;
    }
    const float* in = image.pixels.data() + image.index(row, 0);
    std::fill(out, out + r, T(0));
    for (int col = 0; col < image.width; ++col) out[r + col] = static_cast<T>(in[col]);
    std::fill(out + r + image.width, out + fw, T(0));
  }
  return framed;
}

// The filter flipped in both directions, converted to T: convolution becomes correlation.
template <class T>
std::vector<T> flipped_taps(const Filter& filter) {
  const int k = filter.size;
  std::vector<T> g(filter.taps.size());
  for (int i = 0; i < k; ++i) {
    for (int j = 0; j < k; ++j) g[static_cast<std::size_t>(i * k + j)] = static_cast<T>(filter.at(k - 1 - i, k - 1 - j));
  }
  return g;
}

// [docs:accumulate_row]
// One output row: acc[col] = sum g(i, j) X(row + i, col + j), in T, SIMD over col.
template <class T>
void direct_row(const T* framed, std::size_t framed_width, const std::vector<T>& g, int k, int row, int width, T* acc) {
  std::fill(acc, acc + width, T(0));
  for (int i = 0; i < k; ++i) {
    const T* line = framed + (static_cast<std::size_t>(row) + static_cast<std::size_t>(i)) * framed_width;
    for (int j = 0; j < k; ++j) {
      const T tap = g[static_cast<std::size_t>(i * k + j)];
      const T* src = line + j;
#pragma omp simd
      for (int col = 0; col < width; ++col) acc[col] += tap * src[col];
    }
  }
}
// [docs:end accumulate_row]

}  // namespace

std::vector<double> convolve_reference(const Image& image, const Filter& filter) {
  const int r = filter.radius();
  const std::unique_ptr<double[]> framed = framed_image<double>(image, r, omp_get_max_threads());
  const std::vector<double> g = flipped_taps<double>(filter);
  const std::size_t framed_width = static_cast<std::size_t>(image.width) + 2 * static_cast<std::size_t>(r);
  std::vector<double> y(image.size());
#pragma omp parallel for schedule(static)
  for (int row = 0; row < image.height; ++row) {
    direct_row(framed.get(), framed_width, g, filter.size, row, image.width, y.data() + image.index(row, 0));
  }
  return y;
}

void convolve_direct(const Image& image, const Filter& filter, std::span<float> output, int threads) {
  assert(output.size() == image.size());
  const int r = filter.radius();
  const std::unique_ptr<float[]> framed = framed_image<float>(image, r, threads);
  const std::vector<float> g = flipped_taps<float>(filter);
  const std::size_t framed_width = static_cast<std::size_t>(image.width) + 2 * static_cast<std::size_t>(r);
#pragma omp parallel for schedule(static) num_threads(threads)
  for (int row = 0; row < image.height; ++row) {
    direct_row(framed.get(), framed_width, g, filter.size, row, image.width, output.data() + image.index(row, 0));
  }
}

void convolve_separable(const Image& image, const Filter& filter, std::span<float> output, int threads) {
  assert(filter.separable() && output.size() == image.size());
  const int r = filter.radius(), k = filter.size;
  const std::size_t w = static_cast<std::size_t>(image.width);
  const std::size_t framed_width = w + 2 * static_cast<std::size_t>(r);
  const std::unique_ptr<float[]> framed = framed_image<float>(image, r, threads);
  const std::vector<float> row_taps(filter.row.rbegin(), filter.row.rend());  // flipped: correlation
  const std::vector<float> column_taps(filter.column.rbegin(), filter.column.rend());
  // The row pass over every framed row: the r rows of zeros above and below the image give zeros,
  // so the column pass below reads past the image's edge without a branch.
  const int framed_height = image.height + 2 * r;
  // Every element written below (each row filled first): no serial zeroing of the buffer.
  const auto rows = std::make_unique_for_overwrite<float[]>(static_cast<std::size_t>(framed_height) * w);
#pragma omp parallel for schedule(static) num_threads(threads)
  for (int row = 0; row < framed_height; ++row) {
    float* out = rows.get() + static_cast<std::size_t>(row) * w;
    const float* in = framed.get() + static_cast<std::size_t>(row) * framed_width;
    std::fill(out, out + w, 0.0f);
    for (int j = 0; j < k; ++j) {
      const float tap = row_taps[static_cast<std::size_t>(j)];
#pragma omp simd
      for (std::size_t col = 0; col < w; ++col) out[col] += tap * in[col + static_cast<std::size_t>(j)];
    }
  }
#pragma omp parallel for schedule(static) num_threads(threads)
  for (int row = 0; row < image.height; ++row) {
    float* out = output.data() + image.index(row, 0);
    std::fill(out, out + w, 0.0f);
    for (int i = 0; i < k; ++i) {
      const float tap = column_taps[static_cast<std::size_t>(i)];
      const float* in = rows.get() + static_cast<std::size_t>(row + i) * w;
#pragma omp simd
      for (std::size_t col = 0; col < w; ++col) out[col] += tap * in[col];
    }
  }
}

std::vector<double> convolve_full_reference(const Image& image, const Filter& filter) {
  const int k = filter.size;
  const int fh = image.height + k - 1, fw = image.width + k - 1;
  std::vector<double> full(static_cast<std::size_t>(fh) * static_cast<std::size_t>(fw), 0.0);
  for (int row = 0; row < image.height; ++row) {
    for (int col = 0; col < image.width; ++col) {
      const double x = image.at(row, col);
      for (int i = 0; i < k; ++i) {
        for (int j = 0; j < k; ++j) {
          full[static_cast<std::size_t>(row + i) * static_cast<std::size_t>(fw) + static_cast<std::size_t>(col + j)] +=
              filter.at(i, j) * x;
        }
      }
    }
  }
  return full;
}

std::vector<double> circular_reference(const Image& image, const Filter& filter) {
  const int k = filter.size, h = image.height, w = image.width;
  std::vector<double> y(image.size(), 0.0);
  for (int row = 0; row < h; ++row) {
    for (int col = 0; col < w; ++col) {
      double sum = 0;
      for (int i = 0; i < k; ++i) {
        const int source_row = ((row - i) % h + h) % h;
        for (int j = 0; j < k; ++j) {
          const int source_col = ((col - j) % w + w) % w;
          sum += static_cast<double>(filter.at(i, j)) * image.at(source_row, source_col);
        }
      }
      y[image.index(row, col)] = sum;
    }
  }
  return y;
}

std::vector<double> wrap_onto_image(std::span<const double> full, int height, int width, int filter_size) {
  const int fh = height + filter_size - 1, fw = width + filter_size - 1;
  assert(full.size() == static_cast<std::size_t>(fh) * static_cast<std::size_t>(fw));
  std::vector<double> wrapped(static_cast<std::size_t>(height) * static_cast<std::size_t>(width), 0.0);
  for (int a = 0; a < fh; ++a) {
    for (int b = 0; b < fw; ++b) {
      wrapped[static_cast<std::size_t>(a % height) * static_cast<std::size_t>(width) + static_cast<std::size_t>(b % width)] +=
          full[static_cast<std::size_t>(a) * static_cast<std::size_t>(fw) + static_cast<std::size_t>(b)];
    }
  }
  return wrapped;
}

}  // namespace fft_convolve
