// Lesson 05, exercise 1 (solution): the Julia set.
//
// For the Mandelbrot set, z starts at 0 and c is the pixel. For the Julia set of a constant k,
// z starts at the pixel and k is the same for every pixel: z = z^2 + k. Only the device function
// and the kernel's arguments change; the 2-D grid-stride loops stay. julia_count (mandelbrot.hpp)
// uses the fused arithmetic, so the CPU's julia_cpu gives the same counts exactly, and the test
// GpuJulia.SolutionMatchesTheCpuExactly checks that.
// The starter is julia_starter.cu next to this file: the same kernel with its body to write.
#include <cuda_runtime.h>

#include "course/check.hpp"
#include "exercises/exercises.hpp"

namespace mandelbrot::exercises {

namespace {

__global__ void julia_kernel(std::uint32_t* __restrict__ counts, Frame<float> frame, float kx, float ky,
                             int max_iters) {
  const int row_stride = gridDim.y * blockDim.y;
  const int col_stride = gridDim.x * blockDim.x;
  for (int row = blockIdx.y * blockDim.y + threadIdx.y; row < frame.height; row += row_stride) {
    const float zy = pixel_im(frame, row);
    for (int col = blockIdx.x * blockDim.x + threadIdx.x; col < frame.width; col += col_stride) {
      counts[static_cast<std::size_t>(row) * frame.width + col] =
          julia_count(pixel_re(frame, col), zy, kx, ky, max_iters);
    }
  }
}

}  // namespace

void launch_julia_solution(std::uint32_t* counts, const Frame<float>& frame, float kx, float ky, int max_iters, Extent block,
                  cudaStream_t stream) {
  const course::LaunchShape launch = plan_launch(launch_of(block), frame.width, frame.height);
  julia_kernel<<<dim3(static_cast<unsigned>(launch.blocks), static_cast<unsigned>(launch.blocks_y)),
                 dim3(static_cast<unsigned>(launch.threads), static_cast<unsigned>(launch.threads_y)), 0, stream>>>(
      counts, frame, kx, ky, max_iters);
  CUDA_CHECK_LAUNCH("julia_kernel (solution)");
}

}  // namespace mandelbrot::exercises
