// Kernel 06, warp_tiled: each warp owns a compact 64 x 32 sub-tile of the block's 128 x 128.
//
// Teaches: kernel 05 gives thread tid the 8 x 8 block (tid / 16, tid % 16), so one warp spans
// two rows of threads across the whole 128-wide tile and its float4 reads of B touch 16 distinct
// addresses (2 wavefronts each). Here the 8 warps are arranged 2 x 4, each covering 64 x 32,
// and a warp's reads touch 8 distinct float4 of A and 4 of B: one wavefront each (WarpTileLayout
// and multiply_slice below; the tile loads are kernel 05's, tile_io.cuh).
// Fewer shared-memory transactions per FMA leave the FMA pipes busier. __launch_bounds__(256, 2)
// asks the compiler to fit two blocks per SM (at most 128 registers per thread).
#include "course/check.hpp"
#include "tile_io.cuh"

namespace matmul {

namespace {

// ---- The warp tile (new in kernel 06) --------------------------------------------------------
// Where a thread's 8 x 8 outputs lie in the block's BM x BN tile.
template <int BM, int BN, int WM, int WN>
struct WarpTileLayout {
  static_assert((WM / 8) * (WN / 8) == 32, "a warp's 32 threads, 8 x 8 outputs each, cover WM x WN");
  static_assert(BM % WM == 0 && BN % WN == 0, "warps tile the block tile");
  static constexpr int kThreads = (BM / WM) * (BN / WN) * 32;
  int m_first, n_first;  // rows m_first + {0..3} and m_first + WM/2 + {0..3}; columns likewise with WN/2

  __device__ __forceinline__ explicit WarpTileLayout(int tid) {
    const int warp = tid / 32, lane = tid % 32;
    const int wm = warp / (BN / WN), wn = warp % (BN / WN);
    const int ty = lane / (WN / 8), tx = lane % (WN / 8);
    m_first = wm * WM + ty * 4;
    n_first = wn * WN + tx * 4;
  }

  __device__ __forceinline__ void output_coordinates(int m0, int n0, int (&rows)[8], int (&cols)[2]) const {
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      rows[i] = m0 + m_first + i;
      rows[4 + i] = m0 + m_first + WM / 2 + i;
    }
    cols[0] = n0 + n_first;
    cols[1] = n0 + n_first + WN / 2;
  }
};

// acc += the BK-deep slice: sA[k * LDA + m] (A transposed), sB[k * LDB + n].
template <int BK, int LDA, int LDB, int WM, int WN>
__device__ __forceinline__ void multiply_slice(const float* sA, const float* sB, int m_first, int n_first,
                                               float (&acc)[8][8]) {
#pragma unroll
  for (int kk = 0; kk < BK; ++kk) {
    const float4 a0 = *reinterpret_cast<const float4*>(&sA[kk * LDA + m_first]);
    const float4 a1 = *reinterpret_cast<const float4*>(&sA[kk * LDA + m_first + WM / 2]);
    const float4 b0 = *reinterpret_cast<const float4*>(&sB[kk * LDB + n_first]);
    const float4 b1 = *reinterpret_cast<const float4*>(&sB[kk * LDB + n_first + WN / 2]);
    const float a[8] = {a0.x, a0.y, a0.z, a0.w, a1.x, a1.y, a1.z, a1.w};
    const float b[8] = {b0.x, b0.y, b0.z, b0.w, b1.x, b1.y, b1.z, b1.w};
#pragma unroll
    for (int i = 0; i < 8; ++i) {
#pragma unroll
      for (int j = 0; j < 8; ++j) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
    }
  }
}

// ---- The kernel ---------------------------------------------------------------------------------

template <int BM, int BN, int BK, int WM, int WN, bool kVec4>
__global__ void __launch_bounds__(WarpTileLayout<BM, BN, WM, WN>::kThreads, 2)
    warp_tiled_kernel(MatmulArgs p) {
  using Layout = WarpTileLayout<BM, BN, WM, WN>;
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
    multiply_slice<BK, LDA, LDB, WM, WN>(sA, sB, layout.m_first, layout.n_first, acc);
    __syncthreads();
  }
  int rows[8], cols[2];
  layout.output_coordinates(m0, n0, rows, cols);
  detail::store_8x8<kVec4>(p, acc, rows, cols);
}

template <int BM, int BN, int BK, int WM, int WN>
void launch_config(const MatmulArgs& args, cudaStream_t stream) {
  constexpr int kThreads = WarpTileLayout<BM, BN, WM, WN>::kThreads;
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
