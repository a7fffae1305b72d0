// The cp.async pipeline of kernels 08 and 10: k-steps k_first .. k_last - 1 of one block tile.
//
// Teaches: with kStages shared-memory buffers, the copies of tiles t+1 .. t+kStages-1 are in
// flight while tile t is multiplied. cp.async.commit_group closes a group of copies,
// cp.async.wait_group N waits until at most N groups are still in flight, and a __syncthreads()
// after it makes the other threads' copies visible. Kernel 08 runs it over a whole tile
// (k-steps 0 .. K / BK); kernel 10 over the part of a tile its block's share holds.
#pragma once

#include "kernel_common.cuh"
#include "warp_tile.cuh"

namespace matmul::detail {

template <int BK, int kStages, int LDA, int LDB, int WM, int WN, class ATile, class BTile>
__device__ __forceinline__ void pipeline_k_steps(const MatmulArgs& p, const ATile& a_tile, const BTile& b_tile,
                                                 float* sA, float* sB, int m_first, int n_first, int k_first,
                                                 int k_last, float (&acc)[8][8]) {
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
