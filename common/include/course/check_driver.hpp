// Checking CUDA driver API calls (cu* functions, CUresult).
//
// Teaches: the driver API is the layer under the runtime; its calls return CUresult, named by
// cuGetErrorName/cuGetErrorString. The names are looked up through the runtime
// (cudaGetDriverEntryPointByVersion), so code that only *checks* driver results does not need
// libcuda at link time. A lesson that calls the driver API links course::driver, which opens
// libcuda at run time (course/driver.hpp).
//
//   CU_CHECK(cu.cuModuleLoadData(&module, image));
#pragma once

#include <cuda.h>

#include <string>

#include "course/errors.hpp"

namespace course {
// Name and message of a CUresult, e.g. {"CUDA_ERROR_INVALID_VALUE", "invalid argument"}.
// Without a loaded driver the name is "CUresult <code>" and the message says why.
struct DriverErrorText {
  std::string name, message;
};
DriverErrorText describe_driver_error(CUresult status);

namespace detail {
[[noreturn]] void throw_driver_error(CUresult status, const char* call, const char* file, int line);
}  // namespace detail
}  // namespace course

#define CU_CHECK(call)                                                               \
  do {                                                                               \
    const CUresult course_status_ = (call);                                          \
    if (course_status_ != CUDA_SUCCESS)                                              \
      ::course::detail::throw_driver_error(course_status_, #call, __FILE__, __LINE__); \
  } while (0)
