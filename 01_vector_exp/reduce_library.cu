// Lesson 01, part two, beside the kernels: the sum, the max and softmax through the libraries a
// C++ programmer would call (declared in reduce.hpp).
//
// Teaches: cub::DeviceReduce is the GPU's std::reduce, tuned per architecture by NVIDIA; it is
// the bar the lesson's reduction kernels are held to ("vs lib"). Its calls take temporary
// device storage: called once with a null pointer they only say how many bytes they need; the
// lesson allocates that once, as a setup step, never inside the timed runs. thrust::reduce is
// the same algorithm behind an STL-like call that returns the value to the host (so it waits
// for the GPU, and allocates its temporary storage itself on every call). A softmax from CUB is
// three calls: Max, TransformReduce (the sum of exp(x - m)), Transform (exp(x - m) / S).
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_transform.cuh>
#include <cuda/std/functional>
#include <thrust/execution_policy.h>
#include <thrust/reduce.h>

#include <algorithm>
#include <cmath>

#include "course/check.hpp"
#include "course/check_thrust.hpp"
#include "reduce.hpp"

namespace vector_exp {

namespace {

struct MaxOf {
  __host__ __device__ float operator()(float a, float b) const { return fmaxf(a, b); }
};

// exp(v - *m): m is read from the device where DeviceReduce::Max left it.
struct ShiftedExp {
  const float* m;
  __device__ float operator()(float v) const { return expf(v - *m); }
};

// exp(v - *m) / *s, the last pass.
struct Normalize {
  const float* scalars;
  __device__ float operator()(float v) const { return expf(v - scalars[0]) / scalars[1]; }
};

}  // namespace

std::size_t cub_reduce_temp_bytes(std::size_t n, Reduction op) {
  std::size_t bytes = 0;
  const float* x = nullptr;
  float* result = nullptr;
  if (op == Reduction::sum) {
    CUDA_CHECK(cub::DeviceReduce::Sum(nullptr, bytes, x, result, n));
  } else {
    CUDA_CHECK(cub::DeviceReduce::Max(nullptr, bytes, x, result, n));
  }
  return std::max<std::size_t>(bytes, 1);
}

void cub_reduce(const float* x, std::size_t n, float* result, Reduction op, void* temp, std::size_t temp_bytes,
                cudaStream_t stream) {
  // [docs:cub_reduce]
  if (op == Reduction::sum) {
    CUDA_CHECK(cub::DeviceReduce::Sum(temp, temp_bytes, x, result, n, stream));
  } else {
    CUDA_CHECK(cub::DeviceReduce::Max(temp, temp_bytes, x, result, n, stream));
  }
  // [docs:end cub_reduce]
  CUDA_CHECK_LAUNCH("cub::DeviceReduce");
}

float thrust_reduce(const float* x, std::size_t n, Reduction op, cudaStream_t stream) {
  float value = 0;
  if (op == Reduction::sum) {
    THRUST_CHECK(value = thrust::reduce(thrust::cuda::par_nosync.on(stream), x, x + n, 0.0f, ::cuda::std::plus<float>{}));
  } else {
    THRUST_CHECK(value = thrust::reduce(thrust::cuda::par_nosync.on(stream), x, x + n, -INFINITY, MaxOf{}));
  }
  return value;
}

std::size_t cub_softmax_temp_bytes(std::size_t n) {
  std::size_t max_bytes = 0, sum_bytes = 0;
  const float* x = nullptr;
  float* out = nullptr;
  CUDA_CHECK(cub::DeviceReduce::Max(nullptr, max_bytes, x, out, n));
  CUDA_CHECK(cub::DeviceReduce::TransformReduce(nullptr, sum_bytes, x, out, n, ::cuda::std::plus<float>{},
                                                ShiftedExp{out}, 0.0f));
  return std::max<std::size_t>({max_bytes, sum_bytes, 1});
}

void cub_softmax(const float* x, std::size_t n, float* y, float* scalars, void* temp, std::size_t temp_bytes,
                 cudaStream_t stream) {
  // [docs:cub_softmax]
  CUDA_CHECK(cub::DeviceReduce::Max(temp, temp_bytes, x, scalars, n, stream));
  CUDA_CHECK(cub::DeviceReduce::TransformReduce(temp, temp_bytes, x, scalars + 1, n, ::cuda::std::plus<float>{},
                                                ShiftedExp{scalars}, 0.0f, stream));
  CUDA_CHECK(cub::DeviceTransform::Transform(x, y, n, Normalize{scalars}, stream));
  // [docs:end cub_softmax]
  CUDA_CHECK_LAUNCH("softmax from CUB");
}

}  // namespace vector_exp
