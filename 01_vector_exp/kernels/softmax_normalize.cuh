// Lesson 01, part two: the last pass both softmax steps share, y_i = exp(x_i - m) / S, with m and
// S read from the device (scalars[0], scalars[1]) where the reduction left them: the host never
// waits for them. One float4 of x in and one of y out per trip when both arrays are 16-byte
// aligned (cudaMalloc's always are), else one float at a time.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "course/check.hpp"
#include "course/launch.hpp"
#include "kernels/block_reduce.cuh"

namespace vector_exp::reduce_device {

template <bool Vector>
__global__ void softmax_normalize(const float* x, std::size_t n, float* y, const float* scalars) {
  const float m = scalars[0], inverse_sum = 1.0f / scalars[1];
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  std::size_t scalar_begin = 0;
  if constexpr (Vector) {
    const float4* x4 = reinterpret_cast<const float4*>(x);
    float4* y4 = reinterpret_cast<float4*>(y);
    for (std::size_t q = i; q < n / 4; q += stride) {
      const float4 v = x4[q];
      y4[q] = make_float4(expf(v.x - m) * inverse_sum, expf(v.y - m) * inverse_sum, expf(v.z - m) * inverse_sum,
                          expf(v.w - m) * inverse_sum);
    }
    scalar_begin = n / 4 * 4;
  }
  for (std::size_t k = scalar_begin + i; k < n; k += stride) y[k] = expf(x[k] - m) * inverse_sum;
}

inline void launch_softmax_normalize(const float* x, std::size_t n, float* y, const float* scalars, int threads,
                                     cudaStream_t stream) {
  const bool vector = (reinterpret_cast<std::uintptr_t>(x) | reinterpret_cast<std::uintptr_t>(y)) % 16 == 0;
  const void* kernel = vector ? reinterpret_cast<const void*>(softmax_normalize<true>)
                              : reinterpret_cast<const void*>(softmax_normalize<false>);
  const long long blocks = reduction_grid(kernel, n, threads, vector ? 4 : 1, 0);
  if (vector) {
    softmax_normalize<true><<<static_cast<unsigned>(blocks), threads, 0, stream>>>(x, n, y, scalars);
  } else {
    softmax_normalize<false><<<static_cast<unsigned>(blocks), threads, 0, stream>>>(x, n, y, scalars);
  }
  CUDA_CHECK_LAUNCH("softmax_normalize");
}

}  // namespace vector_exp::reduce_device
