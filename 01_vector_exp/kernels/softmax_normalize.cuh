// Lesson 01, part two: the last pass both softmax steps share, y_i = exp(x_i - m) / S, with m and
// S read from the device (scalars[0], scalars[1]) where the reduction left them: the host never
// waits for them. float4 loads and stores, --ilp of them in flight, when both arrays are 16-byte
// aligned (cudaMalloc's always are), else one float at a time. The grid: the resident blocks.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "course/check.hpp"
#include "course/launch.hpp"
#include "kernels/block_reduce.cuh"

namespace vector_exp::reduce_device {

// Vector: x and y 16-byte aligned, float4 loads and stores, `Ilp` loads issued before any is
// used (as in the exp lesson's step 5); else one float at a time.
template <bool Vector, int Ilp>
__global__ void softmax_normalize(const float* x, std::size_t n, float* y, const float* scalars) {
  const float m = scalars[0], inverse_sum = 1.0f / scalars[1];
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  std::size_t scalar_begin = 0;
  if constexpr (Vector) {
    const float4* x4 = reinterpret_cast<const float4*>(x);
    float4* y4 = reinterpret_cast<float4*>(y);
    const std::size_t quads = n / 4;
    auto softmax4 = [m, inverse_sum](float4 v) {
      return make_float4(expf(v.x - m) * inverse_sum, expf(v.y - m) * inverse_sum, expf(v.z - m) * inverse_sum,
                         expf(v.w - m) * inverse_sum);
    };
    std::size_t q = i;
    for (; q + (Ilp - 1) * stride < quads; q += Ilp * stride) {
      float4 v[Ilp];
#pragma unroll
      for (int k = 0; k < Ilp; ++k) v[k] = x4[q + k * stride];  // all Ilp loads in flight
#pragma unroll
      for (int k = 0; k < Ilp; ++k) y4[q + k * stride] = softmax4(v[k]);
    }
    for (; q < quads; q += stride) y4[q] = softmax4(x4[q]);
    scalar_begin = quads * 4;
  }
  for (std::size_t k = scalar_begin + i; k < n; k += stride) y[k] = expf(x[k] - m) * inverse_sum;
}

template <int Ilp>
void launch_softmax_normalize(const float* x, std::size_t n, float* y, const float* scalars, int threads,
                              cudaStream_t stream) {
  const bool vector = (reinterpret_cast<std::uintptr_t>(x) | reinterpret_cast<std::uintptr_t>(y)) % 16 == 0;
  if (vector) {
    const auto kernel = softmax_normalize<true, Ilp>;
    const long long blocks = reduction_grid(reinterpret_cast<const void*>(kernel), n, threads, 4 * Ilp, 0);
    kernel<<<static_cast<unsigned>(blocks), threads, 0, stream>>>(x, n, y, scalars);
  } else {
    const auto kernel = softmax_normalize<false, 1>;
    const long long blocks = reduction_grid(reinterpret_cast<const void*>(kernel), n, threads, 1, 0);
    kernel<<<static_cast<unsigned>(blocks), threads, 0, stream>>>(x, n, y, scalars);
  }
  CUDA_CHECK_LAUNCH("softmax_normalize");
}

}  // namespace vector_exp::reduce_device
