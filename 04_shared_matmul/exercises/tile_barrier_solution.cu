// Lesson 04, find-the-bug exercise tile_barrier, solution: the second barrier back in place.
//
// A warp that finishes its 32 products starts the next step and stores the next tiles into sA
// and sB while slower warps of the block are still reading the current ones: a write after a
// read, with nothing between them. __syncthreads() after the products makes every warp wait
// until the whole block is done with the tiles. Every thread reaches it (no thread leaves the
// loop early), as every barrier must be.
#include "course/check.hpp"
#include "exercises/exercises.hpp"
#include "matmul.hpp"

namespace matmul::exercises {

namespace {

constexpr int kTile = 32;

__global__ void tile_barrier_fixed_kernel(MatmulArgs p) {
  __shared__ float sA[kTile][kTile];
  __shared__ float sB[kTile][kTile];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.y * kTile + ty;
  const int col = blockIdx.x * kTile + tx;

  float sum = 0.0f;
  for (int t = 0; t < p.k; t += kTile) {
    sA[ty][tx] = (row < p.m && t + tx < p.k) ? p.a[detail::at(row, t + tx, p.k)] : 0.0f;
    sB[ty][tx] = (t + ty < p.k && col < p.n) ? p.b[detail::at(t + ty, col, p.n)] : 0.0f;
    __syncthreads();  // the tiles are complete
#pragma unroll
    for (int i = 0; i < kTile; ++i) sum += sA[ty][i] * sB[i][tx];
    __syncthreads();  // the fix: everyone is done with the tiles before the next step overwrites them
  }
  if (row < p.m && col < p.n) p.c[detail::at(row, col, p.n)] = sum;
}

}  // namespace

void launch_tile_barrier_solution(const MatmulArgs& args, cudaStream_t stream) {
  const dim3 block(kTile, kTile);
  const dim3 grid(detail::ceil_div(args.n, kTile), detail::ceil_div(args.m, kTile));
  tile_barrier_fixed_kernel<<<grid, block, 0, stream>>>(args);
  CUDA_CHECK_LAUNCH("tile_barrier_fixed_kernel (solution)");
}

}  // namespace matmul::exercises
