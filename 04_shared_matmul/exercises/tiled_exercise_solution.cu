// Exercise 1, solution: the classic tiled kernel with the tile size as a template parameter.
//
// The task (docs/04_shared_matmul.md, exercise 1): turn kernel 02's fixed 32 into kTile, launch
// it with 16 x 16 tiles (256 threads per block), keep it correct for every size, and measure.
// The tests run this solution at the same awkward shapes as the registry's kernels.
#include "course/check.hpp"
#include "exercises/exercises.hpp"
#include "matmul.hpp"

namespace matmul::exercises {

namespace {

template <int kTile>
__global__ void tiled_kernel(MatmulArgs p) {
  __shared__ float sA[kTile][kTile];
  __shared__ float sB[kTile][kTile];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.y * kTile + ty;
  const int col = blockIdx.x * kTile + tx;
  float sum = 0.0f;
  for (int t = 0; t < p.k; t += kTile) {
    sA[ty][tx] = (row < p.m && t + tx < p.k) ? p.a[detail::at(row, t + tx, p.k)] : 0.0f;
    sB[ty][tx] = (t + ty < p.k && col < p.n) ? p.b[detail::at(t + ty, col, p.n)] : 0.0f;
    __syncthreads();
#pragma unroll
    for (int i = 0; i < kTile; ++i) sum += sA[ty][i] * sB[i][tx];
    __syncthreads();
  }
  if (row < p.m && col < p.n) p.c[detail::at(row, col, p.n)] = sum;
}

}  // namespace

void launch_tiled_solution(const MatmulArgs& args, cudaStream_t stream) {
  const dim3 block(kExerciseTile, kExerciseTile);
  const dim3 grid(detail::ceil_div(args.n, kExerciseTile), detail::ceil_div(args.m, kExerciseTile));
  tiled_kernel<kExerciseTile><<<grid, block, 0, stream>>>(args);
  CUDA_CHECK_LAUNCH("tiled_kernel (exercise 1, solution)");
}

}  // namespace matmul::exercises
