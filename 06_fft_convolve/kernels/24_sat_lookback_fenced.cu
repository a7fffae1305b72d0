// 24 sat_lookback_fenced: step 19 with 4 fences a tile instead of 36: the same tiles, flags and
// look-backs, each publish made with one release by one thread.
//
// Teaches what a memory fence costs and how few a producer needs. A flag may only be set once
// the values it announces are visible to every SM, and the instruction that makes sure of that
// (MEMBAR, from __threadfence() or from the fence inside a release store) holds its warp until
// the warp's earlier stores have reached L2 and been acknowledged: a round trip, about a
// microsecond while the table's stores stream out. Step 19 publishes with __threadfence() in all
// 32 lanes and then lane 0's release store, a second fence; and each of its 8 warps publishes
// its own 64 columns twice (aggregate, finished). Nsight Compute on step 19 at 4096 x 4096 puts
// "membar" first among the reasons its warps wait (2.86 of the 12.03 cycles between two
// instructions of a warp; docs/data/h100-2026-11-27-g/). What changed:
//  - a warp publishes with one fence: its lanes meet at __syncwarp(), then lane 0 alone makes the
//    release store. The barrier orders every lane's stores before lane 0's release, and the
//    release makes all of them visible before the flag (the rule a grid-wide barrier rests on:
//    cooperative_groups' grid.sync() is a block barrier, then one thread's release).
//  - the column flags are one per tile, not one per warp: the block meets at __syncthreads()
//    after storing its aggregates (and again after its table rows), and thread 0 alone sets the
//    flag. The other warps go on (to their look-backs, or out of the kernel) without waiting for
//    that fence. A look-back up a column now reads the tile's flag, and still its own 64 columns'
//    values.
//  - one band's column flags 256 bytes after the previous band's (kBandFlags below), not side by
//    side: a look-back polls the flags of the 30-odd bands above it, and packed together those
//    are a few cache lines in a few L2 slices that every block polls and sets at once.
// And one change of another kind, for the "wait" stalls (a fixed-latency result awaited) that
// follow the fences in the profile: each thread adds the totals of the warps before its own for
// its 16 rows side by side, 16 independent sums, instead of row after row.
// Two fences a tile for the columns instead of 32 (8 warps publishing twice, two fences each), and
// two for the row carries instead of 4. Per pixel the traffic is step 19's.
#include <cuda/atomic>

#include <algorithm>
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
  int bands, tiles;           // rows of tiles (H / 16), tiles per row (W / 512)
  int flag_stride;            // ints from one band's column flags to the next's (>= tiles)
  double* aggregate;          // [bands][width]: A(c) of each tile
  double* row_aggregate;      // [bands][tiles][kRows]: each tile's row totals
  double* carry;              // [bands][tiles][kRows]: left(i) + the row totals
  int* column_flags;          // [bands][flag_stride]: kEmpty, kAggregate, kInclusive (one per tile)
  int* carry_flags;           // [bands][tiles]: the same for the rows
  int* next_tile;             // the counter the blocks take their tiles from
};

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

// Publish what this warp's lanes stored before the call: every store visible before the flag.
// The warp's barrier orders its lanes' stores before lane 0's release store, and that one
// release (its fence) makes them all visible before the flag: one fence, not step 19's two.
__device__ __forceinline__ void publish(int* flag, int value) {
  __syncwarp();
  if (threadIdx.x % 32 == 0) store_release(flag, value);
}

__global__ void __launch_bounds__(kThreads, 2)
    sat_lookback_fenced(const float* __restrict__ in, double* table, Tiles t, int height, int width, bool pairs) {
  __shared__ int taken;
  __shared__ double warp_totals[kRows][kWarps];
  __shared__ double left_of_row[kRows];
  if (threadIdx.x == 0) taken = atomicAdd(t.next_tile, 1);
  __syncthreads();
  const int band = taken / t.tiles, tile = taken % t.tiles;  // row of tiles after row of tiles
  const int lane = static_cast<int>(threadIdx.x % 32), warp = static_cast<int>(threadIdx.x / 32);
  const int r0 = band * kRows;
  const int c = tile * kTile + static_cast<int>(threadIdx.x) * kColumns;  // this thread's columns c, c + 1
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
  // The warps before this one, for all 16 rows at once: the same additions in the same order as
  // step 19's (row by row, one dependent add after another), but 16 independent sums side by side.
  double warps_before[kRows] = {};
  for (int w = 0; w < warp; ++w) {
#pragma unroll
    for (int i = 0; i < kRows; ++i) warps_before[i] += warp_totals[i][w];
  }
#pragma unroll
  for (int i = 0; i < kRows; ++i) p[i][0] += warps_before[i], p[i][1] += warps_before[i];

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
  // Every warp stores its columns, the block meets, thread 0 sets the tile's one flag.
  // [docs:fenced_publish]
  const bool below = band + 1 < t.bands;  // a tile below will wait for this one
  int* const column_flag = &t.column_flags[band * t.flag_stride + tile];
  if (below && chunk_inside) {
    const std::size_t row = static_cast<std::size_t>(band) * static_cast<std::size_t>(width);
#pragma unroll
    for (int j = 0; j < kColumns; ++j) {
      if (c + j < width) t.aggregate[row + c + j] = down[j];
    }
  }
  __syncthreads();
  if (below && threadIdx.x == 0) store_release(column_flag, kAggregate);
  // [docs:end fenced_publish]

  // (6) above(c): the look-back up the column, one warp per 64 columns. A finished tile's value
  // is its bottom row of the table.
  double above[kColumns] = {};
  if (chunk_inside && band > 0) {
    look_back(
        band - 1, [&](int k) { return &t.column_flags[k * t.flag_stride + tile]; },
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
  __syncthreads();
  if (below && threadIdx.x == 0) store_release(column_flag, kInclusive);
}

// Where one band's column flags start after the previous band's: 64 ints, 256 bytes (or the
// band's tiles, if more). Side by side, the flags of the 30-odd bands a look-back polls share a
// few cache lines, and every block's polls and sets meet in the same few L2 slices: on the H100
// at 4096 x 4096 that build took 0.137 ms against 0.120 ms with the flags 256 bytes apart
// (docs/data/h100-2026-11-27-g/, flags/).
constexpr int kBandFlags = 64;

struct Shape {
  int bands, tiles, flag_stride;
  std::size_t flags;  // ints: column flags, carry flags, the counter

  Shape(int height, int width)
      : bands((height + kRows - 1) / kRows), tiles((width + kTile - 1) / kTile), flag_stride(std::max(tiles, kBandFlags)),
        flags(static_cast<std::size_t>(bands) * static_cast<std::size_t>(flag_stride + tiles) + 1) {}
};

std::size_t scratch_doubles(int height, int width) {
  const Shape s(height, width);
  return static_cast<std::size_t>(s.bands) * static_cast<std::size_t>(width) +
         2 * static_cast<std::size_t>(s.bands) * static_cast<std::size_t>(s.tiles) * kRows + (s.flags + 1) / 2;
}

void build(const float* in, double* table, int height, int width, double* scratch, cudaStream_t stream) {
  const Shape s(height, width);
  const std::size_t carries = static_cast<std::size_t>(s.bands) * static_cast<std::size_t>(s.tiles) * kRows;
  Tiles t{s.bands, s.tiles, s.flag_stride, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr};
  t.aggregate = scratch;
  t.row_aggregate = t.aggregate + static_cast<std::size_t>(s.bands) * static_cast<std::size_t>(width);
  t.carry = t.row_aggregate + carries;
  t.column_flags = reinterpret_cast<int*>(t.carry + carries);
  t.carry_flags = t.column_flags + static_cast<std::size_t>(s.bands) * static_cast<std::size_t>(s.flag_stride);
  t.next_tile = t.carry_flags + static_cast<std::size_t>(s.bands) * static_cast<std::size_t>(s.tiles);
  // Every flag empty and the counter at 0 before each build: the previous build left them set.
  CUDA_CHECK(cudaMemsetAsync(t.column_flags, 0, s.flags * sizeof(int), stream));
  const bool pairs = width % kColumns == 0 && reinterpret_cast<std::uintptr_t>(in) % 8 == 0 &&
                     reinterpret_cast<std::uintptr_t>(table) % 16 == 0;
  const auto blocks = static_cast<unsigned>(s.bands) * static_cast<unsigned>(s.tiles);
  sat_lookback_fenced<<<blocks, kThreads, 0, stream>>>(in, table, t, height, width, pairs);
  CUDA_CHECK_LAUNCH("sat_lookback_fenced");
}

}  // namespace

std::unique_ptr<GpuConvolver> launch_sat_lookback_fenced(const GpuProblem& problem) {
  return detail::make_sat_box_whole(problem, &build, &scratch_doubles,
                                    "step 19's one pass with one fence per publish: a warp's barrier then one release; one column flag per tile, set by one thread after the block's barrier");
}

}  // namespace fft_convolve
