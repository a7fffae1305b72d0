// Checking CUDA runtime calls and kernel launches.
//
// Teaches: every CUDA call returns a status, and ignoring it turns a clear error ("out of memory
// at kernels/01_one_per_element.cu:42") into a wrong answer much later. Kernel launches return nothing: a bad
// launch configuration is reported by cudaGetLastError() right after <<<...>>>, and an error
// while the kernel runs is reported by the next synchronizing call.
//
//   CUDA_CHECK(cudaMalloc(&p, bytes));
//   my_kernel<<<grid, block, 0, stream>>>(p, n);
//   CUDA_CHECK_LAUNCH("my_kernel");
//
// A failure throws course::ApiError whose what() is one line:
//   CUDA runtime error: cudaMalloc(&p, bytes) failed: cudaErrorMemoryAllocation (out of memory) at common/src/x.cpp:12
#pragma once

#include <cuda_runtime_api.h>

#include "course/errors.hpp"

namespace course::detail {
[[noreturn]] void throw_runtime_error(cudaError_t status, const char* call, const char* file, int line);
}  // namespace course::detail

#define CUDA_CHECK(call)                                                              \
  do {                                                                                \
    const cudaError_t course_status_ = (call);                                        \
    if (course_status_ != cudaSuccess)                                                \
      ::course::detail::throw_runtime_error(course_status_, #call, __FILE__, __LINE__); \
  } while (0)

// After a <<<...>>> launch: reports a bad configuration (too many threads per block, too much
// shared memory, no code for this GPU) at the launch, naming the kernel.
#define CUDA_CHECK_LAUNCH(kernel_name)                                                       \
  do {                                                                                       \
    const cudaError_t course_status_ = cudaGetLastError();                                   \
    if (course_status_ != cudaSuccess)                                                       \
      ::course::detail::throw_runtime_error(course_status_, "launch of " kernel_name, __FILE__, \
                                            __LINE__);                                       \
  } while (0)
