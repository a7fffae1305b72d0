// Checking cuFFT calls (cufftResult).
//
// Teaches: cuFFT has no function that names its errors, so the course keeps the table
// (cufft_result_name) next to the check. Link course::cufft to use it.
//
//   CUFFT_CHECK(cufftPlan2d(&plan, ny, nx, CUFFT_R2C));
#pragma once

#include <cufft.h>

#include "course/errors.hpp"

namespace course {
// "CUFFT_INVALID_SIZE" and a short explanation; unknown codes get "cufftResult <n>".
const char* cufft_result_name(cufftResult status);
const char* cufft_result_message(cufftResult status);

namespace detail {
[[noreturn]] inline void throw_cufft_error(cufftResult status, const char* call, const char* file,
                                           int line) {
  throw_api_error("cuFFT", call, static_cast<int>(status), cufft_result_name(status),
                  cufft_result_message(status), file, line);
}
}  // namespace detail
}  // namespace course

#define CUFFT_CHECK(call)                                                              \
  do {                                                                                 \
    const cufftResult course_status_ = (call);                                         \
    if (course_status_ != CUFFT_SUCCESS)                                               \
      ::course::detail::throw_cufft_error(course_status_, #call, __FILE__, __LINE__);  \
  } while (0)
