// Lesson 02, exercise (solution): make the one-block kernel handle any n.
//
// The task: add_one_block (add_kernels.cu) computes c[i] = a[i] + b[i] with i = threadIdx.x, so
// it is limited to one element per thread and 1024 threads. Keep ONE block, but let each thread
// loop: thread t handles t, t + blockDim.x, t + 2 * blockDim.x, ... while the index is below n.
//
// Teaches: the loop is the grid-stride loop with a grid of one block; the stride is the number
// of threads that exist. It is correct for any n, and also slow: one block runs on one SM of
// the GPU's hundred or so, so the kernel cannot use more than a small part of the memory
// bandwidth. add_grid_stride is the same loop with as many blocks as fill every SM.
//
// The tests (test_elementwise_add.cpp, GpuOneBlockLoop.* and the add_one_block_loop cases of
// GpuAddKernels.*) check this file: delete the body of add_one_block_loop, write your own, and
// run ctest --preset release -R 02_elementwise_add.
#include <cuda_runtime.h>

#include <algorithm>

#include "course/check.hpp"
#include "elementwise_add.hpp"

namespace elementwise_add {

namespace {

__global__ void add_one_block_loop(const float* a, const float* b, float* c, std::size_t n) {
  for (std::size_t i = threadIdx.x; i < n; i += blockDim.x) c[i] = a[i] + b[i];
}

}  // namespace

Launch launch_add_one_block_loop(const float* a, const float* b, float* c, std::size_t n, const LaunchConfig& config,
                                 cudaStream_t stream) {
  if (n == 0) return {};
  // One block of config.block_size threads, or fewer when n is smaller (no idle threads).
  const int threads = static_cast<int>(std::min<std::size_t>(n, static_cast<std::size_t>(config.block_size)));
  add_one_block_loop<<<1, threads, 0, stream>>>(a, b, c, n);
  CUDA_CHECK_LAUNCH("add_one_block_loop");
  return {1, threads};
}

}  // namespace elementwise_add
