// Lesson 05, histogram library row: hist_cub, cub::DeviceHistogram::HistogramEven.
//
// Teaches: the library's histogram (CUB ships with the CUDA Toolkit). num_bins bins of width 1
// over [0, num_bins): num_levels = num_bins + 1 boundaries, lower level 0, upper level num_bins.
// Integer levels, so a count's bin is computed exactly; a count outside [0, num_bins) is skipped,
// as the lesson's kernels skip it. CUB privatises in shared memory too, and picks its own tiling.
// Like every CUB device call it runs twice: once with no storage to ask how much temporary
// storage it needs (hist_cub_temp_bytes, the row's untimed setup), then to do the work.
#include <cub/device/device_histogram.cuh>

#include <cstdint>

#include "course/check.hpp"
#include "histogram.hpp"

namespace mandelbrot::histogram {

namespace {

cudaError_t histogram_even(void* temp, std::size_t& temp_bytes, const std::uint32_t* counts, std::size_t n,
                           std::uint32_t* bins, int num_bins, cudaStream_t stream) {
  // [docs:hist_cub]
  return cub::DeviceHistogram::HistogramEven(temp, temp_bytes, counts, bins, num_bins + 1, 0u,
                                             static_cast<unsigned>(num_bins), static_cast<std::int64_t>(n), stream);
  // [docs:end hist_cub]
}

}  // namespace

std::size_t hist_cub_temp_bytes(std::size_t n, int num_bins) {
  std::size_t bytes = 0;
  CUDA_CHECK(histogram_even(nullptr, bytes, nullptr, n, nullptr, num_bins, nullptr));
  return bytes;
}

void launch_hist_cub(const HistogramArgs& args, cudaStream_t stream) {
  if (args.n == 0) {  // nothing to count: every bin is zero
    CUDA_CHECK(cudaMemsetAsync(args.bins, 0, static_cast<std::size_t>(args.num_bins) * sizeof(std::uint32_t), stream));
    return;
  }
  std::size_t bytes = args.temp_bytes;
  CUDA_CHECK(histogram_even(args.temp, bytes, args.counts, args.n, args.bins, args.num_bins, stream));
  CUDA_CHECK_LAUNCH("cub::DeviceHistogram::HistogramEven");
}

}  // namespace mandelbrot::histogram
