// Kernel 10, stream_k: every SM gets the same number of k-steps, whatever the shape (Stream-K).
//
// Teaches wave quantisation and how to beat it. Kernel 08 gives each block one 128 x 128 tile
// of C. At n = 1600 that is 13 x 13 = 169 tiles, and an H100 holds 2 such blocks on each of its
// 132 SMs: 264 places for 169 blocks, so 95 SMs run one block and 37 run two; the whole product
// waits for the slowest SMs. Here the grid is exactly as large as the GPU holds at once, and the
// work is not cut into tiles but into k-steps: tile t's BK-deep steps 0 .. steps-1, tile after
// tile, one long list. Block b takes the b-th equal share of that list. A share usually ends in
// the middle of a tile and the next block's share starts there: such a tile is summed by two (or
// more) blocks, each over its own range of k.
//
// Combining the parts without atomics and in a fixed order (so the result does not depend on
// timing): the blocks that share a tile write it one after the other, highest block first. That
// block starts its share with the tile's last k-steps, so it is done first: it stores its sum
// to C and marks the tile (a flag in global memory: one count per tile). The next one waits for
// the mark, adds its sum to what C holds, and so on; the block that holds the tile's first
// k-steps (at the end of its own share) finishes the tile. (The flags are a fixed array in
// device memory, tagged with a launch number, so no launch has to clear them; two stream_k
// launches must not run at the same time, which the lesson, its tests and its sweep never do.)
//
// The rule that makes such a wait safe: a block may only wait for a block that is guaranteed to
// run. A grid no larger than what the occupancy calculator says fits is not enough when it is
// launched with <<<>>>: that launch promises nothing about which blocks are resident together.
// If another kernel (this process's, another's under MPS) holds some SMs, part of the grid starts,
// the rest queues, and a started block can spin on the SM its queued producer needs. So the grid
// is launched cooperatively (cudaLaunchCooperativeKernel): the driver starts all its blocks
// together or refuses the launch (cudaErrorCooperativeLaunchTooLarge), and the launcher turns a
// refusal into a one-line error naming the kernel (exit 3). Above kMaxTiles tiles no block
// waits (one tile per block), and that grid, larger than the GPU holds, is launched plainly.
//
// What changed from kernel 08: the grid and the loop over each block's share of k-steps, the
// ordered combine of a shared tile, and the cooperative launch. Each tile's arithmetic is kernel
// 08's, from cp_async_tile.cuh: the tiles copied with cp.async (AsyncATile, AsyncBTile), the
// pipeline over a range of k-steps (pipeline_k_steps), the warp tile and the 8 x 8 store.
#include <algorithm>
#include <atomic>
#include <mutex>
#include <string>

#include "course/check.hpp"
#include "course/errors.hpp"
#include "cp_async_tile.cuh"

namespace matmul {

namespace {

constexpr int BM = 128, BN = 128, BK = 32, WM = 64, WN = 32, kStages = 2, kMinBlocks = 2;
constexpr int kThreads = detail::WarpTileLayout<BM, BN, WM, WN>::kThreads;
constexpr int LDA = BM + 4, LDB = BN;
constexpr int kStageA = BK * LDA, kStageB = BK * LDB;
constexpr int kSharedBytes = kStages * (kStageA + kStageB) * static_cast<int>(sizeof(float));
constexpr int kMaxTiles = 1 << 16;  // flags for up to 65,536 tiles (8192 x 8192 has 4,096); more: one tile per block
constexpr int kSwizzleGroup = 8;
// A block's share is at least this many k-steps: a small product (512^3 has 16 tiles of 16 steps)
// would otherwise give each of hundreds of blocks one step, and every tile a chain of dozens of
// blocks adding to it in turn (slower than kernel 08 in the size sweep, H100, docs/data).
constexpr long long kMinStepsPerBlock = 8;

// One count per tile: (launch number << 8) | blocks that have written the tile in that launch.
__device__ unsigned tile_marks[kMaxTiles] = {};

struct StreamKPlan {
  int tiles_m, tiles_n, steps_per_tile;  // steps: BK-deep slices of one tile
  long long total_steps;
  int blocks;
  unsigned launch;  // tags the marks of this launch (24 bits; wraps after 16.7 million launches)
};

// The block whose share holds k-step `step` (shares: block b starts at floor(b * total / blocks)).
__device__ __forceinline__ int block_of(long long step, const StreamKPlan& plan) {
  return static_cast<int>(((step + 1) * plan.blocks - 1) / plan.total_steps);
}
__device__ __forceinline__ long long share_start(int block, const StreamKPlan& plan) {
  return static_cast<long long>(block) * plan.total_steps / plan.blocks;
}

// Tile index -> (bm, bn), in groups of kSwizzleGroup block-rows (kernel 08's order, for L2 reuse).
__device__ __forceinline__ void tile_position(int tile, const StreamKPlan& plan, int& bm, int& bn) {
  const int per_group = kSwizzleGroup * plan.tiles_n;
  const int first_m = tile / per_group * kSwizzleGroup;
  const int rows = min(plan.tiles_m - first_m, kSwizzleGroup);
  const int in_group = tile % per_group;
  bm = first_m + in_group % rows;
  bn = in_group / rows;
}

// acc (+)= C: the thread's 8 x 8 outputs. L2 reads (__ldcg): another SM wrote them.
template <bool kVec4>
__device__ __forceinline__ void add_from_c(const MatmulArgs& p, float (&acc)[8][8], const int (&rows)[8],
                                           const int (&cols)[2]) {
#pragma unroll
  for (int i = 0; i < 8; ++i) {
    if (rows[i] >= p.m) continue;
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      if constexpr (kVec4) {
        if (cols[h] < p.n) {
          const float4 c = __ldcg(reinterpret_cast<const float4*>(p.c + detail::at(rows[i], cols[h], p.n)));
          acc[i][4 * h] += c.x;
          acc[i][4 * h + 1] += c.y;
          acc[i][4 * h + 2] += c.z;
          acc[i][4 * h + 3] += c.w;
        }
      } else {
#pragma unroll
        for (int j = 0; j < 4; ++j) {
          if (cols[h] + j < p.n) acc[i][4 * h + j] += __ldcg(p.c + detail::at(rows[i], cols[h] + j, p.n));
        }
      }
    }
  }
}

template <bool kVec4>
__global__ void __launch_bounds__(kThreads, kMinBlocks) stream_k_kernel(MatmulArgs p, StreamKPlan plan) {
  extern __shared__ __align__(16) float shared[];
  float* sA = shared;
  float* sB = shared + kStages * kStageA;
  const int tid = threadIdx.x;
  const detail::WarpTileLayout<BM, BN, WM, WN> layout(tid);
  const int block = static_cast<int>(blockIdx.x);
  const long long share_end = share_start(block + 1, plan);
  // [docs:stream_k_share]
  for (long long step = share_start(block, plan); step < share_end;) {
    const int tile = static_cast<int>(step / plan.steps_per_tile);
    const long long tile_begin = static_cast<long long>(tile) * plan.steps_per_tile;
    const int k_first = static_cast<int>(step - tile_begin);  // this block's k-steps of the tile
    const int k_last = static_cast<int>(min(share_end - tile_begin, static_cast<long long>(plan.steps_per_tile)));
    int bm = 0, bn = 0;
    tile_position(tile, plan, bm, bn);
    const int m0 = bm * BM, n0 = bn * BN;
    const detail::AsyncATile<BM, BK, kThreads, LDA> a_tile(p, m0, tid);
    const detail::AsyncBTile<BN, BK, kThreads, LDB, kVec4> b_tile(p, n0, tid);
    // [docs:end stream_k_share]

    // Kernel 08's pipeline over k-steps k_first .. k_last - 1 of this tile.
    __syncthreads();  // the previous tile's last slice has been read by everyone
    float acc[8][8] = {};
    detail::pipeline_k_steps<BK, kStages, LDA, LDB, WM, WN>(p, a_tile, b_tile, sA, sB, layout.m_first,
                                                           layout.n_first, k_first, k_last, acc);

    int rows[8], cols[2];
    layout.output_coordinates(m0, n0, rows, cols);
    // [docs:stream_k_combine]
    const int first_writer = block_of(tile_begin + plan.steps_per_tile - 1, plan);  // holds the last k-steps
    const int last_writer = block_of(tile_begin, plan);                               // holds the first ones
    if (first_writer == last_writer) {
      detail::store_8x8<kVec4>(p, acc, rows, cols);  // the whole tile is this block's: no one to wait for
    } else {
      const unsigned written_before = static_cast<unsigned>(first_writer - block);  // blocks after this one
      const unsigned tag = plan.launch << 8;
      if (tid == 0 && written_before > 0) {
        while (atomicAdd(&tile_marks[tile], 0u) != (tag | written_before)) {
        }
        __threadfence();  // their stores to C are visible before ours read C
      }
      __syncthreads();
      if (written_before > 0) add_from_c<kVec4>(p, acc, rows, cols);
      detail::store_8x8<kVec4>(p, acc, rows, cols);
      __threadfence();  // our stores reach L2 before the mark says so
      __syncthreads();
      if (tid == 0) atomicExch(&tile_marks[tile], tag | (written_before + 1));
    }
    // [docs:end stream_k_combine]
    step = tile_begin + k_last;
  }
}

// Blocks of the kernel that fit on one SM at once (the occupancy calculator), asked once.
template <class Kernel>
int resident_blocks_per_sm(Kernel kernel, std::once_flag& flag, int& cached) {
  std::call_once(flag, [&] {
    CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kSharedBytes));
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&cached, kernel, kThreads, kSharedBytes));
  });
  return cached;
}

int sm_count() {
  int device = 0, count = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&count, cudaDevAttrMultiProcessorCount, device));
  return count;
}

// Whether the device can start a grid with all its blocks resident at once (cooperative launch).
bool cooperative_launch_supported() {
  int device = 0, supported = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&supported, cudaDevAttrCooperativeLaunch, device));
  return supported != 0;
}

[[noreturn]] void refuse(const std::string& why) {
  throw course::ResourceError("stream_k_kernel: " + why +
                              "; its blocks wait for each other, so it runs only when all of them are resident");
}

}  // namespace

void launch_stream_k(const MatmulArgs& args, cudaStream_t stream) {
  if (args.m == 0 || args.n == 0) return;
  static std::once_flag vec_flag, scalar_flag;
  static int vec_blocks = 0, scalar_blocks = 0;
  static std::atomic<unsigned> launches{0};
  const bool vec4 = detail::float4_ok(args);
  auto* kernel = vec4 ? stream_k_kernel<true> : stream_k_kernel<false>;
  const int per_sm = vec4 ? resident_blocks_per_sm(kernel, vec_flag, vec_blocks)
                          : resident_blocks_per_sm(kernel, scalar_flag, scalar_blocks);
  StreamKPlan plan{};
  plan.tiles_m = detail::ceil_div(args.m, BM);
  plan.tiles_n = detail::ceil_div(args.n, BN);
  plan.steps_per_tile = std::max(1, detail::ceil_div(args.k, BK));  // K = 0: one empty step writes zeros
  const long long tiles = static_cast<long long>(plan.tiles_m) * plan.tiles_n;
  plan.total_steps = tiles * plan.steps_per_tile;
  // As many blocks as are resident at once, but none with fewer than kMinStepsPerBlock; beyond
  // kMaxTiles there are no flags left, so there is one block per tile: block b's share is exactly
  // tile b (plain data parallel).
  const long long resident = static_cast<long long>(std::max(1, per_sm)) * sm_count();
  const long long useful = std::max(1LL, plan.total_steps / kMinStepsPerBlock);
  plan.blocks = static_cast<int>(tiles > kMaxTiles ? tiles : std::min(resident, useful));
  plan.launch = (launches.fetch_add(1) + 1) & 0xFFFFFFu;
  if (tiles > kMaxTiles) {  // one tile per block: no block waits for another
    kernel<<<plan.blocks, kThreads, kSharedBytes, stream>>>(args, plan);
    CUDA_CHECK_LAUNCH("stream_k_kernel");
    return;
  }
  // Blocks wait for each other: all of them must be resident at once, which only a cooperative
  // launch guarantees (the driver starts the whole grid together, or refuses).
  if (!cooperative_launch_supported()) refuse("this device does not support cooperative launch");
  MatmulArgs kernel_args = args;
  void* params[] = {&kernel_args, &plan};  // the kernel's parameters, in order
  const cudaError_t status =
      cudaLaunchCooperativeKernel(kernel, dim3(plan.blocks), dim3(kThreads), params, kSharedBytes, stream);
  if (status == cudaErrorCooperativeLaunchTooLarge) {
    (void)cudaGetLastError();  // clear it: the refusal is reported below, once
    refuse("the device refused a cooperative grid of " + std::to_string(plan.blocks) + " blocks");
  }
  CUDA_CHECK(status);
}

}  // namespace matmul
