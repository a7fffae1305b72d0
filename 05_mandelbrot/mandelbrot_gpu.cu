// Lesson 05, GPU side: a 2-D grid of 2-D blocks, grid-stride loops in both directions.
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
//    should cover a compact patch of the image, and why the block shape matters (the sweep);
//  - compute-bound work: 4 bytes written per pixel, thousands of FP instructions per pixel inside
//    the set. Memory is idle; the FP pipes (FP32: 128 lanes per SM per clock; FP64 on an H100:
//    64; on a consumer GPU: 2) are the limit.
#include <cuda_runtime.h>

#include <stdexcept>

#include "course/check.hpp"
#include "mandelbrot.hpp"

namespace mandelbrot {

namespace {

// The classic kernel: mandel() per pixel, natural arithmetic (nvcc contracts it into FMAs).
template <class T>
__global__ void mandel_classic(std::uint32_t* __restrict__ counts, Frame<T> frame, int max_iters) {
  const int row_stride = gridDim.y * blockDim.y;
  const int col_stride = gridDim.x * blockDim.x;
  for (int row = blockIdx.y * blockDim.y + threadIdx.y; row < frame.height; row += row_stride) {
    const T cy = pixel_im(frame, row);
    for (int col = blockIdx.x * blockDim.x + threadIdx.x; col < frame.width; col += col_stride) {
      counts[static_cast<std::size_t>(row) * frame.width + col] = mandel(pixel_re(frame, col), cy, max_iters);
    }
  }
}

// The fast kernel: the same loops around mandel_fused_blocked (mandel.hpp), which checks for
// escape once per kFastBlock iterations and gives exactly the count of the fused definition.
template <class T>
__global__ void mandel_fast(std::uint32_t* __restrict__ counts, Frame<T> frame, int max_iters) {
  const int row_stride = gridDim.y * blockDim.y;
  const int col_stride = gridDim.x * blockDim.x;
  for (int row = blockIdx.y * blockDim.y + threadIdx.y; row < frame.height; row += row_stride) {
    const T cy = pixel_im(frame, row);
    for (int col = blockIdx.x * blockDim.x + threadIdx.x; col < frame.width; col += col_stride) {
      counts[static_cast<std::size_t>(row) * frame.width + col] =
          mandel_fused_blocked<kFastBlock>(pixel_re(frame, col), cy, max_iters);
    }
  }
}

}  // namespace

const char* kernel_name(Kernel kernel) {
  switch (kernel) {
    case Kernel::classic: return "mandel_classic";
    case Kernel::fast: return "mandel_fast";
  }
  return "?";
}

template <class T>
Launch launch_mandelbrot(Kernel kernel, std::uint32_t* counts, const Frame<T>& frame, int max_iters,
                         const LaunchShape& shape, cudaStream_t stream) {
  const Launch launch = plan_launch(shape, frame.width, frame.height);
  const dim3 grid(static_cast<unsigned>(launch.grid.x), static_cast<unsigned>(launch.grid.y));
  const dim3 block(static_cast<unsigned>(launch.block.x), static_cast<unsigned>(launch.block.y));
  switch (kernel) {
    case Kernel::classic:
      mandel_classic<T><<<grid, block, 0, stream>>>(counts, frame, max_iters);
      CUDA_CHECK_LAUNCH("mandel_classic");
      return launch;
    case Kernel::fast:
      mandel_fast<T><<<grid, block, 0, stream>>>(counts, frame, max_iters);
      CUDA_CHECK_LAUNCH("mandel_fast");
      return launch;
  }
  throw std::invalid_argument("launch_mandelbrot: unknown kernel");
}

template Launch launch_mandelbrot<float>(Kernel, std::uint32_t*, const Frame<float>&, int, const LaunchShape&,
                                         cudaStream_t);
template Launch launch_mandelbrot<double>(Kernel, std::uint32_t*, const Frame<double>&, int, const LaunchShape&,
                                          cudaStream_t);

}  // namespace mandelbrot
