// For the tests of lesson 03's exercise stream_order: the lesson's transform, started late.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>

#include "streams.hpp"

namespace streams::testing {

// Clock cycles the late transform waits before the lesson's kernel starts: about 4 ms at 2 GHz.
inline constexpr long long kLateCycles = 1LL << 23;

// A Launcher (streams.hpp): a one-thread kernel that spins kLateCycles clock cycles, then
// launch_transform, both in `stream`. So nothing of y[0, n) is written until milliseconds after
// the kernel stage starts, while copying a chunk back takes microseconds: a copy out that does not
// wait for its kernel copies what y held before, on every run, not one run in a thousand.
course::LaunchShape launch_late_transform(const float* x, float* y, std::size_t n, const Transform& transform,
                                          cudaStream_t stream);

}  // namespace streams::testing
