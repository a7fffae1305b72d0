// 13 sat_bands: the whole table from the image, written once: reduce, scan the totals, sweep.
//
// Teaches: count the bytes a method moves, then restructure it so it moves only what it must.
// Steps 09 to 12 scan the rows into the table (read 4 bytes, write 8 per pixel), then scan its
// columns: read the table for the band totals (8), read and write it again (8 + 8): 36 bytes per
// pixel for a result of 12. However fast each pass, the build cannot pass a third of the copy.
// Here the table is written once and never read back; the image is read twice instead (4 + 4).
// Cut the image into bands of kBandRows rows:
//   (1) band_column_sums: each band's column totals, sum of x(r, c) over the band's rows (reads
//       the image, writes H / kBandRows x W doubles: 1 / kBandRows of the table);
//   (2) band_prefix: per column, an exclusive scan of those totals down the bands: above(b, c),
//       the sum of x(r, c) over every row above band b (small, in L2);
//   (3) band_sweep: one block per band walks its rows. Each thread keeps four columns' running
//       sums from the image's top, acc(c) = above(b, c) + x(first row, c) + ... + x(r, c), so
//       T(r, c) is the row's inclusive scan of acc: a scan inside the thread (four values), one
//       across the block (block_inclusive_scan), and the running total of the row's 1,024-wide
//       tiles before (kept for each of the band's rows). It reads the image again and writes the
//       table once. The blocks take the bands last first: the last rows pass (1) read are the
//       likeliest still in L2.
// What changed from step 12: everything after the row pass; the column pass (sat_steps.cuh) is
// not used. The table's bound is the same kind: every entry is a sum of at most W + H / kBandRows
// + 2 kBandRows partial sums (sat_rows.cpp checks (W + H + 2) 2^-52 sum|x|).
#include <cstdint>
#include <memory>

#include "course/check.hpp"
#include "kernels/sat_steps.cuh"

namespace fft_convolve {

namespace {

constexpr int kBandRows = 8;                 // rows per band: H / 8 blocks in the sweep
constexpr int kThreads = 256;                // threads per block in (1) and (3)
constexpr int kColumns = 4;                  // neighbouring columns per thread
constexpr int kTile = kThreads * kColumns;   // 1,024 columns per tile
constexpr int kPrefixColumns = 32, kPrefixSegments = 32;  // (2): 32 columns x 32 segments of bands

int bands_of(int height) { return (height + kBandRows - 1) / kBandRows; }

// x = in[row + c0 .. c0 + 3], 0 past the row's end: one 16-byte load when `vectors` (the width a
// multiple of 4 and the image 16-byte aligned, so c0 < width means all four are inside).
__device__ __forceinline__ void load_four(const float* __restrict__ in, std::size_t row, int c0, int width, bool vectors,
                                          float (&x)[kColumns]) {
  if (vectors) {
    const float4 v = c0 < width ? *reinterpret_cast<const float4*>(in + row + c0) : make_float4(0, 0, 0, 0);
    x[0] = v.x, x[1] = v.y, x[2] = v.z, x[3] = v.w;
  } else {
#pragma unroll
    for (int j = 0; j < kColumns; ++j) x[j] = c0 + j < width ? in[row + c0 + j] : 0.0f;
  }
}

// table[row + c0 .. c0 + 3] = t, the entries inside the row: two 16-byte stores when `vectors`.
__device__ __forceinline__ void store_four(double* __restrict__ table, std::size_t row, int c0, int width, bool vectors,
                                           const double (&t)[kColumns]) {
  if (vectors) {
    if (c0 < width) {
      auto* out = reinterpret_cast<double2*>(table + row + c0);
      out[0] = make_double2(t[0], t[1]);
      out[1] = make_double2(t[2], t[3]);
    }
  } else {
#pragma unroll
    for (int j = 0; j < kColumns; ++j) {
      if (c0 + j < width) table[row + c0 + j] = t[j];
    }
  }
}

// (1) One block per (tile, band): the band's column totals for 1,024 columns. Every load of a
// thread is independent (all kBandRows x 4 in flight at once).
__global__ void band_column_sums(const float* __restrict__ in, double* __restrict__ totals, int height, int width,
                                 bool vectors) {
  const int band = static_cast<int>(blockIdx.y), first = band * kBandRows;
  const int c0 = static_cast<int>(blockIdx.x) * kTile + static_cast<int>(threadIdx.x) * kColumns;
  double sum[kColumns] = {};
#pragma unroll
  for (int i = 0; i < kBandRows; ++i) {
    if (first + i >= height) break;
    float x[kColumns];
    load_four(in, static_cast<std::size_t>(first + i) * static_cast<std::size_t>(width), c0, width, vectors, x);
#pragma unroll
    for (int j = 0; j < kColumns; ++j) sum[j] += static_cast<double>(x[j]);
  }
#pragma unroll
  for (int j = 0; j < kColumns; ++j) {
    if (c0 + j < width) totals[static_cast<std::size_t>(band) * width + c0 + j] = sum[j];
  }
}

// (2) above(b, c) = totals(0, c) + ... + totals(b - 1, c). A block is 32 columns x 32 segments
// of bands: each thread sums its segment (independent loads), the segments' sums are scanned in
// shared memory, and each thread writes its segment's running sums.
__global__ void band_prefix(const double* __restrict__ totals, double* __restrict__ above, int bands, int width) {
  __shared__ double segment_sum[kPrefixSegments][kPrefixColumns];
  const int c = static_cast<int>(blockIdx.x) * kPrefixColumns + static_cast<int>(threadIdx.x);
  const int segment = static_cast<int>(threadIdx.y);
  const int per_segment = (bands + kPrefixSegments - 1) / kPrefixSegments;
  const int b0 = segment * per_segment, b1 = min(b0 + per_segment, bands);
  double sum = 0;
  if (c < width) {
    for (int b = b0; b < b1; ++b) sum += totals[static_cast<std::size_t>(b) * width + c];
  }
  segment_sum[segment][threadIdx.x] = sum;
  __syncthreads();
  if (c >= width) return;
  double running = 0;  // the segments before this one
  for (int s = 0; s < segment; ++s) running += segment_sum[s][threadIdx.x];
  for (int b = b0; b < b1; ++b) {
    const std::size_t at = static_cast<std::size_t>(b) * width + c;
    const double t = totals[at];
    above[at] = running;
    running += t;
  }
}

// [docs:sat_band_sweep]
// (3) One block per band, the bands taken last first. For each 1,024-wide tile of the row: the
// running column sums acc (from the image's top), their scan along the row, plus left[i], the
// sum of row i's tiles before this one.
__global__ void band_sweep(const float* __restrict__ in, const double* __restrict__ above, double* __restrict__ table,
                           int height, int width, bool vectors) {
  __shared__ double warp_totals[32];
  const int band = static_cast<int>(gridDim.x - 1 - blockIdx.x), first = band * kBandRows;
  double left[kBandRows] = {};  // T(first + i, tile's first column - 1)
  for (int t0 = 0; t0 < width; t0 += kTile) {
    const int c0 = t0 + static_cast<int>(threadIdx.x) * kColumns;
    double acc[kColumns];
    float x[kBandRows][kColumns];
#pragma unroll
    for (int j = 0; j < kColumns; ++j) {
      acc[j] = c0 + j < width ? above[static_cast<std::size_t>(band) * width + c0 + j] : 0.0;
    }
#pragma unroll
    for (int i = 0; i < kBandRows; ++i) {  // every load first: the band's 8 x 4 values in flight
      const int r = min(first + i, height - 1);  // a row past the image: loaded, never written
      load_four(in, static_cast<std::size_t>(r) * width, c0, width, vectors, x[i]);
    }
#pragma unroll
    for (int i = 0; i < kBandRows; ++i) {
      double s[kColumns];  // the row's scan of acc inside the thread
#pragma unroll
      for (int j = 0; j < kColumns; ++j) {
        acc[j] += static_cast<double>(x[i][j]);
        s[j] = j == 0 ? acc[0] : s[j - 1] + acc[j];
      }
      double tile_total = 0;
      const double inclusive = detail::block_inclusive_scan(s[kColumns - 1], warp_totals, tile_total);
      const double before = left[i] + (inclusive - s[kColumns - 1]);  // the columns left of this thread's
      double t[kColumns];
#pragma unroll
      for (int j = 0; j < kColumns; ++j) t[j] = before + s[j];
      if (first + i < height) store_four(table, static_cast<std::size_t>(first + i) * width, c0, width, vectors, t);
      left[i] += tile_total;
    }
  }
}
// [docs:end sat_band_sweep]

std::size_t scratch_doubles(int height, int width) {
  return 2 * static_cast<std::size_t>(bands_of(height)) * static_cast<std::size_t>(width);
}

void build(const float* in, double* table, int height, int width, double* scratch, cudaStream_t stream) {
  const int bands = bands_of(height);
  double* totals = scratch;
  double* above = scratch + static_cast<std::size_t>(bands) * static_cast<std::size_t>(width);
  const bool vectors = width % kColumns == 0 && reinterpret_cast<std::uintptr_t>(in) % 16 == 0 &&
                       reinterpret_cast<std::uintptr_t>(table) % 16 == 0;
  const dim3 sums_grid((width + kTile - 1) / kTile, bands);
  band_column_sums<<<sums_grid, kThreads, 0, stream>>>(in, totals, height, width, vectors);
  CUDA_CHECK_LAUNCH("band_column_sums");
  band_prefix<<<(width + kPrefixColumns - 1) / kPrefixColumns, dim3(kPrefixColumns, kPrefixSegments), 0, stream>>>(
      totals, above, bands, width);
  CUDA_CHECK_LAUNCH("band_prefix");
  band_sweep<<<bands, kThreads, 0, stream>>>(in, above, table, height, width, vectors);
  CUDA_CHECK_LAUNCH("band_sweep");
}

}  // namespace

std::unique_ptr<GpuConvolver> launch_sat_bands(const GpuProblem& problem) {
  return detail::make_sat_box_whole(problem, &build, &scratch_doubles,
                                    "whole table: band column sums, their scan, one sweep (the image read twice, the table written once)");
}

}  // namespace fft_convolve
