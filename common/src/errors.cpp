// Builds the one-line messages of the course's API errors.
#include "course/errors.hpp"

#include <cstring>
#include <string>

#include "course/check.hpp"
#include "course/check_driver.hpp"
#include "course/check_cufft.hpp"

namespace course {

namespace {
std::string api_error_text(const std::string& api, const std::string& call, const std::string& code_name,
                           const std::string& message, const std::string& file, int line) {
  return api + " error: " + call + " failed: " + code_name + " (" + message + ") at " + file + ":" +
         std::to_string(line);
}
}  // namespace

ApiError::ApiError(std::string api, std::string call, int code, std::string code_name, std::string message,
                   std::string file, int line)
    : Error(api_error_text(api, call, code_name, message, file, line)),
      api_(std::move(api)),
      call_(std::move(call)),
      code_(code),
      code_name_(std::move(code_name)),
      message_(std::move(message)),
      file_(std::move(file)),
      line_(line) {}

namespace detail {

const char* course_relative_path(const char* file) {
#ifdef COURSE_SOURCE_DIR
  constexpr const char* root = COURSE_SOURCE_DIR;  // ends with '/'
  const std::size_t root_length = std::strlen(root);
  if (std::strncmp(file, root, root_length) == 0) return file + root_length;
#endif
  return file;
}

void throw_api_error(const char* api, const char* call, int code, const char* code_name, const char* message,
                     const char* file, int line) {
  throw ApiError(api, call, code, code_name ? code_name : "unknown", message ? message : "no message",
                 course_relative_path(file), line);
}

void throw_runtime_error(cudaError_t status, const char* call, const char* file, int line) {
  throw_api_error("CUDA runtime", call, static_cast<int>(status), cudaGetErrorName(status),
                  cudaGetErrorString(status), file, line);
}

void throw_driver_error(CUresult status, const char* call, const char* file, int line) {
  const DriverErrorText text = describe_driver_error(status);
  throw_api_error("CUDA driver", call, static_cast<int>(status), text.name.c_str(), text.message.c_str(), file,
                  line);
}

}  // namespace detail

DriverErrorText describe_driver_error(CUresult status) {
  // cuGetErrorName/cuGetErrorString live in libcuda. Ask the runtime for them so this file
  // links without libcuda (it is absent on machines without the NVIDIA driver).
  using ErrorTextFn = CUresult (*)(CUresult, const char**);
  void* name_fn = nullptr;
  void* string_fn = nullptr;
  cudaDriverEntryPointQueryResult name_query{}, string_query{};
  const bool found =
      cudaGetDriverEntryPointByVersion("cuGetErrorName", &name_fn, 12000, cudaEnableDefault, &name_query) ==
          cudaSuccess &&
      cudaGetDriverEntryPointByVersion("cuGetErrorString", &string_fn, 12000, cudaEnableDefault,
                                       &string_query) == cudaSuccess &&
      name_query == cudaDriverEntryPointSuccess && string_query == cudaDriverEntryPointSuccess;
  if (!found) {
    cudaGetLastError();  // the failed lookup must not linger as the runtime's last error
    return {"CUresult " + std::to_string(static_cast<int>(status)),
            "error name unavailable: the CUDA driver is not loaded"};
  }
  const char* name = nullptr;
  const char* message = nullptr;
  if (reinterpret_cast<ErrorTextFn>(name_fn)(status, &name) != CUDA_SUCCESS || name == nullptr) {
    return {"CUresult " + std::to_string(static_cast<int>(status)), "unknown driver error code"};
  }
  reinterpret_cast<ErrorTextFn>(string_fn)(status, &message);
  return {name, message ? message : "no message"};
}

const char* cufft_result_name(cufftResult status) {
  switch (status) {
    case CUFFT_SUCCESS: return "CUFFT_SUCCESS";
    case CUFFT_INVALID_PLAN: return "CUFFT_INVALID_PLAN";
    case CUFFT_ALLOC_FAILED: return "CUFFT_ALLOC_FAILED";
    case CUFFT_INVALID_TYPE: return "CUFFT_INVALID_TYPE";
    case CUFFT_INVALID_VALUE: return "CUFFT_INVALID_VALUE";
    case CUFFT_INTERNAL_ERROR: return "CUFFT_INTERNAL_ERROR";
    case CUFFT_EXEC_FAILED: return "CUFFT_EXEC_FAILED";
    case CUFFT_SETUP_FAILED: return "CUFFT_SETUP_FAILED";
    case CUFFT_INVALID_SIZE: return "CUFFT_INVALID_SIZE";
    case CUFFT_UNALIGNED_DATA: return "CUFFT_UNALIGNED_DATA";
    case CUFFT_INVALID_DEVICE: return "CUFFT_INVALID_DEVICE";
    case CUFFT_NO_WORKSPACE: return "CUFFT_NO_WORKSPACE";
    case CUFFT_NOT_IMPLEMENTED: return "CUFFT_NOT_IMPLEMENTED";
    case CUFFT_NOT_SUPPORTED: return "CUFFT_NOT_SUPPORTED";
    case CUFFT_MISSING_DEPENDENCY: return "CUFFT_MISSING_DEPENDENCY";
    case CUFFT_NVRTC_FAILURE: return "CUFFT_NVRTC_FAILURE";
    case CUFFT_NVJITLINK_FAILURE: return "CUFFT_NVJITLINK_FAILURE";
    case CUFFT_NVSHMEM_FAILURE: return "CUFFT_NVSHMEM_FAILURE";
  }
  return "cufftResult (unknown code)";
}

const char* cufft_result_message(cufftResult status) {
  switch (status) {
    case CUFFT_SUCCESS: return "no error";
    case CUFFT_INVALID_PLAN: return "the plan handle is not valid";
    case CUFFT_ALLOC_FAILED: return "cuFFT could not allocate GPU memory";
    case CUFFT_INVALID_TYPE: return "unsupported transform type";
    case CUFFT_INVALID_VALUE: return "a pointer or parameter is not valid";
    case CUFFT_INTERNAL_ERROR: return "internal error in cuFFT or the driver";
    case CUFFT_EXEC_FAILED: return "the transform failed to execute on the GPU";
    case CUFFT_SETUP_FAILED: return "the cuFFT library failed to initialize";
    case CUFFT_INVALID_SIZE: return "a transform size is not valid";
    case CUFFT_UNALIGNED_DATA: return "data is not aligned as required";
    case CUFFT_INVALID_DEVICE: return "the plan was made on a different GPU";
    case CUFFT_NO_WORKSPACE: return "no workspace was provided before execution";
    case CUFFT_NOT_IMPLEMENTED: return "functionality not implemented";
    case CUFFT_NOT_SUPPORTED: return "operation not supported for these parameters";
    case CUFFT_MISSING_DEPENDENCY: return "a library cuFFT needs is missing";
    case CUFFT_NVRTC_FAILURE: return "run-time compilation inside cuFFT failed";
    case CUFFT_NVJITLINK_FAILURE: return "JIT linking inside cuFFT failed";
    case CUFFT_NVSHMEM_FAILURE: return "NVSHMEM inside cuFFT failed";
  }
  return "unknown cuFFT status";
}

}  // namespace course
