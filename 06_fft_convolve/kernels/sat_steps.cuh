// Lesson 06, deep dive: what the summed-area-table steps (kernels/09_sat_naive.cu ...
// kernels/13_sat_bands.cu) share, read with the step's file. Each step scans the rows its own
// way (its __global__ functions and its row-pass launcher are in its file); what they share is
// the block scan below and the method around the row pass: the column pass, the box from four
// corners, and the GpuConvolver that runs them (make_sat_box), the same for every step.
//
// The column pass scans every column of the row-scanned table, in place. One thread per column
// walking all H rows would leave most of the GPU idle at 1024 columns, so the rows are cut into
// bands of kBandRows: (1) each band's column totals, (2) per column, an exclusive scan of its
// bands' totals (H / 16 values) into offsets, (3) each band walks its rows again from its offset.
// Coalesced throughout: a warp reads 32 neighbouring columns of one row.
//
// The kernels and the method live in an anonymous namespace: each step's file compiles its own
// copy (the same code for each), so the header holds them whole instead of a .cu beside it.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <memory>
#include <string>
#include <utility>

#include "course/check.hpp"
#include "course/device_buffer.hpp"
#include "fft_convolve.hpp"
#include "sat.hpp"

namespace fft_convolve::detail {

// A step's row pass: table(r, c) = x(r, 0) + ... + x(r, c) for every row, in double. `scratch`
// holds scratch_doubles(height, width) values (nullptr when that is 0).
using SatRowScan = void (*)(const float* input, double* table, int height, int width, double* scratch,
                            cudaStream_t stream);
using SatScratch = std::size_t (*)(int height, int width);

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

namespace {

constexpr int kBandRows = 16;  // rows per band: 16 loads in flight per thread, H / 16 bands
constexpr int kColumnThreads = 256;

__global__ void band_totals(const double* __restrict__ table, double* __restrict__ totals, int height, int width) {
  const int col = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (col >= width) return;
  const int first = static_cast<int>(blockIdx.y) * kBandRows;
  double sum = 0;
#pragma unroll
  for (int i = 0; i < kBandRows; ++i) {  // independent loads, all in flight at once
    if (first + i < height) sum += table[static_cast<std::size_t>(first + i) * width + col];
  }
  totals[static_cast<std::size_t>(blockIdx.y) * width + col] = sum;
}

// An exclusive scan down each column of the band totals. Separate input and output arrays, so
// the loads do not wait for the stores and the unrolled loop keeps several in flight.
__global__ void band_offsets(const double* __restrict__ totals, double* __restrict__ offsets, int bands, int width) {
  const int col = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (col >= width) return;
  double running = 0;
#pragma unroll 8
  for (int b = 0; b < bands; ++b) {
    const double t = totals[static_cast<std::size_t>(b) * width + col];
    offsets[static_cast<std::size_t>(b) * width + col] = running;
    running += t;
  }
}

__global__ void band_apply(double* __restrict__ table, const double* __restrict__ offsets, int height, int width) {
  const int col = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (col >= width) return;
  const int first = static_cast<int>(blockIdx.y) * kBandRows;
  double v[kBandRows];
#pragma unroll
  for (int i = 0; i < kBandRows; ++i) {  // every load first (they are independent), then the scan
    v[i] = first + i < height ? table[static_cast<std::size_t>(first + i) * width + col] : 0.0;
  }
  double running = offsets[static_cast<std::size_t>(blockIdx.y) * width + col];
#pragma unroll
  for (int i = 0; i < kBandRows; ++i) {
    running += v[i];
    if (first + i < height) table[static_cast<std::size_t>(first + i) * width + col] = running;
  }
}

// [docs:sat_box]
// One output per thread: the clipped K x K window's sum from four reads of the table.
__global__ void box_from_corners(const double* __restrict__ table, float* __restrict__ out, int height, int width,
                                 int radius, double tap) {
  const int c = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  const int r = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y);
  if (r >= height || c >= width) return;
  const int r0 = r - radius - 1, r1 = min(r + radius, height - 1);
  const int c0 = c - radius - 1, c1 = min(c + radius, width - 1);
  auto at = [&](int row, int col) {  // T(row, col), 0 above or left of the image
    return row < 0 || col < 0 ? 0.0 : table[static_cast<std::size_t>(row) * width + col];
  };
  const double sum = at(r1, c1) - at(r0, c1) - at(r1, c0) + at(r0, c0);
  out[static_cast<std::size_t>(r) * width + c] = static_cast<float>(sum * tap);
}
// [docs:end sat_box]

class SatBox final : public GpuConvolver, public sat::TableBuilder {
 public:
  SatBox(const GpuProblem& problem, SatRowScan row_scan, SatScratch scratch, std::string what, bool whole_table)
      : p_(problem), row_scan_(row_scan), scratch_(scratch), what_(std::move(what)),
        problem_(sat::box_problem(*problem.filter)), whole_table_(whole_table) {}

  std::string unsupported() const override { return problem_; }

  void setup(cudaStream_t) override {
    const std::size_t pixels = static_cast<std::size_t>(p_.height) * static_cast<std::size_t>(p_.width);
    table_ = course::DeviceBuffer<double>(pixels, "summed-area table");
    bands_ = (p_.height + kBandRows - 1) / kBandRows;
    if (!whole_table_) {
      totals_ = course::DeviceBuffer<double>(static_cast<std::size_t>(bands_) * static_cast<std::size_t>(p_.width),
                                           "summed-area table: band totals");
      offsets_ = course::DeviceBuffer<double>(totals_.size(), "summed-area table: band offsets");
    }
    const std::size_t scratch = scratch_ ? scratch_(p_.height, p_.width) : 0;
    if (scratch > 0) row_scratch_ = course::DeviceBuffer<double>(scratch, "summed-area table: row scratch");
  }

  void run(cudaStream_t stream) override {
    build_table(stream);
    const dim3 block(32, 8);
    const dim3 grid((p_.width + 31) / 32, (p_.height + 7) / 8);
    box_from_corners<<<grid, block, 0, stream>>>(table_.data(), p_.output->data(), p_.height, p_.width,
                                                 p_.filter->radius(), static_cast<double>(p_.filter->taps.front()));
    CUDA_CHECK_LAUNCH("box_from_corners");
  }

  // Read the image, write and read the table (8 bytes a pixel), write the output: what a fused
  // table build and box would move at best.
  double bytes_per_pixel() const override { return 4 + 8 + 8 + 4; }

  std::string note() const override { return what_ + "; double table, then 4 reads per pixel whatever K"; }

  const course::DeviceBuffer<double>& table() const override { return table_; }

  void build_table(cudaStream_t stream) override {
    row_scan_(p_.input->data(), table_.data(), p_.height, p_.width, row_scratch_.size() == 0 ? nullptr : row_scratch_.data(),
              stream);
    if (whole_table_) return;  // the step built T itself
    const dim3 grid((p_.width + kColumnThreads - 1) / kColumnThreads, bands_);
    band_totals<<<grid, kColumnThreads, 0, stream>>>(table_.data(), totals_.data(), p_.height, p_.width);
    CUDA_CHECK_LAUNCH("band_totals");
    band_offsets<<<grid.x, kColumnThreads, 0, stream>>>(totals_.data(), offsets_.data(), bands_, p_.width);
    CUDA_CHECK_LAUNCH("band_offsets");
    band_apply<<<grid, kColumnThreads, 0, stream>>>(table_.data(), offsets_.data(), p_.height, p_.width);
    CUDA_CHECK_LAUNCH("band_apply");
  }

 private:

  GpuProblem p_;
  SatRowScan row_scan_;
  SatScratch scratch_;
  std::string what_, problem_;
  course::DeviceBuffer<double> table_, totals_, offsets_, row_scratch_;
  int bands_ = 0;
  bool whole_table_ = false;  // the step's function builds the whole table (no column pass here)
};

// The box-filter method around a row pass: row pass, column pass (in place), then each output
// from four table reads. unsupported() unless the filter is a box.
inline std::unique_ptr<GpuConvolver> make_sat_box(const GpuProblem& problem, SatRowScan row_scan, SatScratch scratch,
                                                  std::string what) {
  return std::make_unique<SatBox>(problem, row_scan, scratch, std::move(what), false);
}

// The same method around a step that builds the whole table itself (no column pass here): `build`
// has SatRowScan's signature but leaves T complete.
inline std::unique_ptr<GpuConvolver> make_sat_box_whole(const GpuProblem& problem, SatRowScan build, SatScratch scratch,
                                                        std::string what) {
  return std::make_unique<SatBox>(problem, build, scratch, std::move(what), true);
}

}  // namespace

}  // namespace fft_convolve::detail
