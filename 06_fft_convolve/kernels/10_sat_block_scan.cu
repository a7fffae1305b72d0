// 10 sat_block_scan: the row pass by one block per row, a work-efficient parallel scan.
//
// Teaches: the scan in a block. The block reads 256 neighbouring values of its row at once
// (coalesced), scans them in parallel (block_inclusive_scan in sat_steps.cuh: shuffles inside
// each warp, Kogge-Stone, then the warps' totals), adds the running total of the chunks before,
// and moves on along the row. log2(32) = 5 shuffle steps instead of 255 dependent additions.
// What changed from step 09: H blocks of 256 threads instead of one thread per row.
#include <memory>

#include "course/check.hpp"
#include "kernels/sat_steps.cuh"

namespace fft_convolve {

namespace {

constexpr int kThreads = 256;

// [docs:sat_rows_block]
__global__ void sat_rows_block(const float* __restrict__ in, double* __restrict__ table, int width) {
  __shared__ double warp_totals[32];
  const std::size_t first = static_cast<std::size_t>(blockIdx.x) * static_cast<std::size_t>(width);
  double carry = 0;  // the sum of the row's chunks before this one
  for (int c0 = 0; c0 < width; c0 += kThreads) {
    const int c = c0 + static_cast<int>(threadIdx.x);
    double chunk_total = 0;
    const double v = detail::block_inclusive_scan(c < width ? static_cast<double>(in[first + c]) : 0.0,
                                                  warp_totals, chunk_total);
    if (c < width) table[first + c] = carry + v;
    carry += chunk_total;
  }
}
// [docs:end sat_rows_block]

void rows_block(const float* in, double* table, int height, int width, double*, cudaStream_t stream) {
  sat_rows_block<<<height, kThreads, 0, stream>>>(in, table, width);
  CUDA_CHECK_LAUNCH("sat_rows_block");
}

}  // namespace

std::unique_ptr<GpuConvolver> launch_sat_block_scan(const GpuProblem& problem) {
  return detail::make_sat_box(problem, &rows_block, nullptr, "row pass: one block per row, a block scan per 256");
}

}  // namespace fft_convolve
