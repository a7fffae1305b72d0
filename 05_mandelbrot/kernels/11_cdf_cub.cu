// Lesson 05, the CDF's library row: cdf_cub, cub::DeviceScan::InclusiveSum.
//
// Teaches: the library's scan (CUB ships with the CUDA Toolkit): a single-pass scan over many
// blocks (decoupled look-back), far more than a histogram needs, and the same two-call pattern as
// every CUB device call: ask for the temporary storage (cdf_cub_temp_bytes, untimed), then scan.
#include <cub/device/device_scan.cuh>

#include <cstdint>

#include "course/check.hpp"
#include "histogram.hpp"

namespace mandelbrot::histogram {

std::size_t cdf_cub_temp_bytes(int num_bins) {
  std::size_t bytes = 0;
  CUDA_CHECK(cub::DeviceScan::InclusiveSum(nullptr, bytes, static_cast<const std::uint32_t*>(nullptr),
                                           static_cast<std::uint32_t*>(nullptr), num_bins));
  return bytes;
}

void launch_cdf_cub(const ScanArgs& args, cudaStream_t stream) {
  if (args.num_bins <= 0) return;
  std::size_t bytes = args.temp_bytes;
  // [docs:cdf_cub]
  CUDA_CHECK(cub::DeviceScan::InclusiveSum(args.temp, bytes, args.bins, args.cdf, args.num_bins, stream));
  // [docs:end cdf_cub]
  CUDA_CHECK_LAUNCH("cub::DeviceScan::InclusiveSum");
}

}  // namespace mandelbrot::histogram
