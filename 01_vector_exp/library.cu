// Lesson 01 beside its kernels: the same y = exp(x) through the GPU libraries a C++ programmer
// would call instead of writing a kernel.
//
// Teaches: Thrust (thrust::transform, the STL's std::transform for the GPU) and CUB (the building
// blocks Thrust is made of: cub::DeviceTransform) ship with the CUDA Toolkit (CCCL). Each is one
// call with a function object; the library picks the grid, the vector width and the loads. The
// lesson times them like its own kernels, held against the same copy ceiling: a kernel that is
// slower than the one-line call has not yet earned its lines.
#include <cub/device/device_transform.cuh>
#include <cuda/functional>
#include <thrust/execution_policy.h>
#include <thrust/transform.h>

#include "course/check.hpp"
#include "course/check_thrust.hpp"
#include "vector_exp.hpp"

namespace vector_exp {

namespace {

// The function both libraries apply: expf, the same 2-ulp function the kernels call.
// [docs:functor]
struct Exp {
  __device__ float operator()(float v) const { return expf(v); }
};
// [docs:end functor]

}  // namespace

void thrust_exp(const float* x, float* y, std::size_t n, cudaStream_t stream) {
  if (n == 0) return;
  // par_nosync.on(stream): in the lesson's stream, and no synchronization after the launch (the
  // harness times with events in that stream and synchronizes before it reads y).
  // proclaim_copyable_arguments: Exp does not need its argument to live at x[i], so Thrust may
  // hand it a copy, which lets it choose the algorithms that stage the inputs in shared memory
  // (CUB's Transform assumes this by default); without the promise Thrust reads x[i] in place.
  // [docs:thrust]
  THRUST_CHECK(thrust::transform(thrust::cuda::par_nosync.on(stream), x, x + n, y,
                                 ::cuda::proclaim_copyable_arguments(Exp{})));
  // [docs:end thrust]
  CUDA_CHECK_LAUNCH("thrust::transform");
}

void cub_exp(const float* x, float* y, std::size_t n, cudaStream_t stream) {
  if (n == 0) return;
  // Returns the launch's status; a std::size_t count is taken as a 64-bit offset.
  // [docs:cub]
  CUDA_CHECK(cub::DeviceTransform::Transform(x, y, n, Exp{}, stream));
  // [docs:end cub]
  CUDA_CHECK_LAUNCH("cub::DeviceTransform::Transform");
}

}  // namespace vector_exp
