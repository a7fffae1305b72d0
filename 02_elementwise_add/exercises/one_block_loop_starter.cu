// Lesson 02, exercise 1 (starter): make the one-block kernel handle any n.
//
// Below is part 2's add_one_block with a bounds check: one element per thread, so with one
// block of at most 1024 threads it stops at 1024 elements and leaves the rest unwritten. Keep
// ONE block, but let each thread loop over the elements that are its own. Check it with
//   ./scripts/check_exercise.sh 02 one_block_loop
// (PASS or FAIL with the reason; then compare with exercises/one_block_loop_solution.cu). Then compare its
// speed with add_grid_stride (kernels/02_grid_stride.cu): why is one block slow?
#include <cuda_runtime.h>

#include <algorithm>

#include "course/check.hpp"
#include "exercises/exercises.hpp"

namespace elementwise_add::exercises {

namespace {
__global__ void add_one_block_loop(const float* a, const float* b, float* c, std::size_t n) {
  // TODO: loop i = threadIdx.x, threadIdx.x + blockDim.x, ... while i < n.
  const std::size_t i = threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}
}  // namespace

void launch_one_block_loop_starter(const float* a, const float* b, float* c, std::size_t n, int block_size,
                                   cudaStream_t stream) {
  if (n == 0) return;
  // One block of block_size threads, or fewer when n is smaller (no idle threads).
  const int threads = static_cast<int>(std::min<std::size_t>(n, static_cast<std::size_t>(block_size)));
  add_one_block_loop<<<1, threads, 0, stream>>>(a, b, c, n);
  CUDA_CHECK_LAUNCH("add_one_block_loop (starter)");
}

}  // namespace elementwise_add::exercises
