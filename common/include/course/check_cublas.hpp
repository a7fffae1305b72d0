// Checking cuBLAS calls (cublasStatus_t).
//
// Teaches: cuBLAS names its statuses itself (cublasGetStatusName / cublasGetStatusString).
// Link course::cublas to use it.
//
//   CUBLAS_CHECK(cublasSgemm(handle, ...));
#pragma once

#include <cublas_v2.h>

#include "course/errors.hpp"

namespace course::detail {
[[noreturn]] inline void throw_cublas_error(cublasStatus_t status, const char* call, const char* file,
                                            int line) {
  throw_api_error("cuBLAS", call, static_cast<int>(status), cublasGetStatusName(status),
                  cublasGetStatusString(status), file, line);
}
}  // namespace course::detail

#define CUBLAS_CHECK(call)                                                              \
  do {                                                                                  \
    const cublasStatus_t course_status_ = (call);                                       \
    if (course_status_ != CUBLAS_STATUS_SUCCESS)                                        \
      ::course::detail::throw_cublas_error(course_status_, #call, __FILE__, __LINE__);  \
  } while (0)
