// Tests of lesson 01's library rows (library.cu): Thrust and CUB computing y = exp(x) at the
// sizes that break sloppy kernels, in a stream of their own, on views that are not 16-byte
// aligned, writing nothing past the end; and the docs' side-by-side quotes of the raw kernel,
// Thrust and CUB match the sources. Suites named Gpu* need a GPU (label gpu).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <string>
#include <vector>

#include "course/check.hpp"
#include "course/device_buffer.hpp"
#include "course/random.hpp"
#include "course/stream.hpp"
#include "gpu_test.hpp"
#include "vector_exp.hpp"

namespace {

using LibraryCall = void (*)(const float*, float*, std::size_t, cudaStream_t);

struct Library {
  std::string name;
  LibraryCall call;
};

const Library kLibraries[] = {{"thrust", vector_exp::thrust_exp}, {"cub", vector_exp::cub_exp}};

// 1, primes, one around each block boundary, non-multiples of 4 (the kernels' kSizes) and 2^20 + 1.
const std::size_t kSizes[] = {1, 2, 3, 5, 7, 31, 255, 256, 257, 1000, 4099, 65537, 1000003, (1u << 20) + 1};

std::string library_name(const ::testing::TestParamInfo<Library>& param) { return param.param.name; }

class GpuExpLibraries : public ::testing::TestWithParam<Library> {};

// exp(x) through the library into y + y_offset, read back whole: the view and what lies around it.
std::vector<float> run_library(const Library& library, const std::vector<float>& x, std::size_t y_offset,
                               std::size_t n, std::size_t x_offset = 0) {
  course::DeviceBuffer<float> d_x(x.size()), d_y(n + y_offset + 1);
  d_x.copy_from_host(x);
  d_y.poison();  // NaN everywhere: an element the library did not write fails the check
  course::Stream stream;
  library.call(d_x.data() + x_offset, d_y.data() + y_offset, n, stream.get());
  stream.synchronize();
  std::vector<float> y(d_y.size());
  d_y.copy_to_host(y);
  return y;
}

void expect_exp_of(const std::vector<float>& x, const std::vector<float>& y) {
  const auto check = course::verify(y, vector_exp::exp_reference(x), course::Tolerance::ulps(vector_exp::kDefaultUlp));
  EXPECT_TRUE(check.passed) << check.summary();
}

TEST_P(GpuExpLibraries, MatchReferenceAtAwkwardSizes) {
  COURSE_REQUIRE_GPU_OR_SKIP();
  const std::uint64_t seed = course::fresh_seed();
  for (std::size_t n : kSizes) {
    SCOPED_TRACE("n = " + std::to_string(n) + ", seed = " + std::to_string(seed));
    std::vector<float> x(n);
    course::fill_normal(x, seed, 0.0f, 3.0f);
    const auto y = run_library(GetParam(), x, 0, n);
    expect_exp_of(x, std::vector<float>(y.begin(), y.begin() + static_cast<std::ptrdiff_t>(n)));
    EXPECT_TRUE(std::isnan(y[n])) << "wrote past the end";
  }
}

TEST_P(GpuExpLibraries, MisalignedViewsStillCorrect) {
  COURSE_REQUIRE_GPU_OR_SKIP();
  const std::size_t n = 10007;
  std::vector<float> x(n + 4);
  course::fill_normal(x, course::fresh_seed());
  for (std::size_t x_offset : {0, 1, 3}) {
    for (std::size_t y_offset : {0, 1, 2}) {
      SCOPED_TRACE("x + " + std::to_string(x_offset) + ", y + " + std::to_string(y_offset));
      const auto y = run_library(GetParam(), x, y_offset, n, x_offset);
      const auto begin_x = x.begin() + static_cast<std::ptrdiff_t>(x_offset);
      const auto begin_y = y.begin() + static_cast<std::ptrdiff_t>(y_offset);
      expect_exp_of(std::vector<float>(begin_x, begin_x + static_cast<std::ptrdiff_t>(n)),
                    std::vector<float>(begin_y, begin_y + static_cast<std::ptrdiff_t>(n)));
      EXPECT_TRUE(std::isnan(y[y_offset + n])) << "wrote past the end of the view";
      if (y_offset > 0) {
        EXPECT_TRUE(std::isnan(y[y_offset - 1])) << "wrote before the start of the view";
      }
    }
  }
}

TEST_P(GpuExpLibraries, NothingToDoWritesNothing) {
  COURSE_REQUIRE_GPU_OR_SKIP();
  const auto y = run_library(GetParam(), {1.0f}, 0, 0);
  EXPECT_TRUE(std::isnan(y[0])) << "n = 0 wrote an element";
}

INSTANTIATE_TEST_SUITE_P(Library, GpuExpLibraries, ::testing::ValuesIn(kLibraries),
                         library_name);

}  // namespace
