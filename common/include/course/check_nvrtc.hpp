// Checking NVRTC calls (run-time compilation of CUDA C++ source).
//
// Teaches: nvrtcResult names the failure; a compile error's details are in the program's log,
// which the lesson that compiles prints next to this message. Link course::nvrtc to use it.
//
//   NVRTC_CHECK(nvrtcCreateProgram(&program, source, "saxpy.cu", 0, nullptr, nullptr));
#pragma once

#include <nvrtc.h>

#include "course/errors.hpp"

namespace course::detail {
[[noreturn]] inline void throw_nvrtc_error(nvrtcResult status, const char* call, const char* file,
                                           int line) {
  // nvrtcGetErrorString returns the enumerator's name, e.g. "NVRTC_ERROR_COMPILATION".
  throw_api_error("NVRTC", call, static_cast<int>(status), nvrtcGetErrorString(status),
                  "see the program log for compiler messages", file, line);
}
}  // namespace course::detail

#define NVRTC_CHECK(call)                                                              \
  do {                                                                                 \
    const nvrtcResult course_status_ = (call);                                         \
    if (course_status_ != NVRTC_SUCCESS)                                               \
      ::course::detail::throw_nvrtc_error(course_status_, #call, __FILE__, __LINE__);  \
  } while (0)
