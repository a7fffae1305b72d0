// Kernel 07, double_buffered: the next tile travels from global memory while this one is used.
//
// Teaches: in kernel 06 each step loads a tile, waits (__syncthreads), computes, waits again:
// while the tile is in flight (hundreds of cycles), the warps of the block have nothing to do.
// Here shared memory holds two tiles. During the math on tile t, each thread's loads of tile
// t + 1 are already issued into registers (a_tile, b_tile); after the math they are stored into
// the other buffer, and one __syncthreads() per step is enough: the buffer being written was
// last read one step earlier, before the previous barrier.
#include "course/check.hpp"
#include "tile_io.cuh"
#include "tuning.hpp"
#include "warp_tile.cuh"

namespace matmul {

namespace {

template <int BM, int BN, int BK, int WM, int WN, bool kVec4>
__global__ void __launch_bounds__(detail::WarpTileLayout<BM, BN, WM, WN>::kThreads, 2)
    double_buffered_kernel(MatmulArgs p) {
  using Layout = detail::WarpTileLayout<BM, BN, WM, WN>;
  constexpr int kThreads = Layout::kThreads;
  constexpr int LDA = BM + 4, LDB = BN;
  __shared__ __align__(16) float sA[2][BK * LDA];
  __shared__ __align__(16) float sB[2][BK * LDB];
  const int tid = threadIdx.x;
  const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
  const Layout layout(tid);

  detail::ATileLoader<BM, BK, kThreads, kVec4> a_tile;
  detail::BTileLoader<BN, BK, kThreads, kVec4> b_tile;
  a_tile.load(p, m0, 0, tid);
  b_tile.load(p, 0, n0, tid);
  a_tile.template store<LDA>(sA[0], tid);
  b_tile.template store<LDB>(sB[0], tid);
  __syncthreads();

  float acc[8][8] = {};
  const int tiles = detail::ceil_div(p.k, BK);
  for (int t = 0; t < tiles; ++t) {
    const int current = t & 1;
    const bool more = t + 1 < tiles;
    if (more) {  // issued now, used after the math: the loads overlap the FMAs
      a_tile.load(p, m0, (t + 1) * BK, tid);
      b_tile.load(p, (t + 1) * BK, n0, tid);
    }
    detail::multiply_slice<BK, LDA, LDB, WM, WN>(sA[current], sB[current], layout.m_first, layout.n_first, acc);
    if (more) {
      a_tile.template store<LDA>(sA[current ^ 1], tid);
      b_tile.template store<LDB>(sB[current ^ 1], tid);
    }
    __syncthreads();  // the other buffer is complete, and everyone is done reading this one
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
    double_buffered_kernel<BM, BN, BK, WM, WN, true><<<grid, kThreads, 0, stream>>>(args);
  } else {
    double_buffered_kernel<BM, BN, BK, WM, WN, false><<<grid, kThreads, 0, stream>>>(args);
  }
  CUDA_CHECK_LAUNCH("double_buffered_kernel");
}

}  // namespace

void launch_double_buffered(const MatmulArgs& args, cudaStream_t stream) {
  launch_config<128, 128, 8, 64, 32>(args, stream);
}

namespace tuning {
std::span<const TileConfig> double_buffered_configs() {
  static const TileConfig configs[] = {
      {"double_buffered 128x128x8 w64x32", launch_config<128, 128, 8, 64, 32>},
      {"double_buffered 128x128x16 w64x32", launch_config<128, 128, 16, 64, 32>},
  };
  return configs;
}
}  // namespace tuning

}  // namespace matmul
