// The course's error types and exit codes.
//
// Teaches: report a failure once, with everything needed to act on it, and let the top of the
// program decide what to do. Helpers throw; only course::run_lesson (main.hpp) turns an
// exception into a message and an exit code. Nothing deep inside calls exit().
#pragma once

#include <stdexcept>
#include <string>

namespace course {

// The same exit codes for every lesson.
enum ExitCode : int {
  kExitOk = 0,                  // everything that ran was verified
  kExitVerificationFailed = 1,  // a result did not match its reference
  kExitBadCommandLine = 2,      // unknown flag, bad value, value out of range
  kExitRuntimeError = 3,        // CUDA error, out of memory, GPU required but absent, ...
};

// Base of the course's own exceptions: what() is one line, ready to print.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Bad command line (exit code 2).
class UsageError : public Error {
 public:
  using Error::Error;
};

// A resource the run needs is missing: GPU, device or host memory (exit code 3).
class ResourceError : public Error {
 public:
  using Error::Error;
};

// A failed call of a CUDA API (runtime, driver, NVRTC, cuFFT, cuBLAS) (exit code 3).
class ApiError : public Error {
 public:
  ApiError(std::string api, std::string call, int code, std::string code_name, std::string message,
           std::string file, int line);

  const std::string& api() const { return api_; }          // "CUDA runtime", "cuFFT", ...
  const std::string& call() const { return call_; }        // the source text of the call
  int code() const { return code_; }                       // the numeric status
  const std::string& code_name() const { return code_name_; }  // "cudaErrorMemoryAllocation"
  const std::string& message() const { return message_; }  // "out of memory"
  const std::string& file() const { return file_; }
  int line() const { return line_; }

 private:
  std::string api_, call_;
  int code_;
  std::string code_name_, message_, file_;
  int line_;
};

namespace detail {
// Shortens an absolute __FILE__ to a path relative to the course's source folder.
const char* course_relative_path(const char* file);

[[noreturn]] void throw_api_error(const char* api, const char* call, int code, const char* code_name,
                                  const char* message, const char* file, int line);
}  // namespace detail

}  // namespace course
