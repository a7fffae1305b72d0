// Lesson 05, deep dive: the histogram of the escape counts on the CPU, its prefix sum, and the
// equalised image. The CPU rows of the --histogram table and the references the GPU steps are
// checked against, bin for bin.
//
// Teaches: the CPU has the same problem the GPU has. Threads that share one histogram would race
// on it (or queue on atomics); each OpenMP thread counts into its own histogram instead, and the
// histograms are added up at the end: privatisation, as in kernels/05_hist_private_shared.cu.
#include <omp.h>

#include <algorithm>
#include <array>
#include <vector>

#include "course/check.hpp"
#include "histogram.hpp"

namespace mandelbrot::histogram {

namespace {

// Above this many bins, a private histogram per thread costs more memory than it saves time:
// the threads share one and add with atomics.
constexpr std::size_t kMaxPrivateBins = std::size_t{1} << 20;

}  // namespace

// [docs:histogram_cpu]
void histogram_cpu(std::span<const std::uint32_t> counts, std::span<std::uint32_t> bins, CpuHistogram method) {
  std::fill(bins.begin(), bins.end(), 0u);
  const std::size_t num_bins = bins.size();
  const auto n = static_cast<std::ptrdiff_t>(counts.size());
  if (method == CpuHistogram::serial) {
    for (const std::uint32_t c : counts) {
      if (c < num_bins) ++bins[c];
    }
    return;
  }
  if (num_bins > kMaxPrivateBins) {
#pragma omp parallel for schedule(static)
    for (std::ptrdiff_t i = 0; i < n; ++i) {
      const std::uint32_t c = counts[static_cast<std::size_t>(i)];
      if (c < num_bins) {
#pragma omp atomic
        ++bins[c];
      }
    }
    return;
  }
#pragma omp parallel
  {
    std::vector<std::uint32_t> mine(num_bins, 0u);  // this thread's private histogram
#pragma omp for schedule(static) nowait
    for (std::ptrdiff_t i = 0; i < n; ++i) {
      const std::uint32_t c = counts[static_cast<std::size_t>(i)];
      if (c < num_bins) ++mine[c];
    }
#pragma omp critical
    for (std::size_t b = 0; b < num_bins; ++b) bins[b] += mine[b];  // the merge, one thread at a time
  }
}
// [docs:end histogram_cpu]

std::vector<std::uint32_t> histogram_of(std::span<const std::uint32_t> counts, int num_bins) {
  std::vector<std::uint32_t> bins(static_cast<std::size_t>(std::max(num_bins, 0)));
  histogram_cpu(counts, bins, CpuHistogram::openmp);
  return bins;
}

void inclusive_sum_cpu(std::span<const std::uint32_t> bins, std::span<std::uint32_t> cdf) {
  std::uint32_t sum = 0;
  for (std::size_t i = 0; i < bins.size() && i < cdf.size(); ++i) {
    sum += bins[i];
    cdf[i] = sum;
  }
}

course::Image equalise(std::span<const std::uint32_t> counts, int width, int height, int max_iters,
                       std::span<const std::uint32_t> cdf) {
  course::Image image(width, height, 1);
  for (std::size_t i = 0; i < counts.size() && i < image.pixels.size(); ++i) {
    image.pixels[i] = equalised_level(counts[i], cdf, max_iters);
  }
  return image;
}

int current_sm_count() {
  static std::array<int, 64> known{};  // per device; 0 until asked
  int device = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  const auto slot = static_cast<std::size_t>(device) % known.size();
  if (known[slot] == 0) {
    int sms = 0;
    CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    known[slot] = std::max(sms, 1);
  }
  return known[slot];
}

}  // namespace mandelbrot::histogram
