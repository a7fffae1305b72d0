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

namespace course::testing {

struct GpuTestState {
  bool usable = false;
  bool broken = false;  // present, but this build cannot run on it
  std::string reason;
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
