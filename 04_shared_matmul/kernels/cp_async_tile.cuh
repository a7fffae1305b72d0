// Kernel 08's block tile, which kernels 09 to 12 build on: the pieces, in the order a block uses them.
//
//  1. cp.async (sm_80 and newer): copies global memory straight into shared memory, without
//     staging registers and without making the thread wait (cp_async_4, cp_async_16, commit, wait);
//  2. AsyncATile, AsyncBTile: one BK-deep tile of A (transposed into sA[k][m]) and of B (sB[k][n])
//     copied with it, zeros copied in at the edges, so the inner loop has no bounds checks;
//  3. WarpTileLayout, multiply_slice: the warp tile of kernel 06 (a warp covers a compact 64 x 32
//     sub-tile, each thread 8 x 8 outputs; or 32 x 32 of 4 x 8 outputs) and the FMAs of one
//     BK-deep slice;
//  4. pipeline_k_steps: the kStages-deep pipeline over a range of k-steps of one block tile
//     (kernel 08 runs it over the whole tile, kernel 10 over its block's share, kernel 12 over a slice);
//  5. store_8x8, store_rows (from tile_io.cuh): a thread's outputs into C, float4 stores where legal.
// Each piece is a small __forceinline__ function or struct: the kernels that use them compile to
// the code they would have written out themselves. Kernels 05 to 07 move their tiles through
// registers instead (tile_io.cuh). The docs marker comments below bracket what
// docs/04_shared_matmul.md quotes (test docs.quotes).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

#include "matmul.hpp"
#include "tile_io.cuh"  // store_8x8, store_rows

namespace matmul::detail {

// ---- cp.async (sm_80 and newer) ----------------------------------------------------------------
// cp.async copies global memory straight into shared memory: no registers hold the data on the
// way, and the thread does not wait for it; cp.async.wait_group waits for groups of copies.
// With src_size = 0 nothing is read and the destination is filled with zeros: the edge tiles'
// padding comes for free. Older GPUs (sm_75) get an ordinary load and store, same results.
// [docs:cp_async_4]
__device__ __forceinline__ void cp_async_4(float* shared, const float* global, bool valid) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  const unsigned address = static_cast<unsigned>(__cvta_generic_to_shared(shared));
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(address), "l"(global), "r"(valid ? 4 : 0)
               : "memory");
#else
  *shared = valid ? *global : 0.0f;
#endif
}
// [docs:end cp_async_4]

__device__ __forceinline__ void cp_async_16(float* shared, const float* global, bool valid) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  const unsigned address = static_cast<unsigned>(__cvta_generic_to_shared(shared));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(address), "l"(global),
               "r"(valid ? 16 : 0)
               : "memory");
#else
  *reinterpret_cast<float4*>(shared) = valid ? *reinterpret_cast<const float4*>(global) : make_float4(0, 0, 0, 0);
#endif
}

__device__ __forceinline__ void cp_async_commit() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.commit_group;\n" ::: "memory");
#endif
}

// Waits until at most `kPending` committed groups are still in flight.
template <int kPending>
__device__ __forceinline__ void cp_async_wait() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.wait_group %0;\n" ::"n"(kPending) : "memory");
#endif
}


// ---- The tiles of A and B, copied with cp.async ------------------------------------------------
// Kernel 07's loaders without staging registers, zeros copied in for the edges. Each thread's source addresses are worked out once (src, step) and advanced by k0 per tile,
// so the loop holds few 64-bit pointers in registers.
//
// A goes element by element (a transposing copy cannot use 16-byte pieces). Each warp copies
// 8 consecutive k of 4 consecutive rows: 4 full 32-byte sectors from global memory, and with
// LD = BM + 4 the 32 shared-memory addresses k * LD + m fall into 32 different banks.
template <int BM, int BK, int kThreads, int LD>
struct AsyncATile {
  static constexpr int kRowStep = kThreads / 8;  // rows between a thread's elements
  static constexpr int kRows = BM / kRowStep, kCols = BK / 8;
  static_assert(BK % 8 == 0 && kThreads % 8 == 0 && BM % kRowStep == 0, "tile shape");
  const float* src;       // A(m0 + row0, col0)
  std::size_t step;       // kRowStep rows of A
  int col0, dst0;         // this thread's first column of the tile; its first element in the stage
  unsigned rows_inside;   // bit j: row row0 + j * kRowStep lies inside A

  __device__ __forceinline__ AsyncATile(const MatmulArgs& p, int m0, int tid) {
    const int row0 = tid / 8;
    col0 = tid % 8;
    src = p.a + at(m0 + row0, col0, p.k);
    step = static_cast<std::size_t>(kRowStep) * static_cast<std::size_t>(p.k);
    dst0 = col0 * LD + row0;
    rows_inside = 0;
#pragma unroll
    for (int j = 0; j < kRows; ++j) rows_inside |= (m0 + row0 + j * kRowStep < p.m ? 1u : 0u) << j;
  }

  __device__ __forceinline__ void copy(float* stage, const MatmulArgs& p, int k0) const {
#pragma unroll
    for (int h = 0; h < kCols; ++h) {
      const bool k_inside = k0 + 8 * h + col0 < p.k;
#pragma unroll
      for (int j = 0; j < kRows; ++j) {
        const bool valid = k_inside && (rows_inside >> j & 1u);
        cp_async_4(stage + dst0 + 8 * h * LD + j * kRowStep, valid ? src + j * step + k0 + 8 * h : p.a, valid);
      }
    }
  }
};

// B's tile keeps B's layout: 16-byte copies where rows are aligned (kVec4), else 4-byte ones.
template <int BN, int BK, int kThreads, int LD, bool kVec4>
struct AsyncBTile {
  static constexpr int kWidth = kVec4 ? 4 : 1;                     // floats per copy
  static constexpr int kRowStep = kThreads / (BN / kWidth);        // rows between a thread's copies
  static constexpr int kRows = BK / kRowStep;
  static_assert(kThreads % (BN / kWidth) == 0 && BK % kRowStep == 0, "tile shape");
  const float* src;       // B(row0, n0 + col)
  std::size_t step;       // kRowStep rows of B
  int row0, dst0;
  bool col_inside;        // kVec4: the whole float4 (N % 4 == 0)

  __device__ __forceinline__ AsyncBTile(const MatmulArgs& p, int n0, int tid) {
    row0 = tid / (BN / kWidth);
    const int col = tid % (BN / kWidth) * kWidth;
    src = p.b + at(row0, n0 + col, p.n);
    step = static_cast<std::size_t>(kRowStep) * static_cast<std::size_t>(p.n);
    dst0 = row0 * LD + col;
    col_inside = n0 + col < p.n;
  }

  __device__ __forceinline__ void copy(float* stage, const MatmulArgs& p, int k0) const {
    const float* tile = src + static_cast<std::size_t>(k0) * static_cast<std::size_t>(p.n);
#pragma unroll
    for (int j = 0; j < kRows; ++j) {
      const bool valid = col_inside && k0 + row0 + j * kRowStep < p.k;
      const float* from = valid ? tile + j * step : p.b;
      if constexpr (kVec4) {
        cp_async_16(stage + dst0 + j * kRowStep * LD, from, valid);
      } else {
        cp_async_4(stage + dst0 + j * kRowStep * LD, from, valid);
      }
    }
  }
};

// ---- The warp tile (kernel 06) ----------------------------------------------------------------
// A warp covers a compact WM x WN sub-tile (64 x 32: 8 x 4 threads, each 8 x 8 outputs as 2 x 2
// groups of 4 x 4): per k its float4 reads touch 8 addresses of A and 4 of B, one wavefront each.
// Where a thread's TM x 8 outputs lie in the block's BM x BN tile: TM = 8 (kernel 06's thread
// tile, two groups of 4 rows) or TM = 4 (one group of 4 rows; kernel 12's 64 x 64 block, warps
// of 32 x 32).
template <int BM, int BN, int WM, int WN, int TM = 8>
struct WarpTileLayout {
  static_assert(TM == 4 || TM == 8, "a thread's rows: one or two groups of 4");
  static_assert((WM / TM) * (WN / 8) == 32, "a warp's 32 threads, TM x 8 outputs each, cover WM x WN");
  static_assert(BM % WM == 0 && BN % WN == 0, "warps tile the block tile");
  static constexpr int kThreads = (BM / WM) * (BN / WN) * 32;
  int m_first, n_first;  // rows m_first + {0..3} (and m_first + WM/2 + {0..3} when TM = 8); columns likewise with WN/2

  __device__ __forceinline__ explicit WarpTileLayout(int tid) {
    const int warp = tid / 32, lane = tid % 32;
    const int wm = warp / (BN / WN), wn = warp % (BN / WN);
    const int ty = lane / (WN / 8), tx = lane % (WN / 8);
    m_first = wm * WM + ty * 4;
    n_first = wn * WN + tx * 4;
  }

  __device__ __forceinline__ void output_coordinates(int m0, int n0, int (&rows)[TM], int (&cols)[2]) const {
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      rows[i] = m0 + m_first + i;
      if constexpr (TM == 8) rows[4 + i] = m0 + m_first + WM / 2 + i;
    }
    cols[0] = n0 + n_first;
    cols[1] = n0 + n_first + WN / 2;
  }
};

// acc += the BK-deep slice: sA[k * LDA + m] (A transposed), sB[k * LDB + n]; the thread's TM rows
// as WarpTileLayout places them.
template <int BK, int LDA, int LDB, int WM, int WN, int TM>
__device__ __forceinline__ void multiply_slice(const float* sA, const float* sB, int m_first, int n_first,
                                               float (&acc)[TM][8]) {
#pragma unroll
  for (int kk = 0; kk < BK; ++kk) {
    const float4 a0 = *reinterpret_cast<const float4*>(&sA[kk * LDA + m_first]);
    const float4 a1 = TM == 8 ? *reinterpret_cast<const float4*>(&sA[kk * LDA + m_first + WM / 2]) : a0;
    const float4 b0 = *reinterpret_cast<const float4*>(&sB[kk * LDB + n_first]);
    const float4 b1 = *reinterpret_cast<const float4*>(&sB[kk * LDB + n_first + WN / 2]);
    const float a[8] = {a0.x, a0.y, a0.z, a0.w, a1.x, a1.y, a1.z, a1.w};  // TM = 4: the first 4
    const float b[8] = {b0.x, b0.y, b0.z, b0.w, b1.x, b1.y, b1.z, b1.w};
#pragma unroll
    for (int i = 0; i < TM; ++i) {
#pragma unroll
      for (int j = 0; j < 8; ++j) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
    }
  }
}

// ---- The pipeline (kernel 08) ------------------------------------------------------------------
// With kStages shared-memory buffers, the copies of tiles t+1 .. t+kStages-1 are in
// flight while tile t is multiplied. cp.async.commit_group closes a group of copies,
// cp.async.wait_group N waits until at most N groups are still in flight, and a __syncthreads()
// after it makes the other threads' copies visible. k-steps k_first .. k_last - 1 of one block tile.
template <int BK, int kStages, int LDA, int LDB, int WM, int WN, class ATile, class BTile, int TM>
__device__ __forceinline__ void pipeline_k_steps(const MatmulArgs& p, const ATile& a_tile, const BTile& b_tile,
                                                 float* sA, float* sB, int m_first, int n_first, int k_first,
                                                 int k_last, float (&acc)[TM][8]) {
  constexpr int kStageA = BK * LDA, kStageB = BK * LDB;
  // [docs:cp_async_pipeline]
  // Prologue: the first kStages - 1 tiles in flight (a group is committed even when empty, so
  // that "group t" always means "tile t" in the wait below).
#pragma unroll
  for (int s = 0; s < kStages - 1; ++s) {
    if (k_first + s < k_last) {
      a_tile.copy(sA + s * kStageA, p, (k_first + s) * BK);
      b_tile.copy(sB + s * kStageB, p, (k_first + s) * BK);
    }
    cp_async_commit();
  }

  int read_stage = 0, write_stage = kStages - 1;  // tile t is in stage (t - k_first) % kStages
  for (int t = k_first; t < k_last; ++t) {
    cp_async_wait<kStages - 2>();  // tile t has landed (this thread's copies)
    __syncthreads();  // everyone's copies of tile t are visible; everyone is done with tile t - 1
    const int next = t + kStages - 1;  // goes into the stage tile t - 1 used
    if (next < k_last) {
      a_tile.copy(sA + write_stage * kStageA, p, next * BK);
      b_tile.copy(sB + write_stage * kStageB, p, next * BK);
    }
    cp_async_commit();
    multiply_slice<BK, LDA, LDB, WM, WN>(sA + read_stage * kStageA, sB + read_stage * kStageB, m_first, n_first,
                                         acc);
    read_stage = read_stage + 1 == kStages ? 0 : read_stage + 1;
    write_stage = write_stage + 1 == kStages ? 0 : write_stage + 1;
  }
  // [docs:end cp_async_pipeline]
  cp_async_wait<0>();  // no copy of this range is still landing when the caller reuses the buffers
}

}  // namespace matmul::detail
