// Grid sizing helpers, and CUDA_CHECK_LAUNCH catching a bad launch configuration.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "course/check.hpp"
#include "course/device_buffer.hpp"
#include "course/float4_split.hpp"
#include "course/launch.hpp"
#include "gpu_test.hpp"

namespace {

__global__ void write_index(int* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = i;
}

TEST(Launch, BlocksToCoverRoundsUp) {
  EXPECT_EQ(course::blocks_to_cover(1, 256), 1u);
  EXPECT_EQ(course::blocks_to_cover(256, 256), 1u);
  EXPECT_EQ(course::blocks_to_cover(257, 256), 2u);
  EXPECT_EQ(course::blocks_to_cover(0, 256), 1u);
  EXPECT_EQ(course::blocks_to_cover(10'000'000, 256), 39063u);
}

TEST(Launch, Float4SplitAlignsEveryArrayOrNone) {
  alignas(16) float storage[64] = {};
  // Aligned: no head, 100 floats = 25 groups, 8 groups a block: 4 blocks, 0 floats of tail.
  auto split = course::float4_split(100, 8, 256, "k", storage, storage + 32);
  ASSERT_TRUE(split.has_value());
  EXPECT_EQ(split->head, 0u);
  EXPECT_EQ(split->vectors, 25u);
  EXPECT_EQ(split->blocks, 4u);
  // Both one float past a boundary: 3 scalar floats first, then (10 - 3) / 4 = 1 group.
  split = course::float4_split(10, 8, 256, "k", storage + 1, storage + 33);
  ASSERT_TRUE(split.has_value());
  EXPECT_EQ(split->head, 3u);
  EXPECT_EQ(split->vectors, 1u);
  EXPECT_EQ(split->blocks, 1u);
  // A tiny array is all head, and still gets its one block.
  split = course::float4_split(2, 8, 256, "k", storage + 1);
  ASSERT_TRUE(split.has_value());
  EXPECT_EQ(split->head, 2u);
  EXPECT_EQ(split->vectors, 0u);
  EXPECT_EQ(split->blocks, 1u);
  // Misaligned by different amounts, or blocks too small for the ends: no split.
  EXPECT_FALSE(course::float4_split(100, 8, 256, "k", storage, storage + 1).has_value());
  EXPECT_FALSE(course::float4_split(100, 8, 256, "k", storage + 1, storage + 2, storage + 1).has_value());
  EXPECT_FALSE(course::float4_split(100, 8, 2, "k", storage).has_value());
  // More blocks than a grid may have: an error that names the kernel.
  try {
    (void)course::float4_split(std::size_t{1} << 40, 1, 256, "add_one_pass", storage);
    FAIL() << "no error for 2^38 blocks";
  } catch (const std::invalid_argument& error) {
    EXPECT_NE(std::string(error.what()).find("add_one_pass"), std::string::npos) << error.what();
  }
}

TEST(Launch, ShapesDescribeThemselvesIn1dAnd2d) {
  EXPECT_EQ((course::LaunchShape{1, 400}).describe(), "1 block of 400 threads");
  EXPECT_EQ((course::LaunchShape{4096, 256}).describe(), "4,096 blocks of 256 threads");
  EXPECT_FALSE((course::LaunchShape{4096, 256}).two_d());
  const course::LaunchShape image{.blocks = 48, .threads = 32, .blocks_y = 128, .threads_y = 8};
  EXPECT_TRUE(image.two_d());
  EXPECT_EQ(image.describe(), "48x128 blocks of 32x8 threads");
  EXPECT_EQ((course::LaunchShape{.blocks = 10, .threads = 32, .blocks_y = 1, .threads_y = 1}).describe(),
            "10x1 blocks of 32x1 threads")
      << "a 2-D launch one block high is still written in 2-D";
}

TEST(GpuLaunch, ResidentBlocksFillTheMachineButNoMore) {
  COURSE_REQUIRE_GPU_OR_SKIP();
  const int resident = course::resident_blocks(reinterpret_cast<const void*>(write_index), 256);
  EXPECT_GT(resident, 0);
  EXPECT_EQ(course::grid_stride_blocks(reinterpret_cast<const void*>(write_index), 1000, 256), 4);
  EXPECT_EQ(course::grid_stride_blocks(reinterpret_cast<const void*>(write_index), std::size_t{1} << 32, 256),
            resident);
}

TEST(GpuLaunch, BadConfigurationIsReportedAtTheLaunch) {
  COURSE_REQUIRE_GPU_OR_SKIP();
  course::DeviceBuffer<int> buffer(1);
  int* out = buffer.data();
  write_index<<<1, 2048>>>(out, 1);  // 2048 threads per block: over the limit of 1024
  try {
    CUDA_CHECK_LAUNCH("write_index");
    ADD_FAILURE() << "a launch of 2048 threads per block was not reported";
  } catch (const course::ApiError& error) {
    // CUDA 12 names this cudaErrorInvalidConfiguration; CUDA 13.0 reports cudaErrorInvalidValue.
    const std::string message = error.what();
    EXPECT_NE(message.find("launch of write_index failed: cudaErrorInvalid"), std::string::npos) << message;
    EXPECT_TRUE(error.code_name() == "cudaErrorInvalidConfiguration" || error.code_name() == "cudaErrorInvalidValue")
        << message;
  }
  write_index<<<1, 32>>>(out, 1);
  EXPECT_NO_THROW(CUDA_CHECK_LAUNCH("write_index"));
  CUDA_CHECK(cudaDeviceSynchronize());
}

}  // namespace
