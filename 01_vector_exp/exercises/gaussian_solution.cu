// Lesson 01, exercise 1 (solution): y = exp(-x^2 / 2), one thread per element.
#include <cuda_runtime.h>

#include "course/check.hpp"
#include "exercises/exercises.hpp"

namespace vector_exp::exercises {

namespace {
// [docs:kernel]
__global__ void gaussian_kernel(const float* x, float* y, std::size_t n) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) y[i] = expf(-0.5f * x[i] * x[i]);
}
// [docs:end kernel]
}  // namespace

void launch_gaussian_solution(const float* x, float* y, std::size_t n, cudaStream_t stream) {
  if (n == 0) return;
  const unsigned threads = 256;
  const auto blocks = static_cast<unsigned>((n + threads - 1) / threads);
  gaussian_kernel<<<blocks, threads, 0, stream>>>(x, y, n);
  CUDA_CHECK_LAUNCH("gaussian_kernel (solution)");
}

}  // namespace vector_exp::exercises
