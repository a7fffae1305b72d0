// Lesson 06, exercise (find the bug, on a GPU): a 3 x 3 box blur through a shared-memory tile.
//
// y(r, c) = the mean of the 3 x 3 pixels around (r, c), zeros outside the image, as the direct
// steps compute it for any filter. A block of 16 x 16 threads computes a 16 x 16 tile of outputs:
// it first loads the 18 x 18 input pixels around the tile (the tile and a one-pixel halo) into
// shared memory, zeros where they fall outside the image, waits, then each thread sums its nine.
// Its outputs look right, and the test that compares them with the CPU may pass. But the kernel
// touches memory the program does not own, on every image. compute-sanitizer's memcheck watches
// every access and reports the bad one. The check runs the test under it:
//   ./scripts/check_exercise.sh 06 halo_edge          (FAIL names what memcheck reported)
// Find the bad access and fix it (one line). Hints: ./scripts/check_exercise.sh 06 halo_edge --hint
#include <cuda_runtime.h>

#include "course/check.hpp"
#include "exercises/exercises.hpp"

namespace fft_convolve::exercises {

namespace {

constexpr int kTile = 16;             // outputs per block: kTile x kTile, one per thread
constexpr int kLoaded = kTile + 2;    // the tile and its halo: one pixel on every side

__global__ void box3_tile(const float* __restrict__ in, float* __restrict__ out, int height, int width) {
  __shared__ float tile[kLoaded][kLoaded];
  const int row0 = blockIdx.y * kTile - 1, col0 = blockIdx.x * kTile - 1;  // the halo's first pixel
  for (int a = threadIdx.y; a < kLoaded; a += kTile) {
    for (int b = threadIdx.x; b < kLoaded; b += kTile) {
      const int row = row0 + a, col = col0 + b;
      const bool inside = row >= 0 && row <= height && col >= 0 && col < width;
      tile[a][b] = inside ? in[static_cast<std::size_t>(row) * width + col] : 0.0f;
    }
  }
  __syncthreads();  // the tile is complete
  const int row = blockIdx.y * kTile + threadIdx.y, col = blockIdx.x * kTile + threadIdx.x;
  if (row >= height || col >= width) return;
  float sum = 0.0f;
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) sum += tile[threadIdx.y + i][threadIdx.x + j];
  }
  out[static_cast<std::size_t>(row) * width + col] = sum / 9.0f;
}

}  // namespace

void launch_halo_edge_starter(const float* in, float* out, int height, int width, cudaStream_t stream) {
  if (height <= 0 || width <= 0) return;
  const dim3 block(kTile, kTile);
  const dim3 grid((width + kTile - 1) / kTile, (height + kTile - 1) / kTile);
  box3_tile<<<grid, block, 0, stream>>>(in, out, height, width);
  CUDA_CHECK_LAUNCH("box3_tile (starter)");
}

}  // namespace fft_convolve::exercises
