// Repetition and statistics; the GPU timer and L2 flush.
#include <gtest/gtest.h>

#include <stdexcept>
#include <thread>

#include "course/check.hpp"
#include "course/device.hpp"
#include "course/timing.hpp"
#include "gpu_test.hpp"

namespace {

TEST(TimingStats, OddAndEvenMedians) {
  const course::TimingStats odd = course::TimingStats::from_samples({5.0, 1.0, 3.0});
  EXPECT_DOUBLE_EQ(odd.median_ms, 3.0);
  EXPECT_DOUBLE_EQ(odd.min_ms, 1.0);
  EXPECT_DOUBLE_EQ(odd.max_ms, 5.0);
  EXPECT_DOUBLE_EQ(odd.mean_ms, 3.0);
  EXPECT_EQ(odd.reps, 3);
  const course::TimingStats even = course::TimingStats::from_samples({4.0, 1.0, 2.0, 100.0});
  EXPECT_DOUBLE_EQ(even.median_ms, 3.0) << "the median ignores the outlier";
  EXPECT_EQ(even.samples_ms.size(), 4u);
  EXPECT_THROW(course::TimingStats::from_samples({}), std::invalid_argument);
}

TEST(TimeHost, WarmsUpThenRepeats) {
  int calls = 0;
  const course::TimingStats stats = course::time_host({2, 5}, [&] {
    ++calls;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  });
  EXPECT_EQ(calls, 7);
  EXPECT_EQ(stats.reps, 5);
  EXPECT_GE(stats.min_ms, 1.9);
  EXPECT_LE(stats.min_ms, stats.median_ms);
  EXPECT_LE(stats.median_ms, stats.max_ms);
}

TEST(GpuTimeDevice, TimesWithEventsAndFlushesL2) {
  COURSE_REQUIRE_GPU_OR_SKIP();
  const course::L2Flusher flusher;
  int device = 0, l2 = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device));
  EXPECT_EQ(flusher.bytes(), 2u * static_cast<std::size_t>(l2));

  course::DeviceBuffer<unsigned char> buffer(32 << 20);
  int calls = 0;
  const course::TimingStats stats = course::time_device({1, 4}, nullptr, [&] {
    ++calls;
    CUDA_CHECK(cudaMemsetAsync(buffer.data(), calls & 0xFF, buffer.bytes(), nullptr));
  }, &flusher);
  EXPECT_EQ(calls, 5);
  EXPECT_EQ(stats.reps, 4);
  EXPECT_GT(stats.min_ms, 0.0);
}

}  // namespace
