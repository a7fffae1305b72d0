// Kernel 12, split_k: the tile shape chosen per problem size, and split-K where there are fewer
// tiles than SMs.
//
// Teaches: a GEMM library does not run one kernel at every size; it picks a configuration from
// the shape (cuBLAS's heuristics, CUTLASS's profiler). At 256^3 kernel 11's 128 x 128 tiles are
// 4 blocks for 132 SMs: 97% of the GPU idles, however fast each block is. Two remedies, in this
// order, from a small table the launcher applies (plan_split_k below):
//  1. smaller tiles where even a 4-way split of 128 x 128 tiles would leave SMs idle: 64 x 64
//     tiles of 128 threads, each 4 x 8 outputs (4 warps of 32 x 32: kernel 08's warp tile with
//     one group of 4 rows per thread instead of two), make 4 times as many blocks;
//  2. split-K: when even those do not fill the SMs, each tile's k-steps are cut into S slices,
//     one block per (tile, slice), S chosen so that every SM gets about kWarpsPerSm = 8 warps
//     (one 128 x 128 block of 8 warps, or two 64 x 64 blocks of 4: two warps for each of the
//     SM's four schedulers) and every slice keeps at least kMinStepsPerSlice k-steps.
// With enough tiles (at least one per SM at 128 x 128) the launcher runs kernel 11 unchanged.
// Both split lines run one kernel template, split_k_kernel, with the pipeline of kernel 08
// (cp_async_tile.cuh): 128 x 128 tiles of 256 threads of 8 x 8 outputs, or 64 x 64 tiles of
// 128 threads of 4 x 8.
//
// Why the 64 x 64 line looks like this (measured on the H100 in docs/data/h100-2026-11-27-d/,
// against the 64-thread block of 8 x 8 outputs and the unbatched sum it replaced): at 512^3
// the work is too small for the FMA rate to set the time; latency does. The old block of
// 2 warps, two per SM, left each of an SM's four schedulers about one warp to issue from, and
// each thread ran its 8 x 8 sums over its slice (128 of k at S = 4) as one serial chain of
// 64 x 128 = 8,192 FMAs. 128 threads on the same 64 x 64 tile halve the chain (4 x 8 outputs,
// 4,096 FMAs) and double the warps (8 per SM at the same S). And the last block's sum read one
// float4 of a thread's outputs at a time, slice after slice: about 16 L2 round trips one after
// another (one per float4); now it issues a slice's loads, kSumBatch float4 at a time (all of
// them for 4 x 8 outputs), before their additions, so the sum costs about S round trips. The
// order of the additions did not change.
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
// Resources (sm_90, nvcc 13, `nvcc -Xptxas -v`): the 64 x 64 instance (128 threads,
// __launch_bounds__(128)) 116 registers (float4 B loads) / 118 (scalar); the 128 x 128 one
// (256 threads, __launch_bounds__(256, 2), at most 128 registers) 128 / 128; no spills in any of
// the four (0 bytes of spill stores and loads). The 128 x 128 instance spilled with all 16 of a
// thread's float4 in one batch of the sum, hence kSumBatch. Shared memory: 3 stages x
// (16 x (BM + 4) + 16 x BN) floats: 25,344 bytes (64 x 64), 49,920 (128 x 128).
#include <algorithm>
#include <mutex>

#include "course/check.hpp"
#include "cp_async_tile.cuh"

namespace matmul {


namespace {

constexpr int BK = 16, kStages = 3;
constexpr int kMinStepsPerSlice = 2;  // 32 of k: shorter slices would cost more in the sum than they save
constexpr int kWarpsPerSm = 8;        // what the split aims at: two warps for each of an SM's 4 schedulers
constexpr int kSumBatch = 8;          // float4 of a thread's partials the last block loads at once
constexpr int kMaxSplitTiles = 4096;  // counters; split-K is used only when tiles < SMs
constexpr std::size_t kWorkspaceFloats = std::size_t{8} << 20;  // 32 MiB of partial tiles, at most

__device__ unsigned slice_counts[kMaxSplitTiles] = {};  // blocks of a tile done, reset by the last one

// A line of the table: BM x BN tiles, warps of WM x WN, each thread TM x 8 outputs.
template <int BM_, int BN_, int WM_, int WN_, int TM_, int kMinBlocks_>
struct TileLine {
  static constexpr int BM = BM_, BN = BN_, WM = WM_, WN = WN_, TM = TM_, kMinBlocks = kMinBlocks_;
  static constexpr int kThreads = detail::WarpTileLayout<BM, BN, WM, WN, TM>::kThreads;
  static constexpr int kWarps = kThreads / 32;
  static constexpr int kBytes = kStages * (BK * (BM + 4) + BK * BN) * static_cast<int>(sizeof(float));
};
using Tiles128 = TileLine<128, 128, 64, 32, 8, 2>;  // 256 threads of 8 x 8 (kernel 08's block)
using Tiles64 = TileLine<64, 64, 32, 32, 4, 1>;     // 128 threads of 4 x 8

struct SplitPlan {
  int splits;            // slices of each tile's k-steps (1: no split)
  int steps;             // k-steps per tile
  float* workspace;      // splits x tiles partial tiles (only when splits > 1)
};

template <class L, bool kVec4>
__global__ void __launch_bounds__(L::kThreads, L::kMinBlocks) split_k_kernel(MatmulArgs p, SplitPlan plan) {
  using Layout = detail::WarpTileLayout<L::BM, L::BN, L::WM, L::WN, L::TM>;
  constexpr int kThreads = L::kThreads, LDA = L::BM + 4, LDB = L::BN;
  constexpr int kQuads = 2 * L::TM;  // float4 of a thread's TM x 8 outputs
  static_assert(kQuads % kSumBatch == 0, "the sum goes in whole batches");
  extern __shared__ __align__(16) float shared[];
  float* sA = shared;
  float* sB = shared + kStages * BK * LDA;
  __shared__ bool last_block;
  const int tid = threadIdx.x;
  const int tile = static_cast<int>(blockIdx.y * gridDim.x + blockIdx.x);
  const int tiles = static_cast<int>(gridDim.x * gridDim.y);
  const int slice = static_cast<int>(blockIdx.z);
  const int m0 = static_cast<int>(blockIdx.y) * L::BM, n0 = static_cast<int>(blockIdx.x) * L::BN;
  const Layout layout(tid);
  const detail::AsyncATile<L::BM, BK, kThreads, LDA> a_tile(p, m0, tid);
  const detail::AsyncBTile<L::BN, BK, kThreads, LDB, kVec4> b_tile(p, n0, tid);
  const int k_first = slice * plan.steps / plan.splits, k_last = (slice + 1) * plan.steps / plan.splits;

  float acc[L::TM][8] = {};
  detail::pipeline_k_steps<BK, kStages, LDA, LDB, L::WM, L::WN>(p, a_tile, b_tile, sA, sB, layout.m_first,
                                                               layout.n_first, k_first, k_last, acc);
  if (plan.splits > 1) {
    // Slice s's partial tile, thread by thread (kQuads float4 per thread, coalesced across threads).
    auto partial = [&](int s) {
      const std::size_t first = (static_cast<std::size_t>(s) * tiles + tile) * kQuads * kThreads;
      return reinterpret_cast<float4*>(plan.workspace) + first + tid;
    };
    float4* mine = partial(slice);
#pragma unroll
    for (int q = 0; q < kQuads; ++q) {
      const int i = q / 2, h = q % 2;
      mine[q * kThreads] = make_float4(acc[i][4 * h], acc[i][4 * h + 1], acc[i][4 * h + 2], acc[i][4 * h + 3]);
    }
    __threadfence();  // the partial reaches L2 before the count says so
    __syncthreads();
    if (tid == 0) last_block = atomicAdd(&slice_counts[tile], 1u) == static_cast<unsigned>(plan.splits - 1);
    __syncthreads();
    if (!last_block) return;  // another block of this tile will sum it
    __threadfence();          // the other slices' partials are visible to the reads below
    // [docs:split_k_sum]
    // The sum, kSumBatch float4 of the thread's outputs at a time (all 8 of a 4 x 8 thread, the
    // 16 of an 8 x 8 one in two batches, which keeps the registers in bounds): a batch's loads
    // from one slice are all issued before its additions, so they overlap instead of waiting one
    // by one. Each output is still 0 + slice 0 + slice 1 + ... + slice S-1, in that order,
    // whichever block arrived last.
#pragma unroll
    for (int q0 = 0; q0 < kQuads; q0 += kSumBatch) {
      float4 sum[kSumBatch];
#pragma unroll
      for (int q = 0; q < kSumBatch; ++q) sum[q] = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
      for (int s = 0; s < plan.splits; ++s) {  // slice order
        const float4* part = partial(s) + q0 * kThreads;
        float4 v[kSumBatch];
#pragma unroll
        for (int q = 0; q < kSumBatch; ++q) v[q] = __ldcg(part + q * kThreads);  // all in flight at once
#pragma unroll
        for (int q = 0; q < kSumBatch; ++q) {
          sum[q].x += v[q].x, sum[q].y += v[q].y, sum[q].z += v[q].z, sum[q].w += v[q].w;
        }
      }
#pragma unroll
      for (int q = 0; q < kSumBatch; ++q) {
        const int i = (q0 + q) / 2, h = (q0 + q) % 2;
        acc[i][4 * h] = sum[q].x, acc[i][4 * h + 1] = sum[q].y;
        acc[i][4 * h + 2] = sum[q].z, acc[i][4 * h + 3] = sum[q].w;
      }
    }
    // [docs:end split_k_sum]
    if (tid == 0) slice_counts[tile] = 0;  // ready for the next launch (kernel boundaries order it)
  }
  int rows[L::TM], cols[2];
  layout.output_coordinates(m0, n0, rows, cols);
  detail::store_rows<kVec4>(p, acc, rows, cols);
}

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

template <class L>
void launch_tiles(const MatmulArgs& args, int splits, cudaStream_t stream) {
  static std::once_flag vec_flag, scalar_flag;
  const dim3 grid(detail::ceil_div(args.n, L::BN), detail::ceil_div(args.m, L::BM), splits);
  const SplitPlan plan{splits, std::max(1, detail::ceil_div(args.k, BK)), splits > 1 ? workspace() : nullptr};
  auto launch = [&](auto kernel, std::once_flag& flag) {
    std::call_once(flag, [&] {
      CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, L::kBytes));
    });
    kernel<<<grid, L::kThreads, L::kBytes, stream>>>(args, plan);
  };
  if (detail::float4_ok(args)) {
    launch(split_k_kernel<L, true>, vec_flag);
  } else {
    launch(split_k_kernel<L, false>, scalar_flag);
  }
  CUDA_CHECK_LAUNCH("split_k_kernel");
}

}  // namespace

// [docs:split_k_plan]
// The table: enough 128 x 128 tiles for every SM -> kernel 11; else 128 x 128 tiles if a split
// into at most 4 slices fills the SMs, else 64 x 64; then, with fewer blocks than the SMs hold,
// split K: about kWarpsPerSm warps per SM (one 128 x 128 block of 8 warps, or two 64 x 64 blocks
// of 4), each slice at least kMinStepsPerSlice k-steps.
SplitKPlan plan_split_k(int m, int n, int k, int sms) {
  const long long tiles128 = static_cast<long long>(detail::ceil_div(m, 128)) * detail::ceil_div(n, 128);
  if (tiles128 >= sms) return {SplitKPlan::kWideThread, 128, 1};
  const int tile = 4 * tiles128 >= sms ? 128 : 64;
  const long long tiles = static_cast<long long>(detail::ceil_div(m, tile)) * detail::ceil_div(n, tile);
  const int steps = std::max(1, detail::ceil_div(k, BK));
  const int block_warps = tile == 128 ? Tiles128::kWarps : Tiles64::kWarps;
  const long long blocks_wanted = static_cast<long long>(sms) * kWarpsPerSm / block_warps;
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
    case SplitKPlan::kTiles128: launch_tiles<Tiles128>(args, plan.splits, stream); break;
    case SplitKPlan::kTiles64: launch_tiles<Tiles64>(args, plan.splits, stream); break;
  }
}

}  // namespace matmul
