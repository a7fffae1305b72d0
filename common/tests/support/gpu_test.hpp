// Shared by every GPU test: skip with the reason when there is no GPU, and fail instead when
// the machine is supposed to have one (COURSE_REQUIRE_GPU=1), so a GPU machine can never pass
// its GPU tests by skipping them. A GPU that is present but unusable by this build (no code
// for its architecture) always fails.
//
//   TEST(GpuVectorExp, MatchesReference) {
//     COURSE_REQUIRE_GPU_OR_SKIP();
//     ...
//   }
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "course/device.hpp"
#include "course/kernel_registry.hpp"

namespace course::testing {

struct GpuTestState {
  bool usable = false;
  bool broken = false;  // present, but this build cannot run on it
  std::string reason;
  int cc_major = 0, cc_minor = 0;  // the GPU's compute capability, when there is one
};

// Probed once per test binary; makes the GPU current when usable.
const GpuTestState& gpu_test_state();

// Names parameterized tests by their string parameter (a registry's kernel name):
//   INSTANTIATE_TEST_SUITE_P(Registry, GpuKernels, ::testing::ValuesIn(names), course::testing::ParamName());
struct ParamName {
  std::string operator()(const ::testing::TestParamInfo<std::string>& param_info) const { return param_info.param; }
};

}  // namespace course::testing

#define COURSE_REQUIRE_GPU_OR_SKIP()                                                             \
  do {                                                                                           \
    const ::course::testing::GpuTestState& course_gpu_ = ::course::testing::gpu_test_state();    \
    if (course_gpu_.broken) FAIL() << course_gpu_.reason;                                        \
    if (!course_gpu_.usable) {                                                                   \
      if (::course::gpu_required_by_environment()) {                                             \
        FAIL() << "COURSE_REQUIRE_GPU is set but no GPU is usable: " << course_gpu_.reason;      \
      }                                                                                          \
      GTEST_SKIP() << "no usable GPU: " << course_gpu_.reason;                                   \
    }                                                                                            \
  } while (0)

// After COURSE_REQUIRE_GPU_OR_SKIP: skips a kernel this GPU is too old for (KernelTraits::min_cc),
// with the reason; such a kernel's row is listed as skipped by the lesson too.
#define COURSE_SKIP_IF_UNSUPPORTED(traits)                                                              \
  do {                                                                                                 \
    const ::course::testing::GpuTestState& course_gpu_ = ::course::testing::gpu_test_state();          \
    const std::string course_why_ = ::course::unsupported_reason((traits), course_gpu_.cc_major, course_gpu_.cc_minor); \
    if (!course_why_.empty()) GTEST_SKIP() << course_why_;                                             \
  } while (0)
