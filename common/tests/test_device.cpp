// Device discovery, memory checks before allocating, and the measured ceilings.
#include <gtest/gtest.h>

#include <cstdlib>
#include <limits>
#include <string>

#include "course/ceilings.hpp"
#include "course/device.hpp"
#include "course/errors.hpp"
#include "gpu_test.hpp"

namespace {

// Sets an environment variable for one scope, restoring the previous value afterwards.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old, had_ = true;
    if (value) setenv(name, value, 1); else unsetenv(name);
  }
  ~ScopedEnv() {
    if (had_) setenv(name_.c_str(), old_.c_str(), 1); else unsetenv(name_.c_str());
  }

 private:
  std::string name_, old_;
  bool had_ = false;
};

TEST(Device, ProbeExplainsWhenNoGpuIsUsable) {
  const course::GpuStatus status = course::probe_gpu(0);
  if (!status.usable) {
    EXPECT_FALSE(status.reason.empty()) << "an unusable GPU must come with a reason";
  } else {
    EXPECT_TRUE(status.device.has_value());
  }
}

TEST(Device, RequiredGpuVariable) {
  {
    ScopedEnv env("COURSE_REQUIRE_GPU", "1");
    EXPECT_TRUE(course::gpu_required_by_environment());
  }
  {
    ScopedEnv env("COURSE_REQUIRE_GPU", "0");
    EXPECT_FALSE(course::gpu_required_by_environment());
  }
  {
    ScopedEnv env("COURSE_REQUIRE_GPU", nullptr);
    EXPECT_FALSE(course::gpu_required_by_environment());
  }
}

TEST(Device, HostMemoryCheckRefusesTheImpossible) {
  EXPECT_GT(course::available_host_memory(), 0u);
  EXPECT_NO_THROW(course::require_host_memory(1 << 20, "a small run"));
  try {
    course::require_host_memory(std::numeric_limits<std::size_t>::max() / 2, "a huge run");
    FAIL() << "no error for an impossible host allocation";
  } catch (const course::ResourceError& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("out of host memory: a huge run needs"), std::string::npos) << message;
  }
}

TEST(GpuDevice, PropertiesAreReadFromTheDevice) {
  COURSE_REQUIRE_GPU_OR_SKIP();
  const course::GpuStatus status = course::open_gpu(0, true);
  ASSERT_TRUE(status.usable);
  const course::DeviceInfo& info = *status.device;
  EXPECT_FALSE(info.name.empty());
  EXPECT_GE(info.cc_major * 10 + info.cc_minor, 75);
  EXPECT_GT(info.sm_count, 0);
  EXPECT_GT(info.l2_bytes, 0u);
  EXPECT_GT(info.global_memory_bytes, 0u);
  EXPECT_GE(info.max_threads_per_block, 1024);
  EXPECT_GT(info.theoretical_bandwidth_gbps(), 10.0);
  EXPECT_GE(info.runtime_version, 12000);
  EXPECT_NE(info.one_line().find(info.name), std::string::npos);
}

TEST(GpuDevice, NonexistentDeviceIndexIsAUsageError) {
  COURSE_REQUIRE_GPU_OR_SKIP();
  EXPECT_THROW(course::probe_gpu(1000), course::UsageError);
  // --device is checked against the device count, not only against the flag's range.
  const int count = course::probe_gpu(0).device_count;
  EXPECT_THROW(course::probe_gpu(count), course::UsageError) << "--device " << count;
}

TEST(GpuDevice, DeviceMemoryCheckRefusesTheImpossible) {
  COURSE_REQUIRE_GPU_OR_SKIP();
  EXPECT_NO_THROW(course::require_device_memory(1 << 20, "a small run"));
  try {
    course::require_device_memory(std::size_t{1} << 50, "a huge run");
    FAIL() << "no error for an impossible device allocation";
  } catch (const course::ResourceError& error) {
    EXPECT_NE(std::string(error.what()).find("out of GPU memory: a huge run needs"), std::string::npos)
        << error.what();
  }
}

TEST(GpuExclusiveCeilings, CopyBandwidthsAreMeasuredAndPlausible) {
  COURSE_REQUIRE_GPU_OR_SKIP();
  const course::RepeatOptions repeat{1, 5};
  const course::Ceiling copy = course::measure_device_copy(64 << 20, repeat, true);
  EXPECT_EQ(copy.name, "d2d_copy");
  EXPECT_EQ(copy.unit, "GB/s");
  EXPECT_GT(copy.value, 10.0);
  EXPECT_LT(copy.value, 100000.0);
  const course::Ceiling h2d = course::measure_pinned_copy(16 << 20, cudaMemcpyHostToDevice, repeat);
  const course::Ceiling d2h = course::measure_pinned_copy(16 << 20, cudaMemcpyDeviceToHost, repeat);
  EXPECT_EQ(h2d.name, "pinned_h2d");
  EXPECT_EQ(d2h.name, "pinned_d2h");
  EXPECT_GT(h2d.value, 1.0);
  EXPECT_GT(d2h.value, 1.0);
}

}  // namespace
