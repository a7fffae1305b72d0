// Lesson 01, exercise 1 (starter): y = exp(-x^2 / 2), one thread per element.
//
// Fill in the kernel: find this thread's element, check it is inside the array, compute.
// Hint: kernels/01_one_per_element.cu is three lines away from the answer. Check it with
//   ./scripts/check_exercise.sh 01 gaussian
// (PASS or FAIL with the reason; then compare with exercises/gaussian_solution.cu).
#include <cuda_runtime.h>

#include "course/check.hpp"
#include "exercises/exercises.hpp"

namespace vector_exp::exercises {

namespace {
__global__ void gaussian_kernel(const float* x, float* y, std::size_t n) {
  // TODO: y[i] = expf(-x[i] * x[i] / 2) for the element i of this thread, if i < n.
  (void)x;
  (void)y;
  (void)n;
}
}  // namespace

void launch_gaussian_starter(const float* x, float* y, std::size_t n, cudaStream_t stream) {
  if (n == 0) return;
  const unsigned threads = 256;
  const auto blocks = static_cast<unsigned>((n + threads - 1) / threads);
  gaussian_kernel<<<blocks, threads, 0, stream>>>(x, y, n);
  CUDA_CHECK_LAUNCH("gaussian_kernel (starter)");
}

}  // namespace vector_exp::exercises
