// Lesson 01, exercise 2 (solution): the max of x, each warp reduced with shuffles.
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>

#include "course/check.hpp"
#include "exercises/exercises.hpp"

namespace vector_exp::exercises {

namespace {

// [docs:warp_max]
// The max over the 32 lanes of a warp: after offsets 16, 8, 4, 2, 1, lane 0 holds it.
__device__ float warp_max(float v) {
  for (int offset = 16; offset > 0; offset /= 2) v = fmaxf(v, __shfl_down_sync(0xffffffffu, v, offset));
  return v;
}
// [docs:end warp_max]

// As in kernels/08_reduce_atomic.cu: for floats of one sign the bits order like the numbers.
__device__ void atomic_max_float(float* address, float v) {
  if (!signbit(v)) {
    atomicMax(reinterpret_cast<int*>(address), __float_as_int(v));
  } else {
    atomicMin(reinterpret_cast<unsigned*>(address), __float_as_uint(v));
  }
}

__global__ void max_kernel(const float* x, std::size_t n, float* result) {
  float v = -INFINITY;
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    v = fmaxf(v, x[i]);
  }
  v = warp_max(v);
  if (threadIdx.x % 32 == 0) atomic_max_float(result, v);  // one atomic per warp, not per element
}

}  // namespace

void launch_warp_max_solution(const float* x, std::size_t n, float* result, cudaStream_t stream) {
  if (n == 0) return;
  CUDA_CHECK(cudaMemsetAsync(result, 0xFF, sizeof(float), stream));  // "nothing yet" (08_reduce_atomic.cu)
  const unsigned threads = 256;
  const auto blocks = static_cast<unsigned>(std::min<std::size_t>((n + threads - 1) / threads, 1024));
  max_kernel<<<blocks, threads, 0, stream>>>(x, n, result);
  CUDA_CHECK_LAUNCH("max_kernel (solution)");
}

}  // namespace vector_exp::exercises
