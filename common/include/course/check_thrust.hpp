// Checking Thrust calls: Thrust reports a failed CUDA call by throwing thrust::system_error.
//
// Teaches: Thrust's algorithms return their results, not a status; an error while launching
// surfaces as an exception carrying the cudaError_t. THRUST_CHECK turns it into the course's
// one-line error naming the call, like CUDA_CHECK does for a runtime call. Include it from .cu
// files only (it pulls in Thrust's headers).
//
//   THRUST_CHECK(thrust::transform(thrust::cuda::par_nosync.on(stream), x, x + n, y, op));
#pragma once

#include <thrust/system/cuda/error.h>
#include <thrust/system_error.h>

#include "course/check.hpp"

namespace course::detail {
[[noreturn]] inline void rethrow_thrust_error(const thrust::system_error& error, const char* call, const char* file,
                                              int line) {
  if (error.code().category() == thrust::cuda_category()) {
    throw_runtime_error(static_cast<cudaError_t>(error.code().value()), call, file, line);
  }
  throw_api_error("Thrust", call, error.code().value(), error.code().category().name(), error.what(), file, line);
}
}  // namespace course::detail

// The call may contain commas (template arguments, several arguments): it is the whole argument list.
#define THRUST_CHECK(...)                                                                        \
  do {                                                                                           \
    try {                                                                                        \
      __VA_ARGS__;                                                                               \
    } catch (const thrust::system_error& course_thrust_error_) {                                 \
      ::course::detail::rethrow_thrust_error(course_thrust_error_, #__VA_ARGS__, __FILE__, __LINE__); \
    }                                                                                            \
  } while (0)
