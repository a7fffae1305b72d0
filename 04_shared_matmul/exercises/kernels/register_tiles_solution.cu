// Exercise "register_tiles" (make it fast), a solution: each thread computes an 8 x 8 block of C
// from registers (steps 3 and 4, register blocking, in one file).
//
// What changed from the starter: a block of 256 threads owns a 128 x 128 tile of C and walks
// along K in slices of kBK = 8. Per slice, the block copies a 128 x 8 slice of A (stored
// transposed, so a column of it is contiguous) and an 8 x 128 slice of B into shared memory.
// Then, for each of the 8 values of k, a thread reads 8 values of A's column and 8 of B's row
// into registers and does the 64 multiply-adds of their outer product: 16 shared loads for 64
// FMAs instead of 2 per FMA. Thread (tx, ty) of a 16 x 16 arrangement owns rows ty + 16 i and
// columns tx + 16 j (i, j < 8): the 16 threads of a half-warp read 16 neighbouring floats of
// B's row (no bank conflict) and write 16 neighbouring floats of C. A's shared slice has 4
// floats of padding per row, so the transposed stores of a warp land in 32 different banks.
// Everything outside the matrices is loaded as zero and never stored: any shape works.
#include <cuda_runtime.h>

#include <cstddef>

#include "course/check.hpp"
#include "matmul.hpp"

namespace matmul {

namespace {

constexpr int kBM = 128, kBN = 128, kBK = 8;  // the block's tile of C, and the slice of K
constexpr int kThreads = 256;                  // 16 x 16 threads, 8 x 8 elements of C each
constexpr int kSide = 16;
constexpr int kPer = 8;
constexpr int kPadA = 4;

__device__ __forceinline__ std::size_t index_of(int row, int col, int cols) {
  return static_cast<std::size_t>(row) * static_cast<std::size_t>(cols) + static_cast<std::size_t>(col);
}

__global__ void __launch_bounds__(kThreads) register_tiles_solution(MatmulArgs p) {
  __shared__ float sA[kBK][kBM + kPadA];  // sA[k][row]: A's slice, transposed
  __shared__ float sB[kBK][kBN];          // sB[k][col]
  const int t = threadIdx.x;
  const int tx = t % kSide, ty = t / kSide;
  const int row0 = blockIdx.y * kBM, col0 = blockIdx.x * kBN;

  float acc[kPer][kPer] = {};
  for (int k0 = 0; k0 < p.k; k0 += kBK) {
    // A's 128 x 8 slice: 1,024 floats, 4 per thread; a warp reads 4 rows of 8 neighbours.
#pragma unroll
    for (int q = 0; q < kBM * kBK / kThreads; ++q) {
      const int e = t + q * kThreads;
      const int r = e / kBK, c = e % kBK;
      const int row = row0 + r, k = k0 + c;
      sA[c][r] = (row < p.m && k < p.k) ? p.a[index_of(row, k, p.k)] : 0.0f;
    }
    // B's 8 x 128 slice: 4 floats per thread; a warp reads 32 neighbours of one row.
#pragma unroll
    for (int q = 0; q < kBK * kBN / kThreads; ++q) {
      const int e = t + q * kThreads;
      const int r = e / kBN, c = e % kBN;
      const int k = k0 + r, col = col0 + c;
      sB[r][c] = (k < p.k && col < p.n) ? p.b[index_of(k, col, p.n)] : 0.0f;
    }
    __syncthreads();  // the slices are complete
#pragma unroll
    for (int k = 0; k < kBK; ++k) {
      float a[kPer], b[kPer];
#pragma unroll
      for (int i = 0; i < kPer; ++i) a[i] = sA[k][ty + kSide * i];
#pragma unroll
      for (int j = 0; j < kPer; ++j) b[j] = sB[k][tx + kSide * j];
#pragma unroll
      for (int i = 0; i < kPer; ++i) {
#pragma unroll
        for (int j = 0; j < kPer; ++j) acc[i][j] += a[i] * b[j];
      }
    }
    __syncthreads();  // everyone is done with the slices before the next ones overwrite them
  }
#pragma unroll
  for (int i = 0; i < kPer; ++i) {
    const int row = row0 + ty + kSide * i;
    if (row >= p.m) continue;
#pragma unroll
    for (int j = 0; j < kPer; ++j) {
      const int col = col0 + tx + kSide * j;
      if (col < p.n) p.c[index_of(row, col, p.n)] = acc[i][j];
    }
  }
}

}  // namespace

void launch_exercise_register_tiles_solution(const MatmulArgs& args, cudaStream_t stream) {
  const dim3 grid((args.n + kBN - 1) / kBN, (args.m + kBM - 1) / kBM);
  register_tiles_solution<<<grid, kThreads, 0, stream>>>(args);
  CUDA_CHECK_LAUNCH("register_tiles_solution");
}

}  // namespace matmul
