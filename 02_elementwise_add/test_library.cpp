// Tests of lesson 02's library rows (library.cu): Thrust and CUB computing c = a + b bit for bit
// like the CPU, at the sizes that break sloppy kernels, in a stream of their own, on views that
// are not 16-byte aligned, writing nothing outside c. Suites named Gpu* need a GPU (label gpu).
#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <cstring>
#include <string>
#include <vector>

#include "course/device_buffer.hpp"
#include "course/random.hpp"
#include "course/stream.hpp"
#include "elementwise_add.hpp"
#include "gpu_test.hpp"

namespace {

using LibraryCall = void (*)(const float*, const float*, float*, std::size_t, cudaStream_t);

struct Library {
  std::string name;
  LibraryCall call;
};

const Library kLibraries[] = {{"thrust", elementwise_add::thrust_add}, {"cub", elementwise_add::cub_add}};

// 1, primes, around each block boundary, non-multiples of 4 and 256 (the kernels' kSizes), 2^20 + 1.
const std::size_t kSizes[] = {1, 2, 3, 5, 7, 31, 255, 256, 257, 1000, 1009, 4099, 65537, 1000003, (1u << 20) + 1};

std::vector<float> random_vector(std::size_t n, std::uint64_t seed) {
  std::vector<float> v(n);
  course::fill_normal(v, seed);
  return v;
}

// a[a_offset...] + b[b_offset...] through the library into c + c_offset, n elements; c is read
// back whole (one element more than the view's end), so writes outside the view show as non-NaN.
std::vector<float> run_library(const Library& library, const std::vector<float>& a, const std::vector<float>& b,
                               std::size_t n, std::size_t a_offset = 0, std::size_t b_offset = 0,
                               std::size_t c_offset = 0) {
  course::DeviceBuffer<float> d_a(a.size()), d_b(b.size()), d_c(n + c_offset + 1);
  d_a.copy_from_host(a);
  d_b.copy_from_host(b);
  d_c.poison();
  course::Stream stream;
  library.call(d_a.data() + a_offset, d_b.data() + b_offset, d_c.data() + c_offset, n, stream.get());
  stream.synchronize();
  std::vector<float> c(d_c.size());
  d_c.copy_to_host(c);
  return c;
}

// c[c_offset + i] is a[a_offset + i] + b[b_offset + i] bit for bit (one IEEE add, exact like the kernels).
::testing::AssertionResult sums_match(const std::vector<float>& a, const std::vector<float>& b,
                                      const std::vector<float>& c, std::size_t n, std::size_t a_offset,
                                      std::size_t b_offset, std::size_t c_offset) {
  for (std::size_t i = 0; i < n; ++i) {
    const float expected = a[a_offset + i] + b[b_offset + i];
    if (std::memcmp(&c[c_offset + i], &expected, sizeof(float)) != 0) {
      return ::testing::AssertionFailure() << "element " << i << ": " << c[c_offset + i] << " vs " << expected;
    }
  }
  if (!std::isnan(c[c_offset + n])) return ::testing::AssertionFailure() << "wrote past the end";
  if (c_offset > 0 && !std::isnan(c[c_offset - 1])) return ::testing::AssertionFailure() << "wrote before the start";
  return ::testing::AssertionSuccess();
}

std::string library_name(const ::testing::TestParamInfo<Library>& param) { return param.param.name; }

class GpuAddLibraries : public ::testing::TestWithParam<Library> {};

TEST_P(GpuAddLibraries, EqualTheCpuBitForBitAtAwkwardSizes) {
  COURSE_REQUIRE_GPU_OR_SKIP();
  const std::uint64_t seed = course::fresh_seed();
  for (std::size_t n : kSizes) {
    SCOPED_TRACE("n = " + std::to_string(n) + ", seed = " + std::to_string(seed));
    const auto a = random_vector(n, seed), b = random_vector(n, seed + 1);
    EXPECT_TRUE(sums_match(a, b, run_library(GetParam(), a, b, n), n, 0, 0, 0));
  }
}

TEST_P(GpuAddLibraries, MisalignedViewsStillCorrect) {
  COURSE_REQUIRE_GPU_OR_SKIP();
  const std::size_t n = 10007;
  const std::uint64_t seed = course::fresh_seed();
  const auto a = random_vector(n + 4, seed), b = random_vector(n + 4, seed + 1);
  for (std::size_t a_offset : {0, 1}) {
    for (std::size_t b_offset : {0, 3}) {
      for (std::size_t c_offset : {0, 2}) {
        SCOPED_TRACE("a + " + std::to_string(a_offset) + ", b + " + std::to_string(b_offset) + ", c + " +
                     std::to_string(c_offset));
        const auto c = run_library(GetParam(), a, b, n, a_offset, b_offset, c_offset);
        EXPECT_TRUE(sums_match(a, b, c, n, a_offset, b_offset, c_offset));
      }
    }
  }
}

TEST_P(GpuAddLibraries, NothingToDoWritesNothing) {
  COURSE_REQUIRE_GPU_OR_SKIP();
  const auto c = run_library(GetParam(), {1.0f}, {2.0f}, 0);
  EXPECT_TRUE(std::isnan(c[0])) << "n = 0 wrote an element";
}

INSTANTIATE_TEST_SUITE_P(Library, GpuAddLibraries, ::testing::ValuesIn(kLibraries),
                         library_name);

}  // namespace
