// 26 sat_lookback_sentinel: step 24 with the row carries published as values that are their own
// flags: along the rows of tiles no flag, no fence and no acquire, one round trip where step 24
// makes four.
//
// Teaches where a look-back's time goes, and how a value can stand in for its flag. Timestamps
// taken inside step 24 (the SM's clock at each phase of a tile; docs/data/h100-2026-11-27-i/, c2/)
// put the row look-back first among a tile's phases at 4096 x 4096: 8,226 of its 26,906 cycles.
// Nearly all of it is L2 round trips in series, each about a microsecond while the table's stores
// stream out: the release that publishes the row totals (its fence waits until the totals' stores
// are acknowledged), the polls of the flags to the left, the loads of the values those flags
// announce, and the release of the carry. A flag is there because a value and its flag are two
// stores, which another SM may see in either order. But a double stored and loaded as an atomic
// (cuda::atomic_ref, relaxed) is seen whole or not at all. So let the value be its own flag: before
// each build every row total and carry is set to all-ones bytes (a NaN that no arithmetic
// produces: the sentinel), a tile stores its values with plain relaxed stores, and a tile that
// needs them loads them until none is the sentinel. (CUB's decoupled look-back does the same for
// small types, one word holding both status and value.) The row look-back falls to 3,967 cycles
// (c3/). The column look-back keeps step 24's flags: there a finished tile's value is its bottom
// row of the table, which could start as the sentinel only if the table were written twice.
// Per pixel the traffic is step 24's.
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

// A column flag's states. kEmpty is all-ones bytes: one memset before each build sets the flags,
// the tile counter (to -1) and the row values (to the sentinel) together.
constexpr int kEmpty = -1, kAggregate = 1, kInclusive = 2;

__device__ __forceinline__ int load_acquire(const int* flag) {
  return cuda::atomic_ref<const int, cuda::thread_scope_device>(*flag).load(cuda::memory_order_acquire);
}
__device__ __forceinline__ void store_release(int* flag, int value) {
  cuda::atomic_ref<int, cuda::thread_scope_device>(*flag).store(value, cuda::memory_order_release);
}

// The row values' sentinel: all-ones bytes, a NaN whose payload no arithmetic produces (a NaN
// that an operation makes has the canonical payload, or its operand's, which a float NaN
// widened to double cannot fill). store_value still swaps it for the canonical NaN.
constexpr long long kSentinel = -1;
__device__ __forceinline__ void store_value(double* at, double v) {
  if (__double_as_longlong(v) == kSentinel) v = __longlong_as_double(0x7ff8000000000000LL);
  cuda::atomic_ref<double, cuda::thread_scope_device>(*at).store(v, cuda::memory_order_relaxed);
}
__device__ __forceinline__ double load_value(const double* at) {  // from L2, never a stale L1 line
  return cuda::atomic_ref<const double, cuda::thread_scope_device>(*at).load(cuda::memory_order_relaxed);
}
__device__ __forceinline__ bool ready(double v) { return __double_as_longlong(v) != kSentinel; }

// Where the tiles meet: the scratch buffer, cut up.
struct Tiles {
  int bands, tiles;           // rows of tiles (H / 16), tiles per row (W / 512)
  int flag_stride;            // ints from one band's column flags to the next's (>= tiles)
  double* aggregate;          // [bands][width]: A(c) of each tile
  double* row_aggregate;      // [bands][tiles][kRows]: each tile's row totals (or the sentinel)
  double* carry;              // [bands][tiles][kRows]: left(i) + the row totals (or the sentinel)
  int* column_flags;          // [bands][flag_stride]: kEmpty, kAggregate, kInclusive (one per tile)
  int* next_tile;             // the counter the blocks take their tiles from, from -1
};

// One warp's look-back over the tiles top, top - 1, ..., 0 above it in its column (step 24's,
// which used it along the rows too): lane k reads the flag of tile top - k, 32 tiles at a time, waiting while it is empty. A
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

// [docs:sentinel_row_look_back]
// Row i's carry from the tiles top, top - 1, ..., 0 of its band, by one lane: the finished value
// (carry) and the aggregate (row total) of eight tiles loaded at once, then read nearest first.
// A finished value ends the walk; an aggregate is added and the walk goes on; a tile with
// neither yet is loaded again, the sum so far kept.
__device__ __forceinline__ double row_look_back(const double* carry, const double* aggregate, std::size_t row, int top) {
  double sum = 0;
  for (int k = top; k >= 0;) {
    double finished[8], partial[8];
#pragma unroll
    for (int d = 0; d < 8; ++d) {  // all 16 loads in flight at once
      const std::size_t at = row + static_cast<std::size_t>(k - d) * kRows;
      finished[d] = k - d >= 0 ? load_value(carry + at) : 0.0;
      partial[d] = k - d >= 0 ? load_value(aggregate + at) : 0.0;
    }
    int next = k - 8;  // where the next eight start: past these, or at a tile not there yet
    bool done = false;
#pragma unroll
    for (int d = 0; d < 8; ++d) {
      if (done || next != k - 8) continue;
      if (k - d < 0) {
        done = true;
      } else if (ready(finished[d])) {
        sum += finished[d];
        done = true;
      } else if (ready(partial[d])) {
        sum += partial[d];
      } else {
        next = k - d;
      }
    }
    if (done) break;
    k = next;
  }
  return sum;
}
// [docs:end sentinel_row_look_back]

__global__ void __launch_bounds__(kThreads, 2)
    sat_lookback_sentinel(const float* __restrict__ in, double* table, Tiles t, int height, int width, bool pairs) {
  __shared__ int taken;
  __shared__ double warp_totals[kRows][kWarps];
  __shared__ double left_of_row[kRows];
  if (threadIdx.x == 0) taken = atomicAdd(t.next_tile, 1) + 1;  // the counter starts at -1
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

  // (3) left(i), by warp 0: lane i < 16 holds row i. Publish the tile's row totals, look back
  // along the row of tiles, publish left(i) + the totals for the tiles to the right.
  if (warp == 0) {
    const std::size_t mine = (static_cast<std::size_t>(band) * t.tiles + tile) * kRows + static_cast<std::size_t>(lane);
    double total = 0, left[1] = {0.0};
    if (lane < kRows) {
      for (int w = 0; w < kWarps; ++w) total += warp_totals[lane][w];
    }
    // [docs:sentinel_row_publish]
    // The row totals only where a tile to the right will read them (the first tile's carry is
    // its totals; the last tile's nobody reads); then the carry, each a plain store.
    const std::size_t band_rows = static_cast<std::size_t>(band) * t.tiles * kRows + static_cast<std::size_t>(lane);
    if (lane < kRows && tile > 0 && tile + 1 < t.tiles) store_value(&t.row_aggregate[mine], total);
    if (lane < kRows && tile > 0) left[0] = row_look_back(t.carry, t.row_aggregate, band_rows, tile - 1);
    if (lane < kRows && tile + 1 < t.tiles) store_value(&t.carry[mine], left[0] + total);
    // [docs:end sentinel_row_publish]
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
  std::size_t flags;  // ints: column flags, the counter

  Shape(int height, int width)
      : bands((height + kRows - 1) / kRows), tiles((width + kTile - 1) / kTile), flag_stride(std::max(tiles, kBandFlags)),
        flags(static_cast<std::size_t>(bands) * static_cast<std::size_t>(flag_stride) + 1) {}
};

std::size_t scratch_doubles(int height, int width) {
  const Shape s(height, width);
  return static_cast<std::size_t>(s.bands) * static_cast<std::size_t>(width) +
         2 * static_cast<std::size_t>(s.bands) * static_cast<std::size_t>(s.tiles) * kRows + (s.flags + 1) / 2;
}

void build(const float* in, double* table, int height, int width, double* scratch, cudaStream_t stream) {
  const Shape s(height, width);
  const std::size_t carries = static_cast<std::size_t>(s.bands) * static_cast<std::size_t>(s.tiles) * kRows;
  Tiles t{s.bands, s.tiles, s.flag_stride, nullptr, nullptr, nullptr, nullptr, nullptr};
  t.aggregate = scratch;
  t.row_aggregate = t.aggregate + static_cast<std::size_t>(s.bands) * static_cast<std::size_t>(width);
  t.carry = t.row_aggregate + carries;
  t.column_flags = reinterpret_cast<int*>(t.carry + carries);
  t.next_tile = t.column_flags + static_cast<std::size_t>(s.bands) * static_cast<std::size_t>(s.flag_stride);
  // Before each build (the previous one left them set): every row value the sentinel, every flag
  // empty, the counter at -1. They lie side by side: one memset of all-ones bytes.
  CUDA_CHECK(cudaMemsetAsync(t.row_aggregate, 0xFF, 2 * carries * sizeof(double) + s.flags * sizeof(int), stream));
  const bool pairs = width % kColumns == 0 && reinterpret_cast<std::uintptr_t>(in) % 8 == 0 &&
                     reinterpret_cast<std::uintptr_t>(table) % 16 == 0;
  const auto blocks = static_cast<unsigned>(s.bands) * static_cast<unsigned>(s.tiles);
  sat_lookback_sentinel<<<blocks, kThreads, 0, stream>>>(in, table, t, height, width, pairs);
  CUDA_CHECK_LAUNCH("sat_lookback_sentinel");
}

}  // namespace

std::unique_ptr<GpuConvolver> launch_sat_lookback_sentinel(const GpuProblem& problem) {
  return detail::make_sat_box_whole(problem, &build, &scratch_doubles,
                                    "step 24 with the row carries as values that are their own flags (all-ones bytes until stored): no flag, no fence along the rows");
}

}  // namespace fft_convolve
