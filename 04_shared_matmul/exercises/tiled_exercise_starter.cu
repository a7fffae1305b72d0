// Exercise 1, starter: make the tile size of the classic kernel a compile-time parameter.
//
// This is kernel 02 (kernels/02_tiled_shared.cu) with its 32 written out, and a launcher that
// already asks for what the exercise wants: blocks of kExerciseTile x kExerciseTile = 16 x 16
// threads. As shipped the two disagree (the kernel still assumes 32 x 32 threads), so half the
// rows and columns of C are never written and the test `GpuExercise.TiledStarterAsShippedFails`
// shows it. Your task:
//  1. turn the kernel into `template <int kTile> __global__ void tiled_kernel(MatmulArgs p)` and
//     replace every 32 that means "the tile" by kTile;
//  2. launch tiled_kernel<kExerciseTile> over enough blocks to cover all of C for any M and N;
//  3. keep it correct for every size: every thread loads (zero outside A and B) and reaches both
//     __syncthreads(); only the final store is guarded;
//  4. compare with exercises/tiled_exercise_solution.cu; the tests run the solution at 1 x 1 x 1,
//     31^3, 1025 x 777 x 513, ...: `./scripts/check_exercise.sh 04 tiled` runs the same on yours;
//  5. time it by making it a step of the progression: copy it to kernels/13_tiled_16.cu (10 to
//     12 are taken), in namespace matmul, as void launch_tiled_16(const MatmulArgs&, cudaStream_t),
//     and add `COURSE_KERNEL(tiled_16, "...")` to kernels/registry.inc. It is
//     then in the lesson's table (`04_shared_matmul --kernel tiled_16 --kernel tiled_shared`) and
//     in the registry's tests. Is 16 x 16 faster or slower than 32 x 32, and why
//     (docs/04_shared_matmul.md, exercise 1)?
#include "course/check.hpp"
#include "exercises/exercises.hpp"
#include "matmul.hpp"

namespace matmul::exercises {

namespace {

__global__ void tiled_kernel(MatmulArgs p) {  // TODO: template <int kTile>
  __shared__ float sA[32][32];                 // TODO: kTile
  __shared__ float sB[32][32];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.y * 32 + ty;
  const int col = blockIdx.x * 32 + tx;
  float sum = 0.0f;
  for (int t = 0; t < p.k; t += 32) {
    sA[ty][tx] = (row < p.m && t + tx < p.k) ? p.a[detail::at(row, t + tx, p.k)] : 0.0f;
    sB[ty][tx] = (t + ty < p.k && col < p.n) ? p.b[detail::at(t + ty, col, p.n)] : 0.0f;
    __syncthreads();
    for (int i = 0; i < 32; ++i) sum += sA[ty][i] * sB[i][tx];
    __syncthreads();
  }
  if (row < p.m && col < p.n) p.c[detail::at(row, col, p.n)] = sum;
}

}  // namespace

void launch_tiled_starter(const MatmulArgs& args, cudaStream_t stream) {
  const dim3 block(kExerciseTile, kExerciseTile);  // what the exercise asks for
  const dim3 grid(detail::ceil_div(args.n, kExerciseTile), detail::ceil_div(args.m, kExerciseTile));
  tiled_kernel<<<grid, block, 0, stream>>>(args);  // TODO: tiled_kernel<kExerciseTile>
  CUDA_CHECK_LAUNCH("tiled_kernel (exercise 1, starter)");
}

}  // namespace matmul::exercises
