// RAII owners: device and pinned buffers, streams, events, the sync guard.
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <vector>

#include "course/check.hpp"
#include "course/device_buffer.hpp"
#include "course/errors.hpp"
#include "course/stream.hpp"
#include "gpu_test.hpp"

namespace {

TEST(DeviceBuffer, SizeMismatchIsRejectedBeforeAnyCudaCall) {
  course::DeviceBuffer<float> empty;
  std::vector<float> host(3);
  EXPECT_THROW(empty.copy_from_host(host), std::invalid_argument);
  EXPECT_THROW(empty.copy_to_host(host), std::invalid_argument);
}

TEST(GpuDeviceBuffer, RoundTripAndPoison) {
  COURSE_REQUIRE_GPU_OR_SKIP();
  const std::vector<float> values = {1.5f, -2.0f, 3.25f, 0.0f, 7.0f};
  course::DeviceBuffer<float> buffer(values.size(), "test");
  EXPECT_EQ(buffer.bytes(), values.size() * sizeof(float));
  buffer.copy_from_host(values);
  std::vector<float> back(values.size());
  buffer.copy_to_host(back);
  EXPECT_EQ(back, values);

  buffer.poison();
  buffer.copy_to_host(back);
  for (float v : back) EXPECT_TRUE(std::isnan(v)) << "poison must make every float NaN";
}

TEST(GpuDeviceBuffer, MoveTransfersOwnership) {
  COURSE_REQUIRE_GPU_OR_SKIP();
  course::DeviceBuffer<int> first(16);
  int* pointer = first.data();
  course::DeviceBuffer<int> second(std::move(first));
  EXPECT_EQ(second.data(), pointer);
  EXPECT_EQ(first.data(), nullptr);  // NOLINT: moved-from state is specified
  EXPECT_EQ(first.size(), 0u);
  course::DeviceBuffer<int> third(4);
  third = std::move(second);
  EXPECT_EQ(third.data(), pointer);
  EXPECT_EQ(third.size(), 16u);
}

TEST(GpuDeviceBuffer, ZeroElementsAllocatesNothing) {
  COURSE_REQUIRE_GPU_OR_SKIP();
  course::DeviceBuffer<float> buffer(0);
  EXPECT_EQ(buffer.data(), nullptr);
  std::vector<float> none;
  EXPECT_NO_THROW(buffer.copy_from_host(none));
  EXPECT_NO_THROW(buffer.poison());
}

TEST(GpuExclusiveDeviceBuffer, OutOfMemoryIsClearAndLeaksNothing) {
  COURSE_REQUIRE_GPU_OR_SKIP();
  std::size_t free_at_start = 0, total = 0;
  CUDA_CHECK(cudaMemGetInfo(&free_at_start, &total));
  // Each round takes 60% of the memory free at the start, then asks for more than the whole GPU.
  // Had the error path leaked the first buffer, the next round's first allocation would fail
  // (40% would be left). Unlike comparing cudaMemGetInfo before and after, this check cannot be
  // disturbed by other processes using the same GPU, such as tests that ctest runs side by side.
  const std::size_t most = free_at_start / 10 * 6;
  for (int round = 0; round < 3; ++round) {
    try {
      course::DeviceBuffer<unsigned char> first(most, "first buffer");
      course::DeviceBuffer<unsigned char> second(total, "more than the whole GPU");
      FAIL() << "allocating more than the GPU's memory did not throw";
    } catch (const course::ApiError& error) {
      const std::string message = error.what();
      ASSERT_NE(message.find("more than the whole GPU"), std::string::npos)
          << "round " << round << ": the wrong allocation failed (a leak from the round before?): " << message;
      EXPECT_NE(message.find("out of GPU memory"), std::string::npos) << message;
      EXPECT_EQ(error.code_name(), "cudaErrorMemoryAllocation");
    }
  }
  EXPECT_EQ(cudaGetLastError(), cudaSuccess) << "the failed allocation left an error behind";
}

TEST(GpuPinnedBuffer, AsyncRoundTripInAStreamWithTheGuard) {
  COURSE_REQUIRE_GPU_OR_SKIP();
  const std::size_t n = 1 << 20;
  course::PinnedBuffer<float> in(n), out(n);
  for (std::size_t i = 0; i < n; ++i) in[i] = static_cast<float>(i);
  course::DeviceBuffer<float> device(n);
  course::Stream stream;
  {
    course::StreamSyncGuard sync(stream.get());
    device.copy_from_host_async(in.span(), stream.get());
    device.copy_to_host_async(out.span(), stream.get());
  }  // the guard waited for the stream: out is complete here
  for (std::size_t i = 0; i < n; i += 4099) ASSERT_EQ(out[i], static_cast<float>(i));
  EXPECT_EQ(out[n - 1], static_cast<float>(n - 1));
}

TEST(GpuEvent, ElapsedTimeIsPositiveAndOrdered) {
  COURSE_REQUIRE_GPU_OR_SKIP();
  course::Stream stream;
  course::Event start, stop;
  course::DeviceBuffer<unsigned char> scratch(64 << 20);
  start.record(stream.get());
  CUDA_CHECK(cudaMemsetAsync(scratch.data(), 1, scratch.bytes(), stream.get()));
  stop.record(stream.get());
  stop.synchronize();
  EXPECT_GT(course::elapsed_ms(start, stop), 0.0f);
  EXPECT_THROW(course::elapsed_ms(stop, course::Event()), course::ApiError)
      << "an event never recorded cannot give a time";
  cudaGetLastError();  // leave no error behind for the next test
}

}  // namespace
