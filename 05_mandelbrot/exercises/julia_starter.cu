// Lesson 05, exercise 1 (starter): the Julia set. Fill in the kernel, then check it with
//   ./scripts/check_exercise.sh 05 julia
// (PASS or FAIL with the reason; then compare with exercises/julia_solution.cu).
//
// For the Mandelbrot set, z starts at 0 and c is the pixel. For the Julia set of a constant k,
// z starts at the pixel and k is the same for every pixel: z = z^2 + k.
#include <cuda_runtime.h>

#include "course/check.hpp"
#include "exercises/exercises.hpp"

namespace mandelbrot::exercises {

namespace {

__global__ void julia_kernel(std::uint32_t* __restrict__ counts, Frame<float> frame, float kx, float ky,
                             int max_iters) {
  // TODO 1: the 2-D grid-stride loops of the lesson's kernels (kernels/pixel_grid.cuh): rows in y, columns in x.
  // TODO 2: for each pixel, z0 = pixel_re(frame, col) + i pixel_im(frame, row); write
  //         counts[row * width + col] = julia_count(z0 re, z0 im, kx, ky, max_iters)
  //         (julia_count is in mandelbrot.hpp: mandel with the roles of z and c swapped).
  (void)counts;
  (void)frame;
  (void)kx;
  (void)ky;
  (void)max_iters;
}

}  // namespace

void launch_julia_starter(std::uint32_t* counts, const Frame<float>& frame, float kx, float ky, int max_iters,
                          Extent block, cudaStream_t stream) {
  const course::LaunchShape launch = plan_launch(launch_of(block), frame.width, frame.height);
  julia_kernel<<<dim3(static_cast<unsigned>(launch.blocks), static_cast<unsigned>(launch.blocks_y)),
                 dim3(static_cast<unsigned>(launch.threads), static_cast<unsigned>(launch.threads_y)), 0, stream>>>(
      counts, frame, kx, ky, max_iters);
  CUDA_CHECK_LAUNCH("julia_kernel (starter)");
}

}  // namespace mandelbrot::exercises
