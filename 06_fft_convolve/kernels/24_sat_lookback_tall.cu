// 24 sat_lookback_tall (candidate): step 19's one-pass table with its tile's shape and its
// publishing order as parameters, to test what binds it.
//
// Teaches the look-back's cost as a function of the tile's shape. The tiles running at one time
// span (resident blocks) / (tiles per row of tiles) rows of tiles, and a tile's look-back up its
// column adds the aggregates of about that many tiles above it, one double per column each: per
// tile about (resident tiles / tiles per band) x tile width x 8 bytes read from L2. At 4096 x 4096
// with step 19's 16 x 512 tiles: 264 resident tiles, 8 a band, 33 bands deep, 135 KB a tile,
// about 277 MB for the build, more than the table's own DRAM traffic. A tile of 32 rows x 256
// columns holds the same 8,192 pixels in the same registers (one column of 32 rows a thread
// instead of two of 16) with 16 tiles a band: half the depth, half the width, a quarter of the
// look-back's bytes.
// Second change (kEarly): a full tile stores its bottom table row first and tells the tile below
// right after it, so the fence waits for one row's stores, not all of them; the other rows follow.
// Everything else is step 19's (kernels/19_sat_lookback.cu has the method and its comments).
#include <cuda/atomic>

#include <cstdint>
#include <memory>

#include "course/check.hpp"
#include "kernels/sat_steps.cuh"

namespace fft_convolve {

namespace {

constexpr int kThreads = 256;               // threads per block: 8 warps
constexpr int kWarps = kThreads / 32;

constexpr int kEmpty = 0, kAggregate = 1, kInclusive = 2;  // a flag's states

__device__ __forceinline__ int load_acquire(const int* flag) {
  return cuda::atomic_ref<const int, cuda::thread_scope_device>(*flag).load(cuda::memory_order_acquire);
}
__device__ __forceinline__ void store_release(int* flag, int value) {
  cuda::atomic_ref<int, cuda::thread_scope_device>(*flag).store(value, cuda::memory_order_release);
}

// Where the tiles meet: the scratch buffer, cut up.
struct Tiles {
  int bands, tiles, chunks;   // rows of tiles (H / kRows), tiles per row (W / kTile), warp chunks per row (W / kChunk)
  double* aggregate;          // [bands][width]: A(c) of each tile
  double* row_aggregate;      // [bands][tiles][kRows]: each tile's row totals
  double* carry;              // [bands][tiles][kRows]: left(i) + the row totals
  int* column_flags;          // [bands][chunks]: kEmpty, kAggregate, kInclusive
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
// kLean: no fence of the whole warp before the release store; the warp's barrier orders its
// lanes' stores before lane 0's release (as a grid barrier orders a block's stores before its
// one thread's fence), so one fence, not two.
template <bool kLean = false>
__device__ __forceinline__ void publish(int* flag, int value) {
  if (!kLean) __threadfence();
  __syncwarp();
  if (threadIdx.x % 32 == 0) store_release(flag, value);
}

// The tile: kRows rows x kThreads * kColumns columns, kColumns neighbouring columns a thread.
// kEarly: a full tile's bottom table row stored and published before its other rows.
template <int kRows, int kColumns, bool kEarly, bool kLean = false, bool kTileFlag = false, bool kSplit = false>
__global__ void __launch_bounds__(kThreads, 2)
    sat_lookback_tall(const float* __restrict__ in, double* table, Tiles t, int height, int width, bool vectors) {
  static_assert(kRows <= 32 && (kColumns == 1 || kColumns == 2), "lane i of warp 0 carries row i");
  constexpr int kTile = kThreads * kColumns, kChunk = 32 * kColumns;
  __shared__ int taken;
  __shared__ double warp_totals[kRows][kWarps];
  __shared__ double left_of_row[kRows];
  if (threadIdx.x == 0) taken = atomicAdd(t.next_tile, 1);
  __syncthreads();
  const int band = taken / t.tiles, tile = taken % t.tiles;  // row of tiles after row of tiles
  const int lane = static_cast<int>(threadIdx.x % 32), warp = static_cast<int>(threadIdx.x / 32);
  const int r0 = band * kRows;
  const int c = tile * kTile + static_cast<int>(threadIdx.x) * kColumns;  // this thread's first column
  const int chunk = tile * kWarps + warp;
  const bool chunk_inside = tile * kTile + warp * kChunk < width;  // the same for the whole warp

  // (1) The thread's kRows x kColumns pixels, every load in flight at once; 0 outside the image.
  float x[kRows][kColumns];
#pragma unroll
  for (int i = 0; i < kRows; ++i) {
    const std::size_t row = static_cast<std::size_t>(min(r0 + i, height - 1)) * static_cast<std::size_t>(width);
    const bool inside = r0 + i < height;
    if (kColumns == 2 && vectors) {
      const float2 v = inside && c < width ? *reinterpret_cast<const float2*>(in + row + c) : make_float2(0, 0);
      x[i][0] = v.x;
      x[i][kColumns - 1] = v.y;
    } else {
#pragma unroll
      for (int j = 0; j < kColumns; ++j) x[i][j] = inside && c + j < width ? in[row + c + j] : 0.0f;
    }
  }

  // (2) Each row scanned across the tile: inside the thread, across the warp, then the warps before.
  double p[kRows][kColumns];
#pragma unroll
  for (int i = 0; i < kRows; ++i) {
    p[i][0] = x[i][0];
#pragma unroll
    for (int j = 1; j < kColumns; ++j) p[i][j] = p[i][j - 1] + static_cast<double>(x[i][j]);
    double inclusive = p[i][kColumns - 1];
#pragma unroll
    for (int d = 1; d < 32; d *= 2) {
      const double before = __shfl_up_sync(0xffffffffu, inclusive, d);
      if (lane >= d) inclusive += before;
    }
    const double lanes_before = __shfl_up_sync(0xffffffffu, inclusive, 1);
    if (lane > 0) {
#pragma unroll
      for (int j = 0; j < kColumns; ++j) p[i][j] += lanes_before;
    }
    if (lane == 31) warp_totals[i][warp] = inclusive;
  }
  __syncthreads();
#pragma unroll
  for (int i = 0; i < kRows; ++i) {
    double warps_before = 0;
    for (int w = 0; w < warp; ++w) warps_before += warp_totals[i][w];
#pragma unroll
    for (int j = 0; j < kColumns; ++j) p[i][j] += warps_before;
  }

  // (3) left(i), by warp 0 (lane i carries row i), as step 19. kSplit: warp 1 publishes the row
  // totals while warp 0 looks back (warp 0 waits on no fence of its own), and the finished
  // carries are released after the block's barrier by warp 7, so no warp waits on that fence.
  const std::size_t row_slot =
      (static_cast<std::size_t>(band) * t.tiles + tile) * kRows + static_cast<std::size_t>(lane);
  if (kSplit && warp == 1 && tile > 0) {
    double total = 0;
    if (lane < kRows) {
      for (int w = 0; w < kWarps; ++w) total += warp_totals[lane][w];
      t.row_aggregate[row_slot] = total;
    }
    publish<true>(&t.carry_flags[band * t.tiles + tile], kAggregate);
  }
  if (kSplit && warp == 0) {
    double total = 0, left[1] = {0.0};
    if (lane < kRows) {
      for (int w = 0; w < kWarps; ++w) total += warp_totals[lane][w];
    }
    if (tile > 0) {
      look_back(
          tile - 1, [&](int k) { return &t.carry_flags[band * t.tiles + k]; },
          [&](int k, bool finished, int) {
            const std::size_t at = (static_cast<std::size_t>(band) * t.tiles + k) * kRows + static_cast<std::size_t>(lane);
            return lane < kRows ? __ldcg((finished ? t.carry : t.row_aggregate) + at) : 0.0;
          },
          left);
    }
    if (lane < kRows) {
      if (tile + 1 < t.tiles) t.carry[row_slot] = left[0] + total;
      left_of_row[lane] = left[0];
    }
  }
  if (!kSplit && warp == 0) {
    const std::size_t mine = (static_cast<std::size_t>(band) * t.tiles + tile) * kRows + static_cast<std::size_t>(lane);
    double total = 0, left[1] = {0.0};
    if (lane < kRows) {
      for (int w = 0; w < kWarps; ++w) total += warp_totals[lane][w];
    }
    if (tile > 0) {
      if (lane < kRows) t.row_aggregate[mine] = total;
      publish<kLean>(&t.carry_flags[band * t.tiles + tile], kAggregate);
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
      publish<kLean>(&t.carry_flags[band * t.tiles + tile], kInclusive);
    }
    if (lane < kRows) left_of_row[lane] = left[0];
  }
  __syncthreads();
  // The carries were stored before the barrier; one release after it makes them visible.
  if (kSplit && threadIdx.x == kThreads - 32 && tile + 1 < t.tiles) {
    store_release(&t.carry_flags[band * t.tiles + tile], kInclusive);
  }

  // (4) Down the tile's columns, in place.
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

  // (5) Publish the aggregate A(c) (flag 1).
  const bool below_waits = chunk_inside && band + 1 < t.bands;
  if (below_waits) {
    const std::size_t row = static_cast<std::size_t>(band) * static_cast<std::size_t>(width);
#pragma unroll
    for (int j = 0; j < kColumns; ++j) {
      if (c + j < width) t.aggregate[row + c + j] = down[j];
    }
    if (!kTileFlag) publish<kLean>(&t.column_flags[band * t.chunks + chunk], kAggregate);
  }
  // kTileFlag: one flag per tile for the columns, set by thread 0 after the block's barrier (one
  // fence for the block instead of one per warp; the other warps go on without waiting for it).
  int* const tile_flag = &t.column_flags[band * t.chunks + tile];
  if (kTileFlag) {
    __syncthreads();
    if (threadIdx.x == (kSplit ? kThreads - 32 : 0) && band + 1 < t.bands) store_release(tile_flag, kAggregate);
  }

  // (6) above(c): the look-back up the column, one warp per kChunk columns.
  double above[kColumns] = {};
  if (chunk_inside && band > 0) {
    look_back(
        band - 1, [&](int k) { return &t.column_flags[k * t.chunks + (kTileFlag ? tile : chunk)]; },
        [&](int k, bool finished, int j) {
          const std::size_t at = finished ? static_cast<std::size_t>(k * kRows + kRows - 1) * static_cast<std::size_t>(width)
                                          : static_cast<std::size_t>(k) * static_cast<std::size_t>(width);
          return c + j < width ? __ldcg((finished ? table : t.aggregate) + at + c + j) : 0.0;
        },
        above);
  }

  // (7) The table, then flag 2 for the tiles below.
  auto store_row = [&](int i) {
    double* out = table + static_cast<std::size_t>(r0 + i) * static_cast<std::size_t>(width) + c;
    if (kColumns == 2 && vectors) {
      if (c < width) {
        *reinterpret_cast<double2*>(out) = make_double2(above[0] + p[i][0], above[kColumns - 1] + p[i][kColumns - 1]);
      }
    } else {
#pragma unroll
      for (int j = 0; j < kColumns; ++j) {
        if (c + j < width) out[j] = above[j] + p[i][j];
      }
    }
  };
  if (kEarly && !kTileFlag && below_waits) {  // a band below exists, so all kRows rows of this tile are inside
    store_row(kRows - 1);
    publish<kLean>(&t.column_flags[band * t.chunks + chunk], kInclusive);
#pragma unroll
    for (int i = 0; i < kRows - 1; ++i) store_row(i);
    return;
  }
#pragma unroll
  for (int i = 0; i < kRows; ++i) {
    if (r0 + i >= height) break;
    store_row(i);
  }
  if (kTileFlag) {
    __syncthreads();
    if (threadIdx.x == 0 && band + 1 < t.bands) store_release(tile_flag, kInclusive);
    return;
  }
  if (below_waits) publish<kLean>(&t.column_flags[band * t.chunks + chunk], kInclusive);
}

struct Shape {
  int bands, tiles, chunks;
  std::size_t flags;  // ints: column flags, carry flags, the counter
};

template <int kRows, int kColumns>
Shape shape_of(int height, int width) {
  constexpr int kTile = kThreads * kColumns, kChunk = 32 * kColumns;
  const int bands = (height + kRows - 1) / kRows, tiles = (width + kTile - 1) / kTile;
  const int chunks = (width + kChunk - 1) / kChunk;
  const std::size_t flags = static_cast<std::size_t>(bands) * static_cast<std::size_t>(chunks + tiles) + 1;
  return {bands, tiles, chunks, flags};
}

template <int kRows, int kColumns>
std::size_t scratch_doubles(int height, int width) {
  const Shape s = shape_of<kRows, kColumns>(height, width);
  return static_cast<std::size_t>(s.bands) * static_cast<std::size_t>(width) +
         2 * static_cast<std::size_t>(s.bands) * static_cast<std::size_t>(s.tiles) * kRows + (s.flags + 1) / 2;
}

template <int kRows, int kColumns, bool kEarly, bool kLean = false, bool kTileFlag = false, bool kSplit = false>
void build(const float* in, double* table, int height, int width, double* scratch, cudaStream_t stream) {
  const Shape s = shape_of<kRows, kColumns>(height, width);
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
  const bool vectors = width % kColumns == 0 && reinterpret_cast<std::uintptr_t>(in) % 8 == 0 &&
                       reinterpret_cast<std::uintptr_t>(table) % 16 == 0;
  const auto blocks = static_cast<unsigned>(s.bands) * static_cast<unsigned>(s.tiles);
  sat_lookback_tall<kRows, kColumns, kEarly, kLean, kTileFlag, kSplit><<<blocks, kThreads, 0, stream>>>(in, table, t, height, width, vectors);
  CUDA_CHECK_LAUNCH("sat_lookback_tall");
}

}  // namespace

std::unique_ptr<GpuConvolver> launch_sat_lookback_early(const GpuProblem& problem) {
  return detail::make_sat_box_whole(problem, &build<16, 2, true>, &scratch_doubles<16, 2>,
                                    "candidate: step 19 (16 x 512 tiles), a tile's bottom table row published before its other rows");
}

std::unique_ptr<GpuConvolver> launch_sat_lookback_lean(const GpuProblem& problem) {
  return detail::make_sat_box_whole(problem, &build<16, 2, true, true>, &scratch_doubles<16, 2>,
                                    "candidate: sat_lookback_early with one fence per publish (lane 0's release after the warp's barrier)");
}

std::unique_ptr<GpuConvolver> launch_sat_lookback_fence(const GpuProblem& problem) {
  return detail::make_sat_box_whole(problem, &build<16, 2, false, true>, &scratch_doubles<16, 2>,
                                    "candidate: sat_lookback with one fence per publish (lane 0's release after the warp's barrier)");
}

std::unique_ptr<GpuConvolver> launch_sat_lookback_tileflag(const GpuProblem& problem) {
  return detail::make_sat_box_whole(problem, &build<16, 2, false, true, true>, &scratch_doubles<16, 2>,
                                    "candidate: sat_lookback_fence with one column flag per tile, set by one thread after the block's barrier");
}

std::unique_ptr<GpuConvolver> launch_sat_lookback_split(const GpuProblem& problem) {
  return detail::make_sat_box_whole(problem, &build<16, 2, false, true, true, true>, &scratch_doubles<16, 2>,
                                    "candidate: sat_lookback_tileflag with the row totals published by warp 1 during warp 0's look-back and the carries released after the barrier");
}

std::unique_ptr<GpuConvolver> launch_sat_lookback_tall(const GpuProblem& problem) {
  return detail::make_sat_box_whole(problem, &build<32, 1, true>, &scratch_doubles<32, 1>,
                                    "candidate: step 19 in 32 x 256 tiles (a quarter of the look-back's bytes), bottom row published first");
}

std::unique_ptr<GpuConvolver> launch_sat_lookback_tall_late(const GpuProblem& problem) {
  return detail::make_sat_box_whole(problem, &build<32, 1, false>, &scratch_doubles<32, 1>,
                                    "candidate: step 19 in 32 x 256 tiles (a quarter of the look-back's bytes)");
}

}  // namespace fft_convolve
