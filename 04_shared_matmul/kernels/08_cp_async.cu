// Kernel 08, cp_async: a multi-stage cp.async pipeline and a block swizzle for L2 reuse.
//
// Teaches:
//  - cp.async (sm_80+) copies global memory into shared memory without passing through
//    registers and without making the thread wait: kernel 07's staging registers disappear,
//    and several tiles can be in flight. With kStages buffers, tiles t+1 .. t+kStages-1 are
//    being copied while tile t is multiplied. cp.async.commit_group closes a group of copies,
//    cp.async.wait_group N waits until at most N groups are still in flight, and a
//    __syncthreads() after it makes the other threads' copies visible. Edge tiles: a copy of
//    src_size 0 writes zeros (cp_async_tile.cuh).
//  - block swizzle: blocks are numbered so that consecutive ones cover a group of 8 block-rows
//    column by column: the blocks resident at one time then share rows of A and columns of B,
//    which stay in L2.
// The docs marker comments below bracket what docs/04_shared_matmul.md quotes (test docs.quotes).
#include <mutex>

#include "course/check.hpp"
#include "cp_async_tile.cuh"

namespace matmul {

namespace {

constexpr int kSwizzleGroup = 8;

// Block (blockIdx.x, blockIdx.y) -> the tile (bm, bn) it computes, in groups of kSwizzleGroup rows.
__device__ __forceinline__ void swizzled_tile(int& bm, int& bn) {
  const int grid_n = static_cast<int>(gridDim.x), grid_m = static_cast<int>(gridDim.y);
  const int block = static_cast<int>(blockIdx.y) * grid_n + static_cast<int>(blockIdx.x);
  const int per_group = kSwizzleGroup * grid_n;
  const int first_m = block / per_group * kSwizzleGroup;
  const int rows = min(grid_m - first_m, kSwizzleGroup);
  const int in_group = block % per_group;
  bm = first_m + in_group % rows;
  bn = in_group / rows;
}

template <int BM, int BN, int BK>
constexpr int stage_floats() {
  return BK * (BM + 4) + BK * BN;
}

template <int BM, int BN, int BK, int WM, int WN, int kStages, int kMinBlocks, bool kVec4>
__global__ void __launch_bounds__(detail::WarpTileLayout<BM, BN, WM, WN>::kThreads, kMinBlocks)
    cp_async_kernel(MatmulArgs p) {
  using Layout = detail::WarpTileLayout<BM, BN, WM, WN>;
  constexpr int kThreads = Layout::kThreads;
  constexpr int LDA = BM + 4, LDB = BN;
  constexpr int kStageA = BK * LDA;
  extern __shared__ __align__(16) float shared[];
  float* sA = shared;                     // kStages tiles of A, transposed
  float* sB = shared + kStages * kStageA;  // kStages tiles of B
  const int tid = threadIdx.x;
  int bm = 0, bn = 0;
  swizzled_tile(bm, bn);
  const int m0 = bm * BM, n0 = bn * BN;
  const Layout layout(tid);
  const int tiles = detail::ceil_div(p.k, BK);
  const detail::AsyncATile<BM, BK, kThreads, LDA> a_tile(p, m0, tid);
  const detail::AsyncBTile<BN, BK, kThreads, LDB, kVec4> b_tile(p, n0, tid);

  float acc[8][8] = {};
  detail::pipeline_k_steps<BK, kStages, LDA, LDB, WM, WN>(p, a_tile, b_tile, sA, sB, layout.m_first, layout.n_first,
                                                         0, tiles, acc);
  int rows[8], cols[2];
  layout.output_coordinates(m0, n0, rows, cols);
  detail::store_8x8<kVec4>(p, acc, rows, cols);
}

// Above 48 KiB of shared memory per block a kernel must opt in, once per kernel.
template <class Kernel>
void allow_shared_memory(Kernel kernel, int bytes, std::once_flag& flag) {
  std::call_once(flag, [&] {
    CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
  });
}

template <int BM, int BN, int BK, int WM, int WN, int kStages, int kMinBlocks>
void launch_config(const MatmulArgs& args, cudaStream_t stream) {
  constexpr int kThreads = detail::WarpTileLayout<BM, BN, WM, WN>::kThreads;
  constexpr int kBytes = kStages * stage_floats<BM, BN, BK>() * static_cast<int>(sizeof(float));
  static std::once_flag vec_flag, scalar_flag;
  const dim3 grid(detail::ceil_div(args.n, BN), detail::ceil_div(args.m, BM));
  if (detail::float4_ok(args)) {
    auto* kernel = cp_async_kernel<BM, BN, BK, WM, WN, kStages, kMinBlocks, true>;
    allow_shared_memory(kernel, kBytes, vec_flag);
    kernel<<<grid, kThreads, kBytes, stream>>>(args);
  } else {
    auto* kernel = cp_async_kernel<BM, BN, BK, WM, WN, kStages, kMinBlocks, false>;
    allow_shared_memory(kernel, kBytes, scalar_flag);
    kernel<<<grid, kThreads, kBytes, stream>>>(args);
  }
  CUDA_CHECK_LAUNCH("cp_async_kernel");
}

}  // namespace

void launch_cp_async(const MatmulArgs& args, cudaStream_t stream) {
  launch_config<128, 128, 32, 64, 32, 2, 2>(args, stream);  // the fastest in matmul_tune (docs, section 5)
}

namespace tuning {
std::span<const TileConfig> cp_async_configs() {
  static const TileConfig configs[] = {
      {"cp_async 128x128x8 s3", launch_config<128, 128, 8, 64, 32, 3, 2>},
      {"cp_async 128x128x8 s4", launch_config<128, 128, 8, 64, 32, 4, 2>},
      {"cp_async 128x128x16 s2", launch_config<128, 128, 16, 64, 32, 2, 2>},
      {"cp_async 128x128x16 s3", launch_config<128, 128, 16, 64, 32, 3, 2>},
      {"cp_async 128x128x16 s4", launch_config<128, 128, 16, 64, 32, 4, 2>},
      {"cp_async 128x256x8 s3 (512 thr)", launch_config<128, 256, 8, 64, 32, 3, 1>},
      {"cp_async 128x128x32 s2", launch_config<128, 128, 32, 64, 32, 2, 2>},
  };
  return configs;
}
}  // namespace tuning

}  // namespace matmul
