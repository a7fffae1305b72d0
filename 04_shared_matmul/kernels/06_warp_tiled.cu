// Kernel 06, warp_tiled: each warp owns a compact 64 x 32 sub-tile of the block's 128 x 128.
//
// Teaches: kernel 05 gives thread tid the 8 x 8 block (tid / 16, tid % 16), so one warp spans
// two rows of threads across the whole 128-wide tile and its float4 reads of B touch 16 distinct
// addresses (2 wavefronts each). Here the 8 warps are arranged 2 x 4, each covering 64 x 32,
// and a warp's reads touch 8 distinct float4 of A and 4 of B: one wavefront each (warp_tile.cuh).
// Fewer shared-memory transactions per FMA leave the FMA pipes busier. __launch_bounds__(256, 2)
// asks the compiler to fit two blocks per SM (at most 128 registers per thread).
#include "course/check.hpp"
#include "tile_io.cuh"
#include "tuning.hpp"
#include "warp_tile.cuh"

namespace matmul {

namespace {

template <int BM, int BN, int BK, int WM, int WN, bool kVec4>
__global__ void __launch_bounds__(detail::WarpTileLayout<BM, BN, WM, WN>::kThreads, 2)
    warp_tiled_kernel(MatmulArgs p) {
  using Layout = detail::WarpTileLayout<BM, BN, WM, WN>;
  constexpr int kThreads = Layout::kThreads;
  constexpr int LDA = BM + 4, LDB = BN;
  __shared__ __align__(16) float sA[BK * LDA];
  __shared__ __align__(16) float sB[BK * LDB];
  const int tid = threadIdx.x;
  const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
  const Layout layout(tid);

  detail::ATileLoader<BM, BK, kThreads, kVec4> a_tile;
  detail::BTileLoader<BN, BK, kThreads, kVec4> b_tile;
  float acc[8][8] = {};
  for (int k0 = 0; k0 < p.k; k0 += BK) {
    a_tile.load(p, m0, k0, tid);
    b_tile.load(p, k0, n0, tid);
    a_tile.template store<LDA>(sA, tid);
    b_tile.template store<LDB>(sB, tid);
    __syncthreads();
    detail::multiply_slice<BK, LDA, LDB, WM, WN>(sA, sB, layout.m_first, layout.n_first, acc);
    __syncthreads();
  }
  int rows[8], cols[2];
  layout.output_coordinates(m0, n0, rows, cols);
  detail::store_8x8<kVec4>(p, acc, rows, cols);
}

template <int BM, int BN, int BK, int WM, int WN>
void launch_config(const MatmulArgs& args, cudaStream_t stream) {
  constexpr int kThreads = detail::WarpTileLayout<BM, BN, WM, WN>::kThreads;
  const dim3 grid(detail::ceil_div(args.n, BN), detail::ceil_div(args.m, BM));
  if (detail::float4_ok(args)) {
    warp_tiled_kernel<BM, BN, BK, WM, WN, true><<<grid, kThreads, 0, stream>>>(args);
  } else {
    warp_tiled_kernel<BM, BN, BK, WM, WN, false><<<grid, kThreads, 0, stream>>>(args);
  }
  CUDA_CHECK_LAUNCH("warp_tiled_kernel");
}

}  // namespace

void launch_warp_tiled(const MatmulArgs& args, cudaStream_t stream) { launch_config<128, 128, 8, 64, 32>(args, stream); }

namespace tuning {
std::span<const TileConfig> warp_tiled_configs() {
  static const TileConfig configs[] = {
      {"warp_tiled 128x128x8 w64x32", launch_config<128, 128, 8, 64, 32>},
      {"warp_tiled 128x128x16 w64x32", launch_config<128, 128, 16, 64, 32>},
      {"warp_tiled 128x128x8 w32x64", launch_config<128, 128, 8, 32, 64>},
  };
  return configs;
}
}  // namespace tuning

}  // namespace matmul
