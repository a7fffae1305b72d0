// Lesson 02, parts 1 and 2: the first kernels, one block indexed by threadIdx.x alone.
//
// Teaches:
//  - multiply_them (part 1, the PyCUDA demo): a kernel is a function that every thread runs;
//    threadIdx.x tells each thread which element is its own. One block of 400 threads.
//  - add_one_block (part 2): the same indexing for c = a + b. A block holds at most 1024 threads
//    (maxThreadsPerBlock), so a kernel indexed by threadIdx.x alone stops at 1024 elements. A
//    launch of 2048 threads per block is refused (cudaErrorInvalidConfiguration, or
//    cudaErrorInvalidValue from CUDA 13 on), and nothing says so unless cudaGetLastError() is
//    asked right after <<<>>> (CUDA_CHECK_LAUNCH does).
// They are demonstrations, not steps of the progression (kernels/): neither handles any n.
#include <cuda_runtime.h>

#include <algorithm>
#include <climits>

#include "course/check.hpp"
#include "elementwise_add.hpp"

namespace elementwise_add {

namespace {

// [docs:kernels]
// Part 1: the PyCUDA demo, line for line. No bounds check: the launch has exactly n threads.
__global__ void multiply_them(float* dest, const float* a, const float* b) {
  const unsigned i = threadIdx.x;
  dest[i] = a[i] * b[i];
}

// The same for c = a + b: correct, but only for n <= maxThreadsPerBlock (1024).
__global__ void add_one_block(const float* a, const float* b, float* c) {
  const unsigned i = threadIdx.x;
  c[i] = a[i] + b[i];
}
// [docs:end kernels]

}  // namespace

bool is_block_size_refusal(const course::ApiError& error) {
  return error.code() == cudaErrorInvalidConfiguration || error.code() == cudaErrorInvalidValue;
}

void launch_multiply_them(float* dest, const float* a, const float* b, int n, cudaStream_t stream) {
  if (n <= 0) return;
  multiply_them<<<1, n, 0, stream>>>(dest, a, b);
  CUDA_CHECK_LAUNCH("multiply_them");
}

course::LaunchShape launch_add_one_block(const float* a, const float* b, float* c, std::size_t n,
                                         cudaStream_t stream) {
  if (n == 0) return {};
  // Deliberately no check against the 1024 limit here: the lesson lets CUDA refuse the launch.
  // (The clamp only keeps the number an int; any n over the limit is refused the same way.)
  const int threads = static_cast<int>(std::min<std::size_t>(n, INT_MAX));
  // [docs:launch_add_one_block]
  add_one_block<<<1, threads, 0, stream>>>(a, b, c);
  CUDA_CHECK_LAUNCH("add_one_block");
  // [docs:end launch_add_one_block]
  return {1, threads};
}

}  // namespace elementwise_add
