// Lesson 06, deep dive: what the summed-area-table steps (kernels/09_sat_naive.cu ...
// kernels/13_sat_bands.cu) share. Each step scans the rows its own way; the column pass, the box
// from four corners and the method around them (sat_steps.cu) are the same for all.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <memory>
#include <string>

#include "fft_convolve.hpp"

namespace fft_convolve::detail {

// A step's row pass: table(r, c) = x(r, 0) + ... + x(r, c) for every row, in double. `scratch`
// holds scratch_doubles(height, width) values (nullptr when that is 0).
using SatRowScan = void (*)(const float* input, double* table, int height, int width, double* scratch,
                            cudaStream_t stream);
using SatScratch = std::size_t (*)(int height, int width);

// The box-filter method around a row pass: row pass, column pass (in place), then each output
// from four table reads. unsupported() unless the filter is a box.
std::unique_ptr<GpuConvolver> make_sat_box(const GpuProblem& problem, SatRowScan row_scan, SatScratch scratch,
                                           std::string what);
// The same method around a step that builds the whole table itself (no column pass here): `build`
// has SatRowScan's signature but leaves T complete.
std::unique_ptr<GpuConvolver> make_sat_box_whole(const GpuProblem& problem, SatRowScan build, SatScratch scratch,
                                                 std::string what);

// An inclusive scan of one value per thread across the block (blockDim.x a multiple of 32, at
// most 1024): each warp scans with shuffles (Kogge-Stone: lane i adds lane i - d, d = 1 .. 16),
// warp 0 scans the warps' totals, every thread adds the totals of the warps before its own.
// `total` receives the block's sum. `warp_totals`: 32 doubles of shared memory. Every thread of
// the block must call it (it has barriers).
// [docs:block_inclusive_scan]
__device__ __forceinline__ double block_inclusive_scan(double v, double* warp_totals, double& total) {
  const int lane = static_cast<int>(threadIdx.x % 32), warp = static_cast<int>(threadIdx.x / 32);
  const int warps = static_cast<int>(blockDim.x / 32);
  for (int d = 1; d < 32; d *= 2) {
    const double before = __shfl_up_sync(0xffffffffu, v, d);
    if (lane >= d) v += before;
  }
  if (lane == 31) warp_totals[warp] = v;
  __syncthreads();
  if (warp == 0) {
    double w = lane < warps ? warp_totals[lane] : 0.0;
    for (int d = 1; d < 32; d *= 2) {
      const double before = __shfl_up_sync(0xffffffffu, w, d);
      if (lane >= d) w += before;
    }
    if (lane < warps) warp_totals[lane] = w;
  }
  __syncthreads();
  if (warp > 0) v += warp_totals[warp - 1];
  total = warp_totals[warps - 1];
  __syncthreads();  // warp_totals may be rewritten by the next call
  return v;
}
// [docs:end block_inclusive_scan]

}  // namespace fft_convolve::detail
