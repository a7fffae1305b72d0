// Lesson 05, the CDF: cdf_block_scan, an inclusive prefix sum of the histogram by one block.
//
// Teaches: a scan (prefix sum) inside a block, in two levels. Each warp scans its 32 values with
// register shuffles (__shfl_up_sync: lane i adds the value of lane i - d for d = 1, 2, 4, 8, 16,
// a Kogge-Stone scan); the warps' totals go to shared memory, warp 0 scans them the same way, and
// every thread adds the total of the warps before its own. The block walks the bins in chunks of
// blockDim.x values, carrying the running total from one chunk to the next, so one block handles
// any number of bins: at --iters 8000, 8 chunks of 1,024. (A histogram has thousands of bins, not
// millions: one block is plenty. Lesson 06's deep dive scans millions of values with many blocks.)
#include <cstdint>

#include "course/check.hpp"
#include "histogram.hpp"

namespace mandelbrot::histogram {

namespace {

constexpr int kScanThreads = 1024;

// [docs:cdf_block_scan]
__device__ __forceinline__ std::uint32_t warp_inclusive_scan(std::uint32_t v) {
  const int lane = static_cast<int>(threadIdx.x % 32);
  for (int d = 1; d < 32; d *= 2) {
    const std::uint32_t before = __shfl_up_sync(0xffffffffu, v, d);
    if (lane >= d) v += before;
  }
  return v;
}

__global__ void cdf_block_scan(const std::uint32_t* __restrict__ bins, std::uint32_t* __restrict__ cdf, int num_bins) {
  __shared__ std::uint32_t warp_totals[kScanThreads / 32];
  const int lane = static_cast<int>(threadIdx.x % 32), warp = static_cast<int>(threadIdx.x / 32);
  std::uint32_t carry = 0;  // the sum of every chunk before this one
  for (int first = 0; first < num_bins; first += kScanThreads) {
    const int i = first + static_cast<int>(threadIdx.x);
    std::uint32_t v = warp_inclusive_scan(i < num_bins ? bins[i] : 0u);
    if (lane == 31) warp_totals[warp] = v;
    __syncthreads();
    if (warp == 0) warp_totals[lane] = warp_inclusive_scan(warp_totals[lane]);
    __syncthreads();
    if (warp > 0) v += warp_totals[warp - 1];
    if (i < num_bins) cdf[i] = carry + v;
    carry += warp_totals[kScanThreads / 32 - 1];  // this chunk's total
    __syncthreads();  // warp_totals is rewritten by the next chunk
  }
}
// [docs:end cdf_block_scan]

}  // namespace

void launch_cdf_block_scan(const ScanArgs& args, cudaStream_t stream) {
  if (args.num_bins <= 0) return;
  cdf_block_scan<<<1, kScanThreads, 0, stream>>>(args.bins, args.cdf, args.num_bins);
  CUDA_CHECK_LAUNCH("cdf_block_scan");
}

}  // namespace mandelbrot::histogram
