// Lesson 02 beside its kernels: the same c = a + b through the GPU libraries a C++ programmer
// would call instead of writing a kernel.
//
// Teaches: a binary transform is one library call. Thrust takes two input ranges and a function
// object (thrust::plus, the STL's std::plus for the GPU); CUB's DeviceTransform takes a tuple of
// input iterators, so any number of inputs. Both choose the grid, the vector width and how many
// loads each thread keeps in flight; the table holds them against the same copy as the kernels.
#include <cub/device/device_transform.cuh>
#include <cuda/std/functional>
#include <cuda/std/tuple>
#include <thrust/execution_policy.h>
#include <thrust/functional.h>
#include <thrust/transform.h>

#include "course/check.hpp"
#include "course/check_thrust.hpp"
#include "elementwise_add.hpp"

namespace elementwise_add {

void thrust_add(const float* a, const float* b, float* c, std::size_t n, cudaStream_t stream) {
  if (n == 0) return;
  // par_nosync.on(stream): in the lesson's stream, no synchronization after the launch. thrust::plus
  // (cuda::std::plus) on floats proclaims copyable arguments itself, so Thrust may choose what CUB's Transform does.
  THRUST_CHECK(thrust::transform(thrust::cuda::par_nosync.on(stream), a, a + n, b, c, thrust::plus<float>{}));
  CUDA_CHECK_LAUNCH("thrust::transform");
}

void cub_add(const float* a, const float* b, float* c, std::size_t n, cudaStream_t stream) {
  if (n == 0) return;
  CUDA_CHECK(cub::DeviceTransform::Transform(::cuda::std::make_tuple(a, b), c, n, ::cuda::std::plus<float>{}, stream));
  CUDA_CHECK_LAUNCH("cub::DeviceTransform::Transform");
}

}  // namespace elementwise_add
