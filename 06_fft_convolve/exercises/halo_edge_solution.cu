// Lesson 06, find-the-bug exercise halo_edge, solution: the halo's row test is `row < height`.
//
// The bottom tile's halo row lies one row below the image, row = height. The starter's test
// `row <= height` let that row through, so the threads loading it read in[height * width + col],
// the width floats just past the end of the image (and put whatever they found into the bottom
// row's sums). Rows run from 0 to height - 1, as columns run from 0 to width - 1: `<` on both.
#include <cuda_runtime.h>

#include "course/check.hpp"
#include "exercises/exercises.hpp"

namespace fft_convolve::exercises {

namespace {

constexpr int kTile = 16;
constexpr int kLoaded = kTile + 2;

__global__ void box3_tile_checked(const float* __restrict__ in, float* __restrict__ out, int height, int width) {
  __shared__ float tile[kLoaded][kLoaded];
  const int row0 = blockIdx.y * kTile - 1, col0 = blockIdx.x * kTile - 1;
  for (int a = threadIdx.y; a < kLoaded; a += kTile) {
    for (int b = threadIdx.x; b < kLoaded; b += kTile) {
      const int row = row0 + a, col = col0 + b;
      const bool inside = row >= 0 && row < height && col >= 0 && col < width;  // the fix: < height
      tile[a][b] = inside ? in[static_cast<std::size_t>(row) * width + col] : 0.0f;
    }
  }
  __syncthreads();
  const int row = blockIdx.y * kTile + threadIdx.y, col = blockIdx.x * kTile + threadIdx.x;
  if (row >= height || col >= width) return;
  float sum = 0.0f;
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) sum += tile[threadIdx.y + i][threadIdx.x + j];
  }
  out[static_cast<std::size_t>(row) * width + col] = sum / 9.0f;
}

}  // namespace

void launch_halo_edge_solution(const float* in, float* out, int height, int width, cudaStream_t stream) {
  if (height <= 0 || width <= 0) return;
  const dim3 block(kTile, kTile);
  const dim3 grid((width + kTile - 1) / kTile, (height + kTile - 1) / kTile);
  box3_tile_checked<<<grid, block, 0, stream>>>(in, out, height, width);
  CUDA_CHECK_LAUNCH("box3_tile_checked (solution)");
}

}  // namespace fft_convolve::exercises
