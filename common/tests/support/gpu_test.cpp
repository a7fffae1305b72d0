// GPU availability for tests, probed once per test binary.
#include "gpu_test.hpp"

#include "course/errors.hpp"

namespace course::testing {

const GpuTestState& gpu_test_state() {
  static const GpuTestState state = [] {
    GpuTestState result;
    try {
      const GpuStatus status = open_gpu(0, false);
      result.usable = status.usable;
      result.reason = status.reason;
      if (status.device) {
        result.cc_major = status.device->cc_major;
        result.cc_minor = status.device->cc_minor;
      }
    } catch (const Error& error) {
      result.broken = true;
      result.reason = error.what();
    }
    return result;
  }();
  return state;
}

}  // namespace course::testing
