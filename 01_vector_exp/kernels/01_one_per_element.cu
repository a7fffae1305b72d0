// Lesson 01, step 1: the first kernel. One thread per element.
//
// Teaches: a kernel is a function every thread runs. blockIdx.x * blockDim.x + threadIdx.x is
// this thread's global index; ceil(n / block) blocks give every element a thread, and the
// threads of the last block that fall past the end must do nothing: the bounds check.
#include <cuda_runtime.h>

#include "course/check.hpp"
#include "vector_exp.hpp"

namespace vector_exp {

namespace {

// [docs:kernel]
__global__ void exp_one_per_element(const float* x, float* y, std::size_t n) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;  // 64-bit: no wrap past 2^32
  if (i < n) y[i] = expf(x[i]);
}
// [docs:end kernel]

}  // namespace

course::LaunchShape launch_one_per_element(const float* x, float* y, std::size_t n, const LaunchConfig& config,
                                           cudaStream_t stream) {
  if (n == 0) return {};
  const std::size_t block = static_cast<std::size_t>(config.block_size);
  const auto blocks = static_cast<long long>((n + block - 1) / block);  // ceil(n / block)
  // [docs:launch]
  exp_one_per_element<<<static_cast<unsigned>(blocks), config.block_size, 0, stream>>>(x, y, n);
  CUDA_CHECK_LAUNCH("exp_one_per_element");
  // [docs:end launch]
  return {blocks, config.block_size};
}

}  // namespace vector_exp
