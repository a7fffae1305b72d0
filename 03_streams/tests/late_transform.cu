// For the tests of lesson 03's exercise stream_order: the lesson's transform, started late (see
// late_transform.hpp). A stream runs its work in order, so the transform launched after the
// spinning kernel in the same stream starts only when the spin is over.
#include "tests/late_transform.hpp"

#include <cuda_runtime.h>

#include "course/check.hpp"

namespace streams::testing {

namespace {

__global__ void spin_kernel(long long cycles) {
  const long long start = clock64();
  while (clock64() - start < cycles) {
  }
}

}  // namespace

course::LaunchShape launch_late_transform(const float* x, float* y, std::size_t n, const Transform& transform,
                                          cudaStream_t stream) {
  spin_kernel<<<1, 1, 0, stream>>>(kLateCycles);
  CUDA_CHECK_LAUNCH("spin_kernel");
  return launch_transform(x, y, n, transform, stream);
}

}  // namespace streams::testing
