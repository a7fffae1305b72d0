// Lesson 04, exercise (find the bug, on a GPU): kernel 02 with one barrier fewer.
//
// This is kernel 02, tiled_shared (kernels/02_tiled_shared.cu), with one line taken out. Its
// products often come out right, and the test that compares them with the CPU may pass: the bug
// is a race on shared memory, and whether it changes a sum depends on how the warps happen to be
// scheduled on the day. compute-sanitizer's racecheck watches every shared-memory access and
// reports the race on every run. The check runs the test under it:
//   ./scripts/check_exercise.sh 04 tile_barrier          (FAIL names what racecheck reported)
// Find the race and fix it (one line). Hints: ./scripts/check_exercise.sh 04 tile_barrier --hint
#include "course/check.hpp"
#include "exercises/exercises.hpp"
#include "matmul.hpp"

namespace matmul::exercises {

namespace {

constexpr int kTile = 32;

__global__ void tile_barrier_kernel(MatmulArgs p) {
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
  }
  if (row < p.m && col < p.n) p.c[detail::at(row, col, p.n)] = sum;
}

}  // namespace

void launch_tile_barrier_starter(const MatmulArgs& args, cudaStream_t stream) {
  const dim3 block(kTile, kTile);
  const dim3 grid(detail::ceil_div(args.n, kTile), detail::ceil_div(args.m, kTile));
  tile_barrier_kernel<<<grid, block, 0, stream>>>(args);
  CUDA_CHECK_LAUNCH("tile_barrier_kernel (starter)");
}

}  // namespace matmul::exercises
