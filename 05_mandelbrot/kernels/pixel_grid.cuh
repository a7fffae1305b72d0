// Lesson 05's kernels share their loops: a 2-D grid of 2-D blocks, grid-stride in both directions.
//
// Teaches:
//  - 2-D indexing: a thread's pixel is (blockIdx.x * blockDim.x + threadIdx.x, blockIdx.y *
//    blockDim.y + threadIdx.y); threadIdx.x varies fastest within a warp, so the 32 threads of a
//    warp take 32 neighbouring columns of one row (for a block 32 or more wide) and their
//    stores of counts[row * width + col] are coalesced;
//  - grid-stride loops in 2-D: the row loop steps by gridDim.y * blockDim.y, the column loop by
//    gridDim.x * blockDim.x, so any grid covers any image (the classic 32x16 grid walks a
//    1536x1024 image; a grid of one thread per pixel loops once). No size has to divide anything;
//  - divergence: the 32 threads of a warp run in lockstep, so a warp stays in the loop until its
//    slowest pixel escapes. Neighbouring pixels usually have similar counts, which is why a warp
//    should cover a compact patch of the image, and why the block shape matters (--sweep blocks);
//  - compute-bound work: 4 bytes written per pixel, thousands of FP instructions per pixel inside
//    the set. Memory is idle; the FP pipes (FP32: 128 lanes per SM per clock; FP64 on an H100:
//    64; on a consumer GPU: 2) are the limit.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "course/check.hpp"
#include "mandelbrot.hpp"

namespace mandelbrot {

// counts[row * width + col] = count(c) for every pixel this thread owns, c = pixel_re + i pixel_im.
// [docs:for_each_pixel]
template <class T, class Count>
__device__ __forceinline__ void for_each_pixel(std::uint32_t* __restrict__ counts, const Frame<T>& frame,
                                               Count count) {
  const int row_stride = gridDim.y * blockDim.y;
  const int col_stride = gridDim.x * blockDim.x;
  for (int row = blockIdx.y * blockDim.y + threadIdx.y; row < frame.height; row += row_stride) {
    const T cy = pixel_im(frame, row);
    for (int col = blockIdx.x * blockDim.x + threadIdx.x; col < frame.width; col += col_stride) {
      counts[static_cast<std::size_t>(row) * frame.width + col] = count(pixel_re(frame, col), cy);
    }
  }
}
// [docs:end for_each_pixel]

// The grid and block of a planned launch (plan_launch), as <<<>>> takes them.
inline dim3 grid_of(const course::LaunchShape& launch) {
  return dim3(static_cast<unsigned>(launch.blocks), static_cast<unsigned>(launch.blocks_y));
}
inline dim3 block_of(const course::LaunchShape& launch) {
  return dim3(static_cast<unsigned>(launch.threads), static_cast<unsigned>(launch.threads_y));
}

}  // namespace mandelbrot
