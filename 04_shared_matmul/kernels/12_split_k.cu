// Kernel 12, split_k: the tile shape chosen per problem size, and split-K where there are fewer
// tiles than SMs.
//
// Teaches: a GEMM library does not run one kernel at every size; it picks a configuration from
// the shape (cuBLAS's heuristics, CUTLASS's profiler). At 256^3 kernel 11's 128 x 128 tiles are
// 4 blocks for 132 SMs: 97% of the GPU idles, however fast each block is. Two remedies, in this
// order, from a small table the launcher applies (plan_for below):
//  1. smaller tiles where even a 4-way split of 128 x 128 tiles would leave SMs idle: 64 x 64
//     (64 threads of 8 x 8 outputs: kernel 08's warp tile, two warps) makes 4 times as many
//     blocks;
//  2. split-K: when even those do not fill the SMs, each tile's k-steps are cut into S slices,
//     one block per (tile, slice), S chosen so that every SM gets about 4 warps (one 128 x 128
//     block of 8 warps, or two 64 x 64 blocks of 2: a block of 2 warps alone would leave two of
//     the SM's four schedulers idle) and every slice keeps at least kMinStepsPerSlice k-steps.
// With enough tiles (at least one per SM at 128 x 128) the launcher runs kernel 11 unchanged.
//
// Summing the slices without waiting and in a fixed order: each block writes its partial tile
// to a workspace, then counts itself in on the tile (one atomicAdd on a counter per tile). The
// block that arrives last, whichever it is, adds the S partials in slice order 0, 1, ..., S-1,
// writes C and resets the counter for the next launch. No block ever waits for another (unlike
// stream_k, kernel 10), so any launch is safe; the order of the additions never depends on
// timing, so the result is the same bit for bit from run to run. (Workspace and counters are
// the launcher's; two split_k launches must not run at the same time, which the lesson, its tests
// and its sweep never do.)
//
// Resources (sm_90, nvcc 13, `nvcc -Xptxas -v`): the 64 x 64 kernel (64 threads,
// __launch_bounds__(64)) 161 registers (float4) / 167 (scalar); the 128 x 128 one (256 threads,
// __launch_bounds__(256, 2)) 126 / 125; no spills (0 bytes of spill stores and loads). Shared
// memory: 3 stages x (16 x (BM + 4) + 16 x BN) floats: 25,344 bytes (64 x 64), 49,920 (128 x 128).
#include <algorithm>
#include <mutex>

#include "course/check.hpp"
#include "cp_async_tile.cuh"

namespace matmul {


namespace {

constexpr int BK = 16, kStages = 3;
constexpr int kMinStepsPerSlice = 2;  // 32 of k: shorter slices would cost more in the sum than they save
constexpr int kMaxSplitTiles = 4096;  // counters; split-K is used only when tiles < SMs
constexpr std::size_t kWorkspaceFloats = std::size_t{8} << 20;  // 32 MiB of partial tiles, at most

__device__ unsigned slice_counts[kMaxSplitTiles] = {};  // blocks of a tile done, reset by the last one

template <int BM, int BN>
constexpr int shared_bytes() {
  return kStages * (BK * (BM + 4) + BK * BN) * static_cast<int>(sizeof(float));
}

struct SplitPlan {
  int splits;            // slices of each tile's k-steps (1: no split)
  int steps;             // k-steps per tile
  float* workspace;      // splits x tiles partial tiles (only when splits > 1)
};

// [docs:split_k_sum]
template <int BM, int BN, int WM, int WN, int kMinBlocks, bool kVec4>
__global__ void __launch_bounds__(detail::WarpTileLayout<BM, BN, WM, WN>::kThreads, kMinBlocks)
    split_k_kernel(MatmulArgs p, SplitPlan plan) {
  using Layout = detail::WarpTileLayout<BM, BN, WM, WN>;
  constexpr int kThreads = Layout::kThreads, LDA = BM + 4, LDB = BN;
  extern __shared__ __align__(16) float shared[];
  float* sA = shared;
  float* sB = shared + kStages * BK * LDA;
  __shared__ bool last_block;
  const int tid = threadIdx.x;
  const int tile = static_cast<int>(blockIdx.y * gridDim.x + blockIdx.x);
  const int tiles = static_cast<int>(gridDim.x * gridDim.y);
  const int slice = static_cast<int>(blockIdx.z);
  const int m0 = static_cast<int>(blockIdx.y) * BM, n0 = static_cast<int>(blockIdx.x) * BN;
  const Layout layout(tid);
  const detail::AsyncATile<BM, BK, kThreads, LDA> a_tile(p, m0, tid);
  const detail::AsyncBTile<BN, BK, kThreads, LDB, kVec4> b_tile(p, n0, tid);
  const int k_first = slice * plan.steps / plan.splits, k_last = (slice + 1) * plan.steps / plan.splits;

  float acc[8][8] = {};
  detail::pipeline_k_steps<BK, kStages, LDA, LDB, WM, WN>(p, a_tile, b_tile, sA, sB, layout.m_first, layout.n_first,
                                                         k_first, k_last, acc);
  int rows[8], cols[2];
  layout.output_coordinates(m0, n0, rows, cols);
  if (plan.splits > 1) {
    // This slice's partial tile, thread by thread (16 float4 per thread, coalesced across threads).
    float4* mine = reinterpret_cast<float4*>(plan.workspace) + (static_cast<std::size_t>(slice) * tiles + tile) * 16 * kThreads;
#pragma unroll
    for (int q = 0; q < 16; ++q) {
      const int i = q / 2, h = q % 2;
      mine[q * kThreads + tid] = make_float4(acc[i][4 * h], acc[i][4 * h + 1], acc[i][4 * h + 2], acc[i][4 * h + 3]);
    }
    __threadfence();  // the partial reaches L2 before the count says so
    __syncthreads();
    if (tid == 0) last_block = atomicAdd(&slice_counts[tile], 1u) == static_cast<unsigned>(plan.splits - 1);
    __syncthreads();
    if (!last_block) return;  // another block of this tile will sum it
    __threadfence();          // the other slices' partials are visible to the reads below
#pragma unroll
    for (int q = 0; q < 16; ++q) {
      const int i = q / 2, h = q % 2;
      float4 sum = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
      for (int s = 0; s < plan.splits; ++s) {  // slice order, whichever block arrived last
        const float4 v = __ldcg(reinterpret_cast<const float4*>(plan.workspace) +
                                (static_cast<std::size_t>(s) * tiles + tile) * 16 * kThreads + q * kThreads + tid);
        sum.x += v.x, sum.y += v.y, sum.z += v.z, sum.w += v.w;
      }
      acc[i][4 * h] = sum.x, acc[i][4 * h + 1] = sum.y, acc[i][4 * h + 2] = sum.z, acc[i][4 * h + 3] = sum.w;
    }
    if (tid == 0) slice_counts[tile] = 0;  // ready for the next launch (kernel boundaries order it)
  }
  detail::store_8x8<kVec4>(p, acc, rows, cols);
}
// [docs:end split_k_sum]

int sm_count() {
  int device = 0, count = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&count, cudaDevAttrMultiProcessorCount, device));
  return count;
}

// The partial tiles' buffer, allocated by the first launch that splits and freed at exit (before
// the CUDA runtime's own clean-up, which was registered earlier, at the first CUDA call).
struct Workspace {
  float* data = nullptr;
  Workspace() { CUDA_CHECK(cudaMalloc(&data, kWorkspaceFloats * sizeof(float))); }
  ~Workspace() { (void)cudaFree(data); }
  Workspace(const Workspace&) = delete;
  Workspace& operator=(const Workspace&) = delete;
};

float* workspace() {
  static Workspace buffer;
  return buffer.data;
}

template <int BM, int BN, int WM, int WN, int kMinBlocks>
void launch_tiles(const MatmulArgs& args, int splits, cudaStream_t stream) {
  constexpr int kThreads = detail::WarpTileLayout<BM, BN, WM, WN>::kThreads;
  constexpr int kBytes = shared_bytes<BM, BN>();
  static std::once_flag vec_flag, scalar_flag;
  const dim3 grid(detail::ceil_div(args.n, BN), detail::ceil_div(args.m, BM), splits);
  const SplitPlan plan{splits, std::max(1, detail::ceil_div(args.k, BK)), splits > 1 ? workspace() : nullptr};
  auto launch = [&](auto kernel, std::once_flag& flag) {
    std::call_once(flag, [&] {
      CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kBytes));
    });
    kernel<<<grid, kThreads, kBytes, stream>>>(args, plan);
  };
  if (detail::float4_ok(args)) {
    launch(split_k_kernel<BM, BN, WM, WN, kMinBlocks, true>, vec_flag);
  } else {
    launch(split_k_kernel<BM, BN, WM, WN, kMinBlocks, false>, scalar_flag);
  }
  CUDA_CHECK_LAUNCH("split_k_kernel");
}

}  // namespace

// [docs:split_k_plan]
// The table: enough 128 x 128 tiles for every SM -> kernel 11; else 128 x 128 tiles if a split
// into at most 4 slices fills the SMs, else 64 x 64; then, with fewer blocks than the SMs hold,
// split K: about 4 warps per SM (one 128 x 128 block of 8 warps, or two 64 x 64 blocks of 2),
// each slice at least kMinStepsPerSlice k-steps.
SplitKPlan plan_split_k(int m, int n, int k, int sms) {
  const long long tiles128 = static_cast<long long>(detail::ceil_div(m, 128)) * detail::ceil_div(n, 128);
  if (tiles128 >= sms) return {SplitKPlan::kWideThread, 128, 1};
  const int tile = 4 * tiles128 >= sms ? 128 : 64;
  const long long tiles = static_cast<long long>(detail::ceil_div(m, tile)) * detail::ceil_div(n, tile);
  const int steps = std::max(1, detail::ceil_div(k, BK));
  const long long blocks_wanted = static_cast<long long>(sms) * (tile == 128 ? 1 : 2);
  long long splits = std::max(1LL, blocks_wanted / tiles);
  splits = std::min<long long>(splits, std::max(1, steps / kMinStepsPerSlice));
  if (tiles > kMaxSplitTiles ||
      splits * tiles * static_cast<long long>(tile) * tile > static_cast<long long>(kWorkspaceFloats)) {
    splits = 1;
  }
  return {tile == 128 ? SplitKPlan::kTiles128 : SplitKPlan::kTiles64, tile, static_cast<int>(splits)};
}
// [docs:end split_k_plan]

void launch_split_k(const MatmulArgs& args, cudaStream_t stream) {
  if (args.m == 0 || args.n == 0) return;
  const SplitKPlan plan = plan_split_k(args.m, args.n, args.k, sm_count());
  switch (plan.kind) {
    case SplitKPlan::kWideThread: launch_wide_thread(args, stream); break;
    case SplitKPlan::kTiles128: launch_tiles<128, 128, 64, 32, 2>(args, plan.splits, stream); break;
    case SplitKPlan::kTiles64: launch_tiles<64, 64, 64, 32, 1>(args, plan.splits, stream); break;
  }
}

}  // namespace matmul
