// Kernel 02, tiled_shared: the classic shared-memory matmul, done right for any size.
//
// Teaches: a block of 32 x 32 threads computes a 32 x 32 tile of C. It walks along K in steps
// of 32: all threads load one element of A's tile and one of B's into shared memory (sA, sB),
// wait at __syncthreads(), each accumulates its 32 products from shared memory, and wait again
// before the next step overwrites the tiles. Each element loaded from global memory is used 32
// times: 32x less global traffic than the naive kernel.
//
// The two traps of the version found in many tutorials, both avoided here:
//  1. `if (row < n && col < n) { ...loads, __syncthreads(), sums... }`: the threads outside C
//     skip the barrier while the others wait at it. A __syncthreads() that not all threads of
//     the block reach is undefined behaviour (a hang or garbage), and it happens as soon as n is
//     not a multiple of 32. Here every thread runs the whole loop; only the final store is guarded.
//  2. Loads that skip out-of-range elements (`if (col < n) sA[ty][tx] = ...;`) leave stale values
//     of the previous step in the tile, which the sums then use. Here an element outside A or B
//     is stored as 0, which adds nothing.
// The docs marker comments below bracket what docs/04_shared_matmul.md quotes; the test docs.quotes
// fails when the page and the code differ.
#include "course/check.hpp"
#include "matmul.hpp"

namespace matmul {

namespace {

// [docs:tiled_shared_kernel]
constexpr int kTile = 32;

__global__ void tiled_shared_kernel(MatmulArgs p) {
  __shared__ float sA[kTile][kTile];
  __shared__ float sB[kTile][kTile];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.y * kTile + ty;  // this thread's element of C (may lie outside C)
  const int col = blockIdx.x * kTile + tx;

  float sum = 0.0f;
  for (int t = 0; t < p.k; t += kTile) {
    // Every thread loads, zero outside the matrices (trap 2), and reaches both barriers (trap 1).
    sA[ty][tx] = (row < p.m && t + tx < p.k) ? p.a[detail::at(row, t + tx, p.k)] : 0.0f;
    sB[ty][tx] = (t + ty < p.k && col < p.n) ? p.b[detail::at(t + ty, col, p.n)] : 0.0f;
    __syncthreads();  // the tiles are complete
#pragma unroll
    for (int i = 0; i < kTile; ++i) sum += sA[ty][i] * sB[i][tx];  // sA: broadcast, sB: 32 banks
    __syncthreads();  // everyone is done with the tiles before the next step overwrites them
  }
  if (row < p.m && col < p.n) p.c[detail::at(row, col, p.n)] = sum;
}
// [docs:end tiled_shared_kernel]

}  // namespace

// [docs:tiled_shared_launcher]
void launch_tiled_shared(const MatmulArgs& args, cudaStream_t stream) {
  const dim3 block(kTile, kTile);
  const dim3 grid(detail::ceil_div(args.n, kTile), detail::ceil_div(args.m, kTile));
  tiled_shared_kernel<<<grid, block, 0, stream>>>(args);
  CUDA_CHECK_LAUNCH("tiled_shared_kernel");
}
// [docs:end tiled_shared_launcher]

}  // namespace matmul
