// Tests of lesson 01's library rows (library.cu): Thrust and CUB computing y = exp(x) at the
// sizes that break sloppy kernels, in a stream of their own, on views that are not 16-byte
// aligned, writing nothing past the end; and the docs' side-by-side quotes of the raw kernel,
// Thrust and CUB match the sources. Suites named Gpu* need a GPU (label gpu).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <fstream>
#include <sstream>
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

// ---- The docs quote the sources --------------------------------------------------------------
// docs/01_vector_exp.md shows regions of the sources ("// [region: NAME]" ... "// [end region]"),
// each quote preceded by a line "<!-- region: FILE NAME -->" (FILE relative to the lesson). The
// region is compared without the indentation its lines share.
std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string dedented_region(const std::string& source, const std::string& name) {
  const std::string begin = "// [region: " + name + "]\n";
  const auto start = source.find(begin);
  if (start == std::string::npos) return "";
  const auto body = start + begin.size();
  const auto end = source.find("// [end region]", body);
  if (end == std::string::npos) return "";
  std::istringstream lines(source.substr(body, source.rfind('\n', end) + 1 - body));
  std::vector<std::string> kept;
  std::size_t indent = std::string::npos;
  for (std::string line; std::getline(lines, line);) {
    if (line.find_first_not_of(' ') != std::string::npos) indent = std::min(indent, line.find_first_not_of(' '));
    kept.push_back(line);
  }
  std::string text;
  for (const std::string& line : kept) text += (line.size() >= indent ? line.substr(indent) : line) + "\n";
  return text;
}

TEST(VectorExpDocs, LibraryQuotesMatchTheSources) {
  const std::string here = __FILE__;
  const std::string lesson = here.substr(0, here.rfind('/') + 1);
  const std::string page = read_file(lesson + "../docs/01_vector_exp.md");
  ASSERT_FALSE(page.empty()) << "docs/01_vector_exp.md not found next to " << lesson;
  const std::string marker = "<!-- region: ";
  int quotes = 0;
  for (auto at = page.find(marker); at != std::string::npos; at = page.find(marker, at + 1)) {
    const auto line_end = page.find(" -->", at);
    std::istringstream fields(page.substr(at + marker.size(), line_end - at - marker.size()));
    std::string file, name;
    fields >> file >> name;
    const auto code_start = page.find("```cpp\n", line_end);
    ASSERT_NE(code_start, std::string::npos) << file << " " << name;
    const auto code_end = page.find("```\n", code_start + 7);
    const std::string quoted = page.substr(code_start + 7, code_end - code_start - 7);
    const std::string source = dedented_region(read_file(lesson + file), name);
    EXPECT_FALSE(source.empty()) << file << " has no region " << name;
    EXPECT_EQ(quoted, source) << "docs/01_vector_exp.md quotes " << file << " [" << name << "] out of date";
    ++quotes;
  }
  EXPECT_GE(quotes, 5) << "the page quotes the kernel, its launch, the function object, Thrust and CUB";
}

INSTANTIATE_TEST_SUITE_P(Library, GpuExpLibraries, ::testing::ValuesIn(kLibraries),
                         library_name);

}  // namespace
