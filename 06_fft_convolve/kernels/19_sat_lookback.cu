// 19 sat_lookback: the whole table in one pass: the image read once, the table written once.
//
// Teaches: a single-pass scan with decoupled look-back (the method of cub::DeviceScan), in two
// dimensions. Step 13 writes the table once but reads the image twice (once for the band totals,
// once for the sweep): 16 bytes per pixel for a result of 12. Here every pixel is read once.
// The image is cut into tiles of kRows = 16 rows x kTile = 512 columns; one block per tile. Write
// T(r, c) for a tile whose rows start at r0:
//
//   T(r, c) = T(r0 - 1, c) + sum over rows i = r0 .. r of P(i, c),   P(i, c) = x(i, 0) + ... + x(i, c)
//
// and P(i, c) = left(i) + (the tile's own part of row i up to c), left(i) = the sum of row i in the
// tiles to the left. So a tile needs two things from other tiles, and gets both by look-back:
//   - above(c) = T(r0 - 1, c) for its 512 columns, the bottom row of the table just above.
//     Waiting for the tile above, which waits for the one above it, ... would chain all H / 16
//     tiles of a column one after the other. Instead each tile first publishes its aggregate
//     A(c) = P(r0, c) + ... + P(r0 + 15, c) (known before it knows above), flag 1; then, once it
//     has above, the finished table (its bottom row is the next tile's above), flag 2. A tile
//     looks up its column: it adds the aggregates of the tiles above until it meets one with
//     flag 2, whose bottom table row holds everything above that, adds that row and stops.
//   - left(i) for its 16 rows, the same way along the row: the aggregate is the tile's 16 row
//     totals (flag 1), the finished value left(i) + the row totals (flag 2, a "row carry").
// A warp reads the flags of 32 tiles at once (one per lane; look_back below), so each step of a
// look-back covers 32 tiles.
// The blocks take their tiles from a counter (atomicAdd), not blockIdx: a tile is only taken
// after every tile it may wait for (to its left, and above it), and those are already running,
// so the waiting always ends. The order is row of tiles after row of tiles: the tiles running at
// the same time span few rows of tiles, so the look-back up a column stays short.
// Per pixel: 4 bytes read, 8 written; besides that 1/16 of a double for the aggregates, the
// flags (reset before each build) and the look-back's reads, which come from L2.
// What changed from step 13: no separate passes; the tiles wait on each other through flags in
// global memory (release stores, acquire loads: cuda::atomic_ref). The table's bound is the same
// kind: an entry is a sum of at most W + H partial sums (sat_rows.cpp checks (W + H + 2) 2^-52 sum|x|).
#include <cuda/atomic>

#include <cstdint>
#include <memory>

#include "course/check.hpp"
#include "kernels/sat_steps.cuh"

namespace fft_convolve {

namespace {

constexpr int kRows = 16;                   // rows per tile
constexpr int kThreads = 256;               // threads per block: 8 warps
constexpr int kWarps = kThreads / 32;
constexpr int kColumns = 2;                 // neighbouring columns per thread (one 8-byte load per row)
constexpr int kTile = kThreads * kColumns;  // 512 columns per tile
constexpr int kChunk = 32 * kColumns;       // 64 columns per warp: the look-back's unit

constexpr int kEmpty = 0, kAggregate = 1, kInclusive = 2;  // a flag's states

__device__ __forceinline__ int load_acquire(const int* flag) {
  return cuda::atomic_ref<const int, cuda::thread_scope_device>(*flag).load(cuda::memory_order_acquire);
}
__device__ __forceinline__ void store_release(int* flag, int value) {
  cuda::atomic_ref<int, cuda::thread_scope_device>(*flag).store(value, cuda::memory_order_release);
}

// Where the tiles meet: the scratch buffer, cut up.
struct Tiles {
  int bands, tiles, chunks;   // rows of tiles (H / 16), tiles per row (W / 512), warp chunks per row (W / 64)
  double* aggregate;          // [bands][width]: A(c) of each tile
  double* row_aggregate;      // [bands][tiles][kRows]: each tile's row totals
  double* carry;              // [bands][tiles][kRows]: left(i) + the row totals
  int* column_flags;          // [bands][chunks]: kEmpty, kAggregate, kInclusive
  int* carry_flags;           // [bands][tiles]: the same for the rows
  int* next_tile;             // the counter the blocks take their tiles from
};

// [docs:sat_lookback_window]
// One warp's look-back over the tiles top, top - 1, ..., 0 before it (up a column, or along a
// row): lane k reads the flag of tile top - k, 32 tiles at a time, waiting while it is empty. A
// vote finds the nearest finished tile; the warp adds the aggregates of the tiles before it and
// that tile's finished value, eight tiles' loads in flight at once, and stops there. If none of
// the 32 is finished, it adds their 32 aggregates and looks at the next 32. value(k, finished, j)
// is this lane's j-th value of tile k (read through L2: __ldcg).
template <int kValues, class FlagOf, class ValueOf>
__device__ __forceinline__ void look_back(int top, FlagOf flag_of, ValueOf value, double (&sum)[kValues]) {
  const int lane = static_cast<int>(threadIdx.x % 32);
  for (;; top -= 32) {
    int flag = kInclusive;  // before the first tile: nothing to add, as good as a finished tile
    if (top - lane >= 0) {
      do {
        flag = load_acquire(flag_of(top - lane));
      } while (flag == kEmpty);
    }
    __syncwarp();  // the flags acquired by one lane order the loads of every lane after it
    const unsigned finished = __ballot_sync(0xffffffffu, flag == kInclusive);
    const int count = finished != 0 ? __ffs(static_cast<int>(finished)) : 32;  // tiles top .. top - count + 1
    for (int d0 = 0; d0 < count; d0 += 8) {
      double v[8][kValues];
#pragma unroll
      for (int d = 0; d < 8; ++d) {
        const int k = top - d0 - d;
        const bool used = d0 + d < count && k >= 0;
        const bool finished_value = finished != 0 && d0 + d == count - 1;
#pragma unroll
        for (int j = 0; j < kValues; ++j) v[d][j] = used ? value(k, finished_value, j) : 0.0;
      }
#pragma unroll
      for (int d = 0; d < 8; ++d) {
#pragma unroll
        for (int j = 0; j < kValues; ++j) sum[j] += v[d][j];
      }
    }
    if (finished != 0) return;
  }
}
// [docs:end sat_lookback_window]

// Publish what this warp's lanes stored before the call: every store visible before the flag.
__device__ __forceinline__ void publish(int* flag, int value) {
  __threadfence();
  __syncwarp();
  if (threadIdx.x % 32 == 0) store_release(flag, value);
}

__global__ void __launch_bounds__(kThreads, 2)
    sat_lookback(const float* __restrict__ in, double* table, Tiles t, int height, int width, bool pairs) {
  __shared__ int taken;
  __shared__ double warp_totals[kRows][kWarps];
  __shared__ double left_of_row[kRows];
  if (threadIdx.x == 0) taken = atomicAdd(t.next_tile, 1);
  __syncthreads();
  const int band = taken / t.tiles, tile = taken % t.tiles;  // row of tiles after row of tiles
  const int lane = static_cast<int>(threadIdx.x % 32), warp = static_cast<int>(threadIdx.x / 32);
  const int r0 = band * kRows;
  const int c = tile * kTile + static_cast<int>(threadIdx.x) * kColumns;  // this thread's columns c, c + 1
  const int chunk = tile * kWarps + warp;
  const bool chunk_inside = tile * kTile + warp * kChunk < width;         // the same for the whole warp

  // (1) The tile's 16 x 2 pixels of this thread, every load in flight at once; 0 outside the image.
  float x[kRows][kColumns];
#pragma unroll
  for (int i = 0; i < kRows; ++i) {
    const std::size_t row = static_cast<std::size_t>(min(r0 + i, height - 1)) * static_cast<std::size_t>(width);
    const bool inside = r0 + i < height;
    if (pairs) {
      const float2 v = inside && c < width ? *reinterpret_cast<const float2*>(in + row + c) : make_float2(0, 0);
      x[i][0] = v.x, x[i][1] = v.y;
    } else {
      x[i][0] = inside && c < width ? in[row + c] : 0.0f;
      x[i][1] = inside && c + 1 < width ? in[row + c + 1] : 0.0f;
    }
  }

  // (2) Each row scanned across the tile: inside the thread, across the warp (shuffles), then the
  // warps before this one (shared memory). p[i][j] = the tile's part of P(r0 + i, c + j).
  double p[kRows][kColumns];
#pragma unroll
  for (int i = 0; i < kRows; ++i) {
    p[i][0] = x[i][0];
    p[i][1] = p[i][0] + static_cast<double>(x[i][1]);
    double inclusive = p[i][1];  // the warp's inclusive scan of the threads' pair totals
#pragma unroll
    for (int d = 1; d < 32; d *= 2) {
      const double before = __shfl_up_sync(0xffffffffu, inclusive, d);
      if (lane >= d) inclusive += before;
    }
    const double lanes_before = __shfl_up_sync(0xffffffffu, inclusive, 1);
    if (lane > 0) p[i][0] += lanes_before, p[i][1] += lanes_before;
    if (lane == 31) warp_totals[i][warp] = inclusive;
  }
  __syncthreads();
#pragma unroll
  for (int i = 0; i < kRows; ++i) {
    double warps_before = 0;
    for (int w = 0; w < warp; ++w) warps_before += warp_totals[i][w];
    p[i][0] += warps_before, p[i][1] += warps_before;
  }

  // (3) left(i), by warp 0: lane i < 16 holds row i. Publish the tile's row totals (flag 1), look
  // back along the row of tiles, publish left(i) + the totals (flag 2) for the tiles to the right.
  if (warp == 0) {
    const std::size_t mine = (static_cast<std::size_t>(band) * t.tiles + tile) * kRows + static_cast<std::size_t>(lane);
    double total = 0, left[1] = {0.0};
    if (lane < kRows) {
      for (int w = 0; w < kWarps; ++w) total += warp_totals[lane][w];
    }
    if (tile > 0) {
      if (lane < kRows) t.row_aggregate[mine] = total;
      publish(&t.carry_flags[band * t.tiles + tile], kAggregate);
      look_back(
          tile - 1, [&](int k) { return &t.carry_flags[band * t.tiles + k]; },
          [&](int k, bool finished, int) {
            const std::size_t at = (static_cast<std::size_t>(band) * t.tiles + k) * kRows + static_cast<std::size_t>(lane);
            return lane < kRows ? __ldcg((finished ? t.carry : t.row_aggregate) + at) : 0.0;
          },
          left);
    }
    if (tile + 1 < t.tiles) {
      if (lane < kRows) t.carry[mine] = left[0] + total;
      publish(&t.carry_flags[band * t.tiles + tile], kInclusive);
    }
    if (lane < kRows) left_of_row[lane] = left[0];
  }
  __syncthreads();

  // (4) Down the tile's columns: p[i][j] = sum over rows r0 .. r0 + i of P(., c + j), in place.
  double down[kColumns] = {};
#pragma unroll
  for (int i = 0; i < kRows; ++i) {
    const double left = left_of_row[i];
#pragma unroll
    for (int j = 0; j < kColumns; ++j) {
      down[j] += left + p[i][j];
      p[i][j] = down[j];
    }
  }

  // (5) Publish the aggregate A(c) (flag 1): what this tile adds to every table row below it.
  const bool below_waits = chunk_inside && band + 1 < t.bands;
  if (below_waits) {
    const std::size_t row = static_cast<std::size_t>(band) * static_cast<std::size_t>(width);
#pragma unroll
    for (int j = 0; j < kColumns; ++j) {
      if (c + j < width) t.aggregate[row + c + j] = down[j];
    }
    publish(&t.column_flags[band * t.chunks + chunk], kAggregate);
  }

  // (6) above(c): the look-back up the column, one warp per 64 columns. A finished tile's value
  // is its bottom row of the table.
  double above[kColumns] = {};
  if (chunk_inside && band > 0) {
    look_back(
        band - 1, [&](int k) { return &t.column_flags[k * t.chunks + chunk]; },
        [&](int k, bool finished, int j) {
          const std::size_t at = finished ? static_cast<std::size_t>(k * kRows + kRows - 1) * static_cast<std::size_t>(width)
                                          : static_cast<std::size_t>(k) * static_cast<std::size_t>(width);
          return c + j < width ? __ldcg((finished ? table : t.aggregate) + at + c + j) : 0.0;
        },
        above);
  }

  // (7) The table: T(r0 + i, c + j) = above(c + j) + p[i][j]; then flag 2 for the tiles below.
#pragma unroll
  for (int i = 0; i < kRows; ++i) {
    if (r0 + i >= height) break;
    double* out = table + static_cast<std::size_t>(r0 + i) * static_cast<std::size_t>(width) + c;
    if (pairs) {
      if (c < width) *reinterpret_cast<double2*>(out) = make_double2(above[0] + p[i][0], above[1] + p[i][1]);
    } else {
#pragma unroll
      for (int j = 0; j < kColumns; ++j) {
        if (c + j < width) out[j] = above[j] + p[i][j];
      }
    }
  }
  if (below_waits) publish(&t.column_flags[band * t.chunks + chunk], kInclusive);
}

struct Shape {
  int bands, tiles, chunks;
  std::size_t flags;  // ints: column flags, carry flags, the counter
};

Shape shape_of(int height, int width) {
  const int bands = (height + kRows - 1) / kRows, tiles = (width + kTile - 1) / kTile;
  const int chunks = (width + kChunk - 1) / kChunk;
  const std::size_t flags = static_cast<std::size_t>(bands) * static_cast<std::size_t>(chunks + tiles) + 1;
  return {bands, tiles, chunks, flags};
}

std::size_t scratch_doubles(int height, int width) {
  const Shape s = shape_of(height, width);
  return static_cast<std::size_t>(s.bands) * static_cast<std::size_t>(width) +
         2 * static_cast<std::size_t>(s.bands) * static_cast<std::size_t>(s.tiles) * kRows + (s.flags + 1) / 2;
}

void build(const float* in, double* table, int height, int width, double* scratch, cudaStream_t stream) {
  const Shape s = shape_of(height, width);
  const std::size_t carries = static_cast<std::size_t>(s.bands) * static_cast<std::size_t>(s.tiles) * kRows;
  Tiles t{s.bands, s.tiles, s.chunks, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr};
  t.aggregate = scratch;
  t.row_aggregate = t.aggregate + static_cast<std::size_t>(s.bands) * static_cast<std::size_t>(width);
  t.carry = t.row_aggregate + carries;
  t.column_flags = reinterpret_cast<int*>(t.carry + carries);
  t.carry_flags = t.column_flags + static_cast<std::size_t>(s.bands) * static_cast<std::size_t>(s.chunks);
  t.next_tile = t.carry_flags + static_cast<std::size_t>(s.bands) * static_cast<std::size_t>(s.tiles);
  // Every flag empty and the counter at 0 before each build: the previous build left them set.
  CUDA_CHECK(cudaMemsetAsync(t.column_flags, 0, s.flags * sizeof(int), stream));
  const bool pairs = width % kColumns == 0 && reinterpret_cast<std::uintptr_t>(in) % 8 == 0 &&
                     reinterpret_cast<std::uintptr_t>(table) % 16 == 0;
  const auto blocks = static_cast<unsigned>(s.bands) * static_cast<unsigned>(s.tiles);
  sat_lookback<<<blocks, kThreads, 0, stream>>>(in, table, t, height, width, pairs);
  CUDA_CHECK_LAUNCH("sat_lookback");
}

}  // namespace

std::unique_ptr<GpuConvolver> launch_sat_lookback(const GpuProblem& problem) {
  return detail::make_sat_box_whole(problem, &build, &scratch_doubles,
                                    "whole table in one pass: 16 x 512 tiles, row carries from the left, decoupled look-back up the columns (the image read once, the table written once)");
}

}  // namespace fft_convolve
