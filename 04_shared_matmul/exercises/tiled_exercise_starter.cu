// Exercise 1, starter: make the tile size of the classic kernel a compile-time parameter.
//
// This is kernel 02 (kernels/02_tiled_shared.cu) with its 32 written out. Your task:
//  1. turn the kernel into `template <int kTile> __global__ void tiled_kernel(MatmulArgs p)` and
//     replace every 32 that means "the tile" by kTile;
//  2. launch it with kTile = kExerciseTile (16, from matmul.hpp): blocks of 16 x 16 threads, and
//     enough blocks to cover all of C for any M and N;
//  3. keep it correct for every size: every thread loads (zero outside A and B) and reaches both
//     __syncthreads(); only the final store is guarded;
//  4. copy your kernel over exercises/tiled_exercise_solution.cu (or compare with it), rebuild
//     and run `ctest -R exercise_tiled`: the tests run it at 1 x 1 x 1, 31^3, 1025 x 777 x 513, ...
//  5. time it: `04_shared_matmul` lists it in matmul_tune's output as "exercise_tiled". Is 16 x 16
//     faster or slower than 32 x 32, and why (docs/04_shared_matmul.md, exercise 1)?
//
// This file is not built; the solution is.
#include "course/check.hpp"
#include "kernels/kernel_common.cuh"

namespace matmul {

namespace {

__global__ void tiled_kernel(MatmulArgs p) {  // TODO: template <int kTile>
  __shared__ float sA[32][32];                 // TODO: kTile
  __shared__ float sB[32][32];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.y * 32 + ty;
  const int col = blockIdx.x * 32 + tx;
  float sum = 0.0f;
  for (int t = 0; t < p.k; t += 32) {
    sA[ty][tx] = (row < p.m && t + tx < p.k) ? p.a[kernels::at(row, t + tx, p.k)] : 0.0f;
    sB[ty][tx] = (t + ty < p.k && col < p.n) ? p.b[kernels::at(t + ty, col, p.n)] : 0.0f;
    __syncthreads();
    for (int i = 0; i < 32; ++i) sum += sA[ty][i] * sB[i][tx];
    __syncthreads();
  }
  if (row < p.m && col < p.n) p.c[kernels::at(row, col, p.n)] = sum;
}

}  // namespace

void launch_exercise_tiled(const MatmulArgs& args, cudaStream_t stream) {
  const dim3 block(32, 32);  // TODO: kExerciseTile x kExerciseTile
  const dim3 grid(kernels::ceil_div(args.n, 32), kernels::ceil_div(args.m, 32));
  tiled_kernel<<<grid, block, 0, stream>>>(args);
  CUDA_CHECK_LAUNCH("tiled_kernel (exercise)");
}

}  // namespace matmul
