// 11 sat_two_level: the row pass for long rows, in two levels (scan, scan the totals, add).
//
// Teaches: a scan wider than one block. Step 10 walks a row's chunks one after another inside
// one block, so a 32,768-wide row is 128 chunks in sequence on one SM. Here every segment of
// kSegment values is its own block: (1) each block scans its segment and writes the segment's
// total, (2) one thread per row scans its row's segment totals into offsets (a 32,768-wide row
// has 32), (3) every block adds its offset to its segment. All segments of all rows run at once.
// The price: the table is written, then read and written again (a decoupled look-back scan, as
// cub::DeviceScan does, passes the offsets between neighbouring blocks instead, in one pass).
#include <memory>

#include "course/check.hpp"
#include "kernels/sat_steps.cuh"

namespace fft_convolve {

namespace {

constexpr int kSegment = 1024;  // values per block, one per thread

int segments_of(int width) { return (width + kSegment - 1) / kSegment; }

// [docs:sat_rows_two_level]
__global__ void scan_segments(const float* __restrict__ in, double* __restrict__ table, double* __restrict__ totals,
                              int width, int segments) {
  __shared__ double warp_totals[32];
  const int row = static_cast<int>(blockIdx.y), c = static_cast<int>(blockIdx.x) * kSegment + static_cast<int>(threadIdx.x);
  const std::size_t at = static_cast<std::size_t>(row) * static_cast<std::size_t>(width) + static_cast<std::size_t>(c);
  double total = 0;
  const double v = detail::block_inclusive_scan(c < width ? static_cast<double>(in[at]) : 0.0, warp_totals, total);
  if (c < width) table[at] = v;
  if (threadIdx.x == 0) totals[static_cast<std::size_t>(row) * segments + blockIdx.x] = total;
}

__global__ void scan_totals(double* __restrict__ totals, int height, int segments) {  // exclusive, in place
  const int row = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (row >= height) return;
  double running = 0;
  for (int s = 0; s < segments; ++s) {
    const double t = totals[static_cast<std::size_t>(row) * segments + s];
    totals[static_cast<std::size_t>(row) * segments + s] = running;
    running += t;
  }
}

__global__ void add_offsets(double* __restrict__ table, const double* __restrict__ offsets, int width, int segments) {
  const int row = static_cast<int>(blockIdx.y), c = static_cast<int>(blockIdx.x) * kSegment + static_cast<int>(threadIdx.x);
  if (blockIdx.x == 0 || c >= width) return;  // the first segment's offset is 0
  table[static_cast<std::size_t>(row) * static_cast<std::size_t>(width) + static_cast<std::size_t>(c)] +=
      offsets[static_cast<std::size_t>(row) * segments + blockIdx.x];
}
// [docs:end sat_rows_two_level]

void rows_two_level(const float* in, double* table, int height, int width, double* totals, cudaStream_t stream) {
  const int segments = segments_of(width);
  const dim3 grid(static_cast<unsigned>(segments), static_cast<unsigned>(height));
  scan_segments<<<grid, kSegment, 0, stream>>>(in, table, totals, width, segments);
  CUDA_CHECK_LAUNCH("scan_segments");
  scan_totals<<<(height + 255) / 256, 256, 0, stream>>>(totals, height, segments);
  CUDA_CHECK_LAUNCH("scan_totals");
  if (segments > 1) {
    add_offsets<<<grid, kSegment, 0, stream>>>(table, totals, width, segments);
    CUDA_CHECK_LAUNCH("add_offsets");
  }
}

std::size_t totals_size(int height, int width) {
  return static_cast<std::size_t>(height) * static_cast<std::size_t>(segments_of(width));
}

}  // namespace

std::unique_ptr<GpuConvolver> launch_sat_two_level(const GpuProblem& problem) {
  return detail::make_sat_box(problem, &rows_two_level, &totals_size,
                              "row pass: segments of 1,024 scanned at once, then their offsets");
}

}  // namespace fft_convolve
