// The warp-tiled inner loop shared by kernels 06 to 08: one BK-deep slice of the block's tile.
//
// Teaches: a warp is the unit that issues shared-memory loads, so arrange its 32 threads to
// cover a compact WM x WN sub-tile (64 x 32: 8 x 4 threads, each 8 x 8 outputs as 2 x 2 groups
// of 4 x 4). Per k, a warp's float4 read of A then touches 8 distinct addresses (128 bytes,
// one wavefront) and of B 4 (64 bytes): every thread gets its 16 values in 4 loads and does 64 FMAs.
#pragma once

#include "kernel_common.cuh"

namespace matmul::detail {

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

}  // namespace matmul::detail
