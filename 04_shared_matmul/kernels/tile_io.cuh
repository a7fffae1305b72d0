// Moving tiles of A and B into shared memory through registers, and a thread's 8 x 8 (or 4 x 8)
// outputs out to C: shared by kernels 05 to 07 (kernels 08 to 12 copy with cp.async,
// cp_async_tile.cuh, and write their outputs with this file's store_8x8 and store_rows).
//
// Teaches:
//  - coalescing: the threads of a warp read consecutive addresses of one row, so a warp's
//    request is served by a few full 32-byte sectors;
//  - float4: one 16-byte load instead of four 4-byte ones (a quarter of the load instructions),
//    legal only when every row is 16-byte aligned (kVec4: float4_ok in matmul.hpp);
//  - A is stored transposed, sA[k][m]: the inner loop then reads 4 consecutive m of one k as a
//    single float4, just as it reads B's sB[k][n]. The row length LD is padded (BM + 4) so the
//    transposing stores of a warp fall into different banks;
//  - zero padding at the edges: an element outside A or B is stored as 0, so a partial tile
//    adds nothing to the sums and the inner loop needs no bounds checks at all.
// The docs marker comments below bracket what docs/04_shared_matmul.md quotes (test docs.quotes).
#pragma once

#include <cuda_runtime.h>

#include "matmul.hpp"

namespace matmul::detail {

// The BM x BK tile of A at (m0, k0), staged in registers: load() from global memory, then
// store() into shared memory transposed. Kernel 07 separates the two to overlap the load with math.
template <int BM, int BK, int kThreads, bool kVec4>
struct ATileLoader {
  static constexpr int kPerThread = BM * BK / kThreads;  // floats per thread
  static_assert(BM * BK % (4 * kThreads) == 0, "each thread moves whole float4s");
  float v[kPerThread];

  __device__ __forceinline__ void load(const MatmulArgs& p, int m0, int k0, int tid) {
    if constexpr (kVec4) {
#pragma unroll
      // [docs:a_tile_float4_load]
      for (int i = 0; i < kPerThread / 4; ++i) {
        const int chunk = tid + i * kThreads;  // consecutive threads: consecutive float4 of a row
        const int row = chunk / (BK / 4), col = chunk % (BK / 4) * 4;
        const int m = m0 + row, k = k0 + col;
        // K % 4 == 0 here, so a float4 is either entirely inside A or entirely outside.
        const float4 x = (m < p.m && k < p.k) ? *reinterpret_cast<const float4*>(p.a + at(m, k, p.k))
                                              : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        v[4 * i + 0] = x.x;
        v[4 * i + 1] = x.y;
        v[4 * i + 2] = x.z;
        v[4 * i + 3] = x.w;
      }
      // [docs:end a_tile_float4_load]
    } else {
#pragma unroll
      for (int i = 0; i < kPerThread; ++i) {
        const int e = tid + i * kThreads;
        const int m = m0 + e / BK, k = k0 + e % BK;
        v[i] = (m < p.m && k < p.k) ? p.a[at(m, k, p.k)] : 0.0f;
      }
    }
  }

  template <int LD>
  __device__ __forceinline__ void store(float* s, int tid) const {  // s[k * LD + m]
    if constexpr (kVec4) {
#pragma unroll
      for (int i = 0; i < kPerThread / 4; ++i) {
        const int chunk = tid + i * kThreads;
        const int row = chunk / (BK / 4), col = chunk % (BK / 4) * 4;
#pragma unroll
        for (int j = 0; j < 4; ++j) s[(col + j) * LD + row] = v[4 * i + j];
      }
    } else {
#pragma unroll
      for (int i = 0; i < kPerThread; ++i) {
        const int e = tid + i * kThreads;
        s[(e % BK) * LD + e / BK] = v[i];
      }
    }
  }
};

// The BK x BN tile of B at (k0, n0), staged in registers, stored as sB[k][n] (same layout as B).
template <int BN, int BK, int kThreads, bool kVec4>
struct BTileLoader {
  static constexpr int kPerThread = BN * BK / kThreads;
  static_assert(BN * BK % (4 * kThreads) == 0, "each thread moves whole float4s");
  float v[kPerThread];

  __device__ __forceinline__ void load(const MatmulArgs& p, int k0, int n0, int tid) {
    if constexpr (kVec4) {
#pragma unroll
      for (int i = 0; i < kPerThread / 4; ++i) {
        const int chunk = tid + i * kThreads;
        const int k = k0 + chunk / (BN / 4), n = n0 + chunk % (BN / 4) * 4;
        const float4 x = (k < p.k && n < p.n) ? *reinterpret_cast<const float4*>(p.b + at(k, n, p.n))
                                              : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        v[4 * i + 0] = x.x;
        v[4 * i + 1] = x.y;
        v[4 * i + 2] = x.z;
        v[4 * i + 3] = x.w;
      }
    } else {
#pragma unroll
      for (int i = 0; i < kPerThread; ++i) {
        const int e = tid + i * kThreads;
        const int k = k0 + e / BN, n = n0 + e % BN;
        v[i] = (k < p.k && n < p.n) ? p.b[at(k, n, p.n)] : 0.0f;
      }
    }
  }

  template <int LD>
  __device__ __forceinline__ void store(float* s, int tid) const {  // s[k * LD + n]
    if constexpr (kVec4) {
#pragma unroll
      for (int i = 0; i < kPerThread / 4; ++i) {
        const int chunk = tid + i * kThreads;
        const int k = chunk / (BN / 4), n = chunk % (BN / 4) * 4;
        *reinterpret_cast<float4*>(&s[k * LD + n]) = make_float4(v[4 * i], v[4 * i + 1], v[4 * i + 2], v[4 * i + 3]);
      }
    } else {
#pragma unroll
      for (int i = 0; i < kPerThread; ++i) {
        const int e = tid + i * kThreads;
        s[(e / BN) * LD + e % BN] = v[i];
      }
    }
  }
};

// Writes a thread's TM x 8 results: rows[i] and cols[j] are the C coordinates of acc[i][j], in
// two groups of 4 consecutive columns (cols[0..3], cols[4..7]); float4 stores where legal.
template <bool kVec4, int TM>
__device__ __forceinline__ void store_rows(const MatmulArgs& p, const float (&acc)[TM][8], const int (&rows)[TM],
                                           const int (&col_groups)[2]) {
#pragma unroll
  for (int i = 0; i < TM; ++i) {
    if (rows[i] >= p.m) continue;
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int col = col_groups[h];
      if constexpr (kVec4) {
        // N % 4 == 0: the 4 columns are all inside C or all outside.
        if (col < p.n) {
          *reinterpret_cast<float4*>(p.c + at(rows[i], col, p.n)) =
              make_float4(acc[i][4 * h], acc[i][4 * h + 1], acc[i][4 * h + 2], acc[i][4 * h + 3]);
        }
      } else {
#pragma unroll
        for (int j = 0; j < 4; ++j) {
          if (col + j < p.n) p.c[at(rows[i], col + j, p.n)] = acc[i][4 * h + j];
        }
      }
    }
  }
}

// The 8 x 8 case, kernels 05 to 11's thread tile.
template <bool kVec4>
__device__ __forceinline__ void store_8x8(const MatmulArgs& p, const float (&acc)[8][8], const int (&rows)[8],
                                          const int (&col_groups)[2]) {
  store_rows<kVec4>(p, acc, rows, col_groups);
}

}  // namespace matmul::detail
