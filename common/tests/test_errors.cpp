// Error checks for every CUDA API family, and the exit codes of run_lesson.
#include <gtest/gtest.h>

#include <new>
#include <string>

#include "course/check.hpp"
#include "course/check_cublas.hpp"
#include "course/check_cufft.hpp"
#include "course/check_driver.hpp"
#include "course/check_nvrtc.hpp"
#include "course/cli.hpp"
#include "course/errors.hpp"
#include "course/main.hpp"
#include "gpu_test.hpp"

namespace {

// Runs `statement`, expects course::ApiError, returns its message.
template <class Statement>
std::string api_error_message(Statement statement) {
  try {
    statement();
  } catch (const course::ApiError& error) {
    return error.what();
  }
  ADD_FAILURE() << "no course::ApiError was thrown";
  return {};
}

cudaError_t fails_with_invalid_value() { return cudaErrorInvalidValue; }

TEST(CudaCheck, SuccessDoesNotThrow) { EXPECT_NO_THROW(CUDA_CHECK(cudaSuccess)); }

TEST(CudaCheck, FailureNamesCallErrorFileAndLineInOneLine) {
  const int line = __LINE__ + 1;
  const std::string message = api_error_message([] { CUDA_CHECK(fails_with_invalid_value()); });
  EXPECT_NE(message.find("CUDA runtime error"), std::string::npos) << message;
  EXPECT_NE(message.find("fails_with_invalid_value()"), std::string::npos) << message;
  EXPECT_NE(message.find("cudaErrorInvalidValue"), std::string::npos) << message;
  EXPECT_NE(message.find("invalid argument"), std::string::npos) << message;
  EXPECT_NE(message.find("common/tests/test_errors.cpp:" + std::to_string(line)), std::string::npos) << message;
  EXPECT_EQ(message.find('\n'), std::string::npos);
}

TEST(CudaCheck, ApiErrorKeepsTheParts) {
  try {
    CUDA_CHECK(fails_with_invalid_value());
    FAIL() << "expected a throw";
  } catch (const course::ApiError& error) {
    EXPECT_EQ(error.api(), "CUDA runtime");
    EXPECT_EQ(error.code(), static_cast<int>(cudaErrorInvalidValue));
    EXPECT_EQ(error.code_name(), "cudaErrorInvalidValue");
    EXPECT_EQ(error.file(), "common/tests/test_errors.cpp");
  }
}

TEST(DriverCheck, FailureNamesCallAndCode) {
  const std::string message = api_error_message([] { CU_CHECK(CUDA_ERROR_INVALID_VALUE); });
  EXPECT_NE(message.find("CUDA driver error"), std::string::npos) << message;
  EXPECT_NE(message.find("CUDA_ERROR_INVALID_VALUE failed"), std::string::npos) << message;
  EXPECT_NE(message.find("test_errors.cpp"), std::string::npos) << message;
  EXPECT_EQ(message.find('\n'), std::string::npos);
}

TEST(GpuDriverCheck, NamesTheErrorThroughTheDriver) {
  COURSE_REQUIRE_GPU_OR_SKIP();
  const course::DriverErrorText text = course::describe_driver_error(CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(text.name, "CUDA_ERROR_INVALID_VALUE");
  EXPECT_EQ(text.message, "invalid argument");
}

TEST(NvrtcCheck, FailureNamesTheStatus) {
  const std::string message = api_error_message([] { NVRTC_CHECK(NVRTC_ERROR_COMPILATION); });
  EXPECT_NE(message.find("NVRTC error"), std::string::npos) << message;
  EXPECT_NE(message.find("NVRTC_ERROR_COMPILATION ("), std::string::npos) << message;
}

TEST(CufftCheck, FailureNamesTheStatus) {
  const std::string message = api_error_message([] { CUFFT_CHECK(CUFFT_INVALID_SIZE); });
  EXPECT_NE(message.find("cuFFT error"), std::string::npos) << message;
  EXPECT_NE(message.find("CUFFT_INVALID_SIZE (a transform size is not valid)"), std::string::npos) << message;
  EXPECT_STREQ(course::cufft_result_name(static_cast<cufftResult>(0x7f)), "cufftResult (unknown code)");
}

TEST(CublasCheck, FailureNamesTheStatus) {
  const std::string message = api_error_message([] { CUBLAS_CHECK(CUBLAS_STATUS_NOT_INITIALIZED); });
  EXPECT_NE(message.find("cuBLAS error"), std::string::npos) << message;
  EXPECT_NE(message.find("CUBLAS_STATUS_NOT_INITIALIZED"), std::string::npos) << message;
}

// run_lesson: each kind of outcome gets its exit code and a one-line message.
int run_with(const std::function<int(int, char**)>& body, std::string* stderr_text = nullptr) {
  char name[] = "/path/to/99_test_lesson";
  char* argv[] = {name, nullptr};
  testing::internal::CaptureStderr();
  const int code = course::run_lesson(1, argv, body);
  const std::string captured = testing::internal::GetCapturedStderr();
  if (stderr_text) *stderr_text = captured;
  return code;
}

TEST(RunLesson, ExitCodesFollowTheCourseContract) {
  EXPECT_EQ(run_with([](int, char**) { return 0; }), course::kExitOk);
  EXPECT_EQ(run_with([](int, char**) { return 1; }), course::kExitVerificationFailed);
  EXPECT_EQ(run_with([](int, char**) -> int { throw course::UsageError("--length: bad"); }),
            course::kExitBadCommandLine);
  EXPECT_EQ(run_with([](int, char**) -> int { throw course::ResourceError("out of GPU memory"); }),
            course::kExitRuntimeError);
  EXPECT_EQ(run_with([](int, char**) -> int { CUDA_CHECK(fails_with_invalid_value()); return 0; }),
            course::kExitRuntimeError);
  EXPECT_EQ(run_with([](int, char**) -> int { throw std::bad_alloc(); }), course::kExitRuntimeError);
  testing::internal::CaptureStdout();
  EXPECT_EQ(run_with([](int, char**) -> int { throw course::HelpRequested("usage"); }), course::kExitOk);
  EXPECT_EQ(testing::internal::GetCapturedStdout(), "usage");
}

TEST(RunLesson, ErrorIsOneLineNamingTheProgram) {
  std::string text;
  run_with([](int, char**) -> int { throw course::UsageError("--length: Value 0 not in range\nsecond line"); },
           &text);
  EXPECT_EQ(text.rfind("99_test_lesson: error: --length: Value 0 not in range", 0), 0u) << text;
  ASSERT_FALSE(text.empty());
  EXPECT_EQ(text.find('\n'), text.size() - 1) << "more than one line: " << text;
}

}  // namespace
