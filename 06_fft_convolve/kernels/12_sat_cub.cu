// 12 sat_cub: the row pass with the library's block scan, cub::BlockScan (the library row).
//
// Teaches: CUB's building blocks inside your own kernel. Step 10's structure (one block per
// row, chunks along the row, a running total) with cub::BlockScan doing the scan: its
// InclusiveSum takes a callback that receives each chunk's total and returns the prefix to add
// (the running total), so the carry needs no code of ours. CUB's device-wide
// cub::DeviceScan::InclusiveSum would scan one long array; per row it would be H calls, or a
// segmented scan with keys: a block per row is the simpler fit for a table.
#include <cub/block/block_scan.cuh>

#include <memory>

#include "course/check.hpp"
#include "kernels/sat_steps.cuh"

namespace fft_convolve {

namespace {

constexpr int kThreads = 256;

// The running total along the row: CUB calls it once per chunk with the chunk's total.
struct RunningTotal {
  double total = 0;
  __device__ double operator()(double chunk_total) {
    const double before = total;
    total += chunk_total;
    return before;
  }
};

// [docs:sat_rows_cub]
__global__ void sat_rows_cub(const float* __restrict__ in, double* __restrict__ table, int width) {
  using Scan = cub::BlockScan<double, kThreads>;
  __shared__ typename Scan::TempStorage temp;
  const std::size_t first = static_cast<std::size_t>(blockIdx.x) * static_cast<std::size_t>(width);
  RunningTotal running;
  for (int c0 = 0; c0 < width; c0 += kThreads) {
    const int c = c0 + static_cast<int>(threadIdx.x);
    double v = c < width ? static_cast<double>(in[first + c]) : 0.0;
    Scan(temp).InclusiveSum(v, v, running);
    __syncthreads();  // temp is reused by the next chunk
    if (c < width) table[first + c] = v;
  }
}
// [docs:end sat_rows_cub]

void rows_cub(const float* in, double* table, int height, int width, double*, cudaStream_t stream) {
  sat_rows_cub<<<height, kThreads, 0, stream>>>(in, table, width);
  CUDA_CHECK_LAUNCH("sat_rows_cub");
}

}  // namespace

std::unique_ptr<GpuConvolver> launch_sat_cub(const GpuProblem& problem) {
  return detail::make_sat_box(problem, &rows_cub, nullptr, "row pass: cub::BlockScan, one block per row");
}

}  // namespace fft_convolve
