// Lesson 02, exercise 1 (solution): one block that handles any n.
//
// Thread t handles t, t + blockDim.x, t + 2 * blockDim.x, ... while the index is below n. The
// loop is the grid-stride loop with a grid of one block: the stride is the number of threads
// that exist. It is correct for any n, and also slow: one block runs on one SM of the GPU's
// hundred or so, so the kernel cannot use more than a small part of the memory bandwidth.
// kernels/02_grid_stride.cu is the same loop with as many blocks as fill every SM.
#include <cuda_runtime.h>

#include <algorithm>

#include "course/check.hpp"
#include "exercises/exercises.hpp"

namespace elementwise_add::exercises {

namespace {
// [docs:kernel]
__global__ void add_one_block_loop(const float* a, const float* b, float* c, std::size_t n) {
  for (std::size_t i = threadIdx.x; i < n; i += blockDim.x) c[i] = a[i] + b[i];
}
// [docs:end kernel]
}  // namespace

void launch_one_block_loop_solution(const float* a, const float* b, float* c, std::size_t n, int block_size,
                                    cudaStream_t stream) {
  if (n == 0) return;
  // One block of block_size threads, or fewer when n is smaller (no idle threads).
  const int threads = static_cast<int>(std::min<std::size_t>(n, static_cast<std::size_t>(block_size)));
  add_one_block_loop<<<1, threads, 0, stream>>>(a, b, c, n);
  CUDA_CHECK_LAUNCH("add_one_block_loop (solution)");
}

}  // namespace elementwise_add::exercises
