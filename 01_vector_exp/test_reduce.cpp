// Tests of lesson 01, part two: the sum, the max and softmax. The CPU suites run anywhere; the
// suites named Gpu* need a GPU: every reduction and softmax kernel at awkward sizes against the
// long double reference within its order's error bound, the same bits on two runs, relaunches of
// the one-pass kernels (their counter reset), and the atomic step's spread, recorded.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include "course/check.hpp"
#include "course/device_buffer.hpp"
#include "course/random.hpp"
#include "exercise_record.hpp"
#include "exercises/exercises.hpp"
#include "gpu_test.hpp"
#include "reduce.hpp"

namespace {

using vector_exp::Reduction;

const std::size_t kCpuSizes[] = {1, 2, 3, 15, 16, 17, 31, 33, 255, 256, 257, 1023, 4099, 65537, 1000003};
const std::size_t kGpuSizes[] = {1, 31, 33, 1023, (std::size_t{1} << 20) + 3, std::size_t{1} << 24};

std::vector<float> normal_input(std::size_t n, std::uint64_t seed) {
  std::vector<float> x(n);
  course::fill_normal(x, seed, 0.5f, 2.0f);  // not centred: the sum is not near zero
  return x;
}

double exact_sum_error(float computed, const vector_exp::SumReference& reference) {
  return std::fabs(static_cast<double>(static_cast<long double>(computed) - reference.sum));
}

// ---- error bounds and the reference ---------------------------------------------------------

TEST(ReduceBounds, GammaAndDepths) {
  EXPECT_EQ(vector_exp::ceil_log2(1), 0);
  EXPECT_EQ(vector_exp::ceil_log2(2), 1);
  EXPECT_EQ(vector_exp::ceil_log2(1025), 11);
  EXPECT_NEAR(vector_exp::gamma(10), 10 * 0x1p-24 / (1 - 10 * 0x1p-24), 1e-20);
  EXPECT_TRUE(std::isinf(vector_exp::gamma(double(1 << 24)))) << "n u = 1: the recursive bound says nothing";
  EXPECT_EQ(vector_exp::sum_error_bound(5, 0), 0) << "all zeros: the sum is exact";
  // The tree's depth: 4 per thread + 8 levels (256 threads) + the combine's loop of 1 + 3 levels.
  EXPECT_EQ(vector_exp::grid_sum_depth(4, 256, 8, 256), 4 + 8 + 1 + 3);
}

TEST(ReduceReference, SmallIntegersAreSummedExactly) {
  std::vector<float> x(1000003);
  course::fill_small_integers(x, course::fresh_seed(), -100, 100);
  long long exact = 0;
  for (const float v : x) exact += static_cast<long long>(v);
  const auto reference = vector_exp::sum_reference(x);
  EXPECT_EQ(reference.sum, static_cast<long double>(exact));
  EXPECT_EQ(reference.max, *std::max_element(x.begin(), x.end()));
}

// Why the order matters: 2^24 values in [1, 1.25]. The loop s += x[i] reaches 2^23 after about
// 2^23 elements; from there on float's spacing is 1 (then 2), and each value near 1.1 loses a
// tenth of itself to rounding: an error of ~10^6. Pairwise passes each value through 24 + a few
// additions: its bound gamma(~45) sum|x| is ~50, and its error is far below.
TEST(ReduceCpu, NaiveSumAtTwoToTheTwentyFourFailsThePairwiseBound) {
  const std::size_t n = std::size_t{1} << 24;
  std::vector<float> x(n);
  course::fill_uniform(x, course::fresh_seed(), 1.0f, 1.25f);
  const auto reference = vector_exp::sum_reference(x);
  const double pairwise_bound =
      vector_exp::sum_error_bound(vector_exp::pairwise_depth(n), static_cast<double>(reference.sum_abs));
  const double naive_error = exact_sum_error(vector_exp::sum_naive(x), reference);
  const double pairwise_error = exact_sum_error(vector_exp::sum_pairwise_simd(x), reference);
  const double parallel_error = exact_sum_error(vector_exp::sum_pairwise_parallel(x), reference);
  RecordProperty("naive_error", std::to_string(naive_error));
  RecordProperty("pairwise_error", std::to_string(pairwise_error));
  RecordProperty("pairwise_bound", std::to_string(pairwise_bound));
  EXPECT_GT(naive_error, pairwise_bound) << "the naive order must FAIL the pairwise-size bound";
  EXPECT_LE(pairwise_error, pairwise_bound);
  EXPECT_LE(parallel_error, vector_exp::sum_error_bound(vector_exp::pairwise_parallel_depth(n),
                                                        static_cast<double>(reference.sum_abs)));
  std::printf("n = 2^24 in [1, 1.25]: naive error %.4g, pairwise error %.4g, pairwise bound %.4g\n", naive_error,
              pairwise_error, pairwise_bound);
}

TEST(ReduceCpu, EveryRowWithinItsBoundAtAwkwardSizes) {
  const std::uint64_t seed = course::fresh_seed();
  for (std::size_t n : kCpuSizes) {
    SCOPED_TRACE("n = " + std::to_string(n) + ", seed = " + std::to_string(seed));
    const auto x = normal_input(n, seed);
    const auto reference = vector_exp::sum_reference(x);
    const auto sum_abs = static_cast<double>(reference.sum_abs);
    EXPECT_LE(exact_sum_error(vector_exp::sum_naive(x), reference),
              vector_exp::sum_error_bound(static_cast<double>(n) - 1, sum_abs));
    EXPECT_LE(exact_sum_error(vector_exp::sum_pairwise_simd(x), reference),
              vector_exp::sum_error_bound(vector_exp::pairwise_depth(n), sum_abs));
    EXPECT_LE(exact_sum_error(vector_exp::sum_pairwise_parallel(x), reference),
              vector_exp::sum_error_bound(vector_exp::pairwise_parallel_depth(n), sum_abs));
    EXPECT_EQ(vector_exp::max_naive(x), reference.max);
    EXPECT_EQ(vector_exp::max_simd(x), reference.max);
    EXPECT_EQ(vector_exp::max_parallel(x), reference.max);
  }
}

TEST(ReduceCpu, ParallelSumGivesTheSameBitsTwice) {
  const auto x = normal_input(1000003, course::fresh_seed());
  const float first = vector_exp::sum_pairwise_parallel(x), second = vector_exp::sum_pairwise_parallel(x);
  EXPECT_EQ(std::memcmp(&first, &second, sizeof(float)), 0);
}

TEST(SoftmaxCpu, EveryRowWithinItsToleranceAtAwkwardSizes) {
  const std::uint64_t seed = course::fresh_seed();
  for (std::size_t n : kCpuSizes) {
    SCOPED_TRACE("n = " + std::to_string(n) + ", seed = " + std::to_string(seed));
    const auto x = normal_input(n, seed);
    const auto reference = vector_exp::sum_reference(x);
    const float x_min = *std::min_element(x.begin(), x.end());
    const auto expected = vector_exp::softmax_reference(x, reference);
    struct Row {
      const char* name;
      void (*compute)(std::span<const float>, std::span<float>);
      double depth;
    };
    for (const Row& row : {Row{"naive", vector_exp::softmax_naive, static_cast<double>(n)},
                           Row{"simd", vector_exp::softmax_simd, vector_exp::pairwise_depth(n) + 16},
                           Row{"parallel", vector_exp::softmax_parallel, vector_exp::pairwise_parallel_depth(n) + 16}}) {
      std::vector<float> y(n, std::numeric_limits<float>::quiet_NaN());
      row.compute(x, y);
      const auto tolerance =
          course::Tolerance::relative(vector_exp::softmax_tolerance(row.depth, x_min, reference.max));
      const auto check = course::verify(y, expected, tolerance);
      EXPECT_TRUE(check.passed) << row.name << ": " << check.summary();
    }
  }
}

TEST(SoftmaxCpu, SubtractingTheMaxAvoidsOverflow) {
  EXPECT_TRUE(std::isinf(std::exp(89.0f))) << "exp(89) > 3.4e38, the largest float";
  const std::vector<float> x = {89.0f, 0.0f, -1.0f, 88.0f};
  std::vector<float> y(x.size());
  vector_exp::softmax_naive(x, y);
  for (const float v : y) EXPECT_TRUE(std::isfinite(v));
  EXPECT_NEAR(y[0] + y[1] + y[2] + y[3], 1.0f, 1e-6f);
}

// Verification that can fail: a NaN, a value off by more than the bound, an unwritten output.
TEST(ReduceCpu, WrongOrUnwrittenResultsFailVerification) {
  const auto x = normal_input(4099, course::fresh_seed());
  const auto reference = vector_exp::sum_reference(x);
  const double expected = static_cast<double>(reference.sum);
  const course::ReferenceBlock block = [expected](std::size_t, std::size_t, double* out) { out[0] = expected; };
  const double bound = vector_exp::sum_error_bound(vector_exp::pairwise_depth(x.size()),
                                                   static_cast<double>(reference.sum_abs));
  const auto tolerance = course::Tolerance::relative(0, bound);
  std::vector<float> result = {vector_exp::sum_pairwise_simd(x)};
  EXPECT_TRUE(course::verify(result, block, tolerance).passed);
  result[0] = std::numeric_limits<float>::quiet_NaN();
  EXPECT_FALSE(course::verify(result, block, tolerance).passed) << "NaN must fail";
  result[0] = static_cast<float>(expected + 2 * bound + 1);
  EXPECT_FALSE(course::verify(result, block, tolerance).passed) << "outside the bound must fail";
  course::poison(std::span<float>(result));
  EXPECT_FALSE(course::verify(result, block, tolerance).passed) << "an unwritten (poisoned) output must fail";
  std::vector<float> y(x.size());
  vector_exp::softmax_simd(x, y);
  y[100] = std::numeric_limits<float>::quiet_NaN();
  const auto check = course::verify(y, vector_exp::softmax_reference(x, reference), course::Tolerance::relative(1e-3));
  EXPECT_FALSE(check.passed);
  EXPECT_EQ(check.nan_count, 1u);
}

TEST(ReduceRegistry, NamesAreUniqueAcrossEveryOperation) {
  std::set<std::string> names;
  std::size_t count = 0;
  for (const auto& k : vector_exp::kernels()) names.emplace(k.name), ++count;
  for (const auto& k : vector_exp::reduce_kernels()) names.emplace(k.name), ++count;
  for (const auto& k : vector_exp::softmax_kernels()) names.emplace(k.name), ++count;
  EXPECT_EQ(names.size(), count) << "--kernel takes the names of every registry";
  EXPECT_EQ(course::headline_kernel(vector_exp::reduce_kernels()).name, "reduce_vectorized");
  EXPECT_EQ(course::headline_kernel(vector_exp::softmax_kernels()).name, "softmax_online");
  EXPECT_EQ(vector_exp::softmax_bytes_per_element("softmax_online"), 12);
  EXPECT_EQ(vector_exp::softmax_bytes_per_element("softmax_three_pass"), 16);
}

// ---- GPU --------------------------------------------------------------------------------------

struct Device {
  course::DeviceBuffer<float> x, y, result, partials, scalars;
  course::DeviceBuffer<unsigned> counter;
  explicit Device(std::size_t n, bool with_y = false)
      : x(n + 4, "x"), y(with_y ? n + 4 : 1, "y"), result(1, "result"),
        partials(2 * vector_exp::kMaxPartials, "partials"), scalars(2, "scalars"), counter(1, "counter") {
    CUDA_CHECK(cudaMemset(counter.data(), 0, sizeof(unsigned)));
  }
  vector_exp::ReduceWorkspace work() const { return {partials.data(), counter.data(), scalars.data()}; }
};

struct Outcome {
  float value;
  double depth;
};

// x is copied to d.x + offset (offset 1: not 16-byte aligned).
Outcome reduce_on_gpu(const std::string& name, Device& d, const std::vector<float>& x, Reduction op,
                      const vector_exp::LaunchConfig& config = {}, std::size_t offset = 0) {
  CUDA_CHECK(cudaMemcpy(d.x.data() + offset, x.data(), x.size() * sizeof(float), cudaMemcpyHostToDevice));
  d.result.poison();
  const auto shape =
      vector_exp::reduce_kernel(name).launch(d.x.data() + offset, x.size(), d.result.data(), op, d.work(), config, nullptr);
  CUDA_CHECK(cudaDeviceSynchronize());
  float value = 0;
  CUDA_CHECK(cudaMemcpy(&value, d.result.data(), sizeof(float), cudaMemcpyDeviceToHost));
  return {value, shape.depth};
}

void expect_within_bound(const std::string& name, Reduction op, const std::vector<float>& x, const Outcome& got) {
  const auto reference = vector_exp::sum_reference(x);
  if (op == Reduction::max) {
    EXPECT_EQ(got.value, reference.max) << name << ": a max is exact";
    return;
  }
  const double bound = vector_exp::sum_error_bound(got.depth, static_cast<double>(reference.sum_abs));
  EXPECT_TRUE(std::isfinite(got.value)) << name;
  EXPECT_LE(exact_sum_error(got.value, reference), bound)
      << name << ": depth " << got.depth << ", exact " << static_cast<double>(reference.sum) << ", got " << got.value;
}

class GpuReduceKernels : public ::testing::TestWithParam<std::string> {};

TEST_P(GpuReduceKernels, SumAndMaxWithinTheirBoundsAtAwkwardSizes) {
  COURSE_REQUIRE_GPU_OR_SKIP();
  const std::uint64_t seed = course::fresh_seed();
  Device d(std::size_t{1} << 24);
  for (std::size_t n : kGpuSizes) {
    SCOPED_TRACE("n = " + std::to_string(n) + ", seed = " + std::to_string(seed));
    const auto x = normal_input(n, seed);
    for (const Reduction op : {Reduction::sum, Reduction::max}) {
      expect_within_bound(GetParam(), op, x, reduce_on_gpu(GetParam(), d, x, op));
    }
  }
}

TEST_P(GpuReduceKernels, EveryBlockSizeTinyGridsAndMisalignedInput) {
  COURSE_REQUIRE_GPU_OR_SKIP();
  const std::uint64_t seed = course::fresh_seed();
  const auto x = normal_input(100003, seed);
  Device d(x.size());
  for (const int block : {32, 96, 100, 256, 1000, 1024}) {
    for (const int grid : {0, 1, 3}) {
      for (const int ilp : {1, 4, 8}) {
        for (const std::size_t offset : {std::size_t{0}, std::size_t{1}}) {
          SCOPED_TRACE("block " + std::to_string(block) + ", grid " + std::to_string(grid) + ", ilp " +
                       std::to_string(ilp) + ", offset " + std::to_string(offset) + ", seed " + std::to_string(seed));
          const vector_exp::LaunchConfig config{.block_size = block, .grid_size = grid, .ilp = ilp};
          for (const Reduction op : {Reduction::sum, Reduction::max}) {
            expect_within_bound(GetParam(), op, x, reduce_on_gpu(GetParam(), d, x, op, config, offset));
          }
        }
      }
    }
  }
}

// Launched twice in a row (and on another input in between): the one-pass kernels' counter must
// be back at zero after each launch, or the second launch's last block never recognises itself.
TEST_P(GpuReduceKernels, RelaunchedInARowStillCorrect) {
  COURSE_REQUIRE_GPU_OR_SKIP();
  Device d(std::size_t{1} << 20);
  for (int launch = 0; launch < 3; ++launch) {
    const auto x = normal_input((std::size_t{1} << 20) - static_cast<std::size_t>(launch), course::fresh_seed());
    expect_within_bound(GetParam(), Reduction::sum, x, reduce_on_gpu(GetParam(), d, x, Reduction::sum));
    unsigned counter = 1;
    CUDA_CHECK(cudaMemcpy(&counter, d.counter.data(), sizeof counter, cudaMemcpyDeviceToHost));
    EXPECT_EQ(counter, 0u) << "the last block resets the counter";
  }
}

INSTANTIATE_TEST_SUITE_P(Registry, GpuReduceKernels,
                         ::testing::ValuesIn(course::kernel_names(vector_exp::reduce_kernels())),
                         course::testing::ParamName());

// Every deterministic kernel (all but the atomic step) gives the same bits on two runs.
TEST(GpuReduceDeterminism, SameBitsOnTwoRuns) {
  COURSE_REQUIRE_GPU_OR_SKIP();
  const auto x = normal_input((std::size_t{1} << 24) + 5, course::fresh_seed());
  Device d(x.size());
  for (const auto& kernel : vector_exp::reduce_kernels()) {
    if (kernel.name == "reduce_atomic") continue;  // the one whose order changes: measured below
    const std::string name(kernel.name);
    const float first = reduce_on_gpu(name, d, x, Reduction::sum).value;
    const float second = reduce_on_gpu(name, d, x, Reduction::sum).value;
    EXPECT_EQ(std::memcmp(&first, &second, sizeof(float)), 0) << name << ": " << first << " then " << second;
  }
}

// The atomic step's result depends on the order the additions reach memory: recorded, not asserted.
TEST(GpuReduceDeterminism, AtomicStepVariesFromRunToRun) {
  COURSE_REQUIRE_GPU_OR_SKIP();
  const auto x = normal_input(std::size_t{1} << 22, course::fresh_seed());
  Device d(x.size());
  std::set<float> seen;
  float low = INFINITY, high = -INFINITY;
  for (int run = 0; run < 10; ++run) {
    const Outcome got = reduce_on_gpu("reduce_atomic", d, x, Reduction::sum);
    expect_within_bound("reduce_atomic", Reduction::sum, x, got);
    seen.insert(got.value), low = std::min(low, got.value), high = std::max(high, got.value);
  }
  const float ulp = std::nextafter(std::max(std::fabs(low), std::fabs(high)), INFINITY) - std::max(std::fabs(low), std::fabs(high));
  RecordProperty("distinct_sums_of_10", std::to_string(seen.size()));
  RecordProperty("spread_ulp", std::to_string((high - low) / ulp));
  std::printf("reduce_atomic at n = 2^22, 10 runs: %zu distinct sums, spread %.0f ulp (%.9g to %.9g)\n", seen.size(),
              static_cast<double>((high - low) / ulp), static_cast<double>(low), static_cast<double>(high));
}

// ---- GPU softmax ------------------------------------------------------------------------------

void expect_softmax_matches(const std::string& name, const std::vector<float>& x, const std::vector<float>& y,
                            double depth) {
  const auto reference = vector_exp::sum_reference(x);
  const float x_min = *std::min_element(x.begin(), x.end());
  const auto tolerance = course::Tolerance::relative(vector_exp::softmax_tolerance(depth, x_min, reference.max));
  const auto check = course::verify(y, vector_exp::softmax_reference(x, reference), tolerance);
  EXPECT_TRUE(check.passed) << name << ": " << check.summary();
}

std::vector<float> softmax_on_gpu(const std::string& name, Device& d, const std::vector<float>& x, double& depth,
                                  const vector_exp::LaunchConfig& config = {}) {
  CUDA_CHECK(cudaMemcpy(d.x.data(), x.data(), x.size() * sizeof(float), cudaMemcpyHostToDevice));
  d.y.poison();
  depth = vector_exp::softmax_kernel(name).launch(d.x.data(), x.size(), d.y.data(), d.work(), config, nullptr).depth;
  CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<float> y(x.size());
  CUDA_CHECK(cudaMemcpy(y.data(), d.y.data(), y.size() * sizeof(float), cudaMemcpyDeviceToHost));
  return y;
}

class GpuSoftmaxKernels : public ::testing::TestWithParam<std::string> {};

TEST_P(GpuSoftmaxKernels, MatchReferenceAtAwkwardSizes) {
  COURSE_REQUIRE_GPU_OR_SKIP();
  const std::uint64_t seed = course::fresh_seed();
  Device d(std::size_t{1} << 24, true);
  for (std::size_t n : kGpuSizes) {
    SCOPED_TRACE("n = " + std::to_string(n) + ", seed = " + std::to_string(seed));
    const auto x = normal_input(n, seed);
    double depth = 0;
    const auto y = softmax_on_gpu(GetParam(), d, x, depth);
    expect_softmax_matches(GetParam(), x, y, depth);
  }
}

TEST_P(GpuSoftmaxKernels, LargeValuesBlockSizesAndRelaunches) {
  COURSE_REQUIRE_GPU_OR_SKIP();
  auto x = normal_input(100003, course::fresh_seed());
  for (float& v : x) v += 90.0f;  // exp(x) overflows float: only the shift by the max keeps y finite
  Device d(x.size(), true);
  for (const int block : {32, 96, 1024}) {
    for (const int ilp : {1, 8}) {
      for (int launch = 0; launch < 2; ++launch) {
        SCOPED_TRACE("block " + std::to_string(block) + ", ilp " + std::to_string(ilp) + ", launch " +
                     std::to_string(launch));
        double depth = 0;
        const auto y = softmax_on_gpu(GetParam(), d, x, depth, {.block_size = block, .ilp = ilp});
        expect_softmax_matches(GetParam(), x, y, depth);
      }
    }
  }
}

TEST_P(GpuSoftmaxKernels, SameBitsOnTwoRuns) {
  COURSE_REQUIRE_GPU_OR_SKIP();
  const auto x = normal_input((std::size_t{1} << 22) + 3, course::fresh_seed());
  Device d(x.size(), true);
  double depth = 0;
  const auto first = softmax_on_gpu(GetParam(), d, x, depth), second = softmax_on_gpu(GetParam(), d, x, depth);
  EXPECT_EQ(std::memcmp(first.data(), second.data(), first.size() * sizeof(float)), 0);
}

INSTANTIATE_TEST_SUITE_P(Registry, GpuSoftmaxKernels,
                         ::testing::ValuesIn(course::kernel_names(vector_exp::softmax_kernels())),
                         course::testing::ParamName());

// ---- GPU libraries ----------------------------------------------------------------------------

TEST(GpuReduceLibrary, CubThrustAndCubSoftmaxMatchTheReference) {
  COURSE_REQUIRE_GPU_OR_SKIP();
  const std::uint64_t seed = course::fresh_seed();
  Device d(std::size_t{1} << 24, true);
  for (std::size_t n : kGpuSizes) {
    SCOPED_TRACE("n = " + std::to_string(n) + ", seed = " + std::to_string(seed));
    const auto x = normal_input(n, seed);
    CUDA_CHECK(cudaMemcpy(d.x.data(), x.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    const double depth = static_cast<double>(n) / 1024 + 64;  // the lesson's assumption for CUB, with 8 SMs
    for (const Reduction op : {Reduction::sum, Reduction::max}) {
      const std::size_t bytes = vector_exp::cub_reduce_temp_bytes(n, op);
      course::DeviceBuffer<unsigned char> temp(bytes, "CUB's temporary storage");
      d.result.poison();
      vector_exp::cub_reduce(d.x.data(), n, d.result.data(), op, temp.data(), bytes, nullptr);
      float value = 0;
      CUDA_CHECK(cudaMemcpy(&value, d.result.data(), sizeof(float), cudaMemcpyDeviceToHost));
      expect_within_bound("cub", op, x, {value, depth});
      expect_within_bound("thrust", op, x, {vector_exp::thrust_reduce(d.x.data(), n, op, nullptr), depth});
    }
    const std::size_t bytes = vector_exp::cub_softmax_temp_bytes(n);
    course::DeviceBuffer<unsigned char> temp(bytes, "CUB's temporary storage");
    d.y.poison();
    vector_exp::cub_softmax(d.x.data(), n, d.y.data(), d.scalars.data(), temp.data(), bytes, nullptr);
    CUDA_CHECK(cudaDeviceSynchronize());
    std::vector<float> y(n);
    CUDA_CHECK(cudaMemcpy(y.data(), d.y.data(), n * sizeof(float), cudaMemcpyDeviceToHost));
    expect_softmax_matches("cub softmax", x, y, depth);
  }
}

}  // namespace

// ---- the part's exercises (./scripts/check_exercise.sh 01 warp_max, 01 log_sum_exp) ------------

namespace {

using MaxLauncher = void (*)(const float*, std::size_t, float*, cudaStream_t);
using LogSumExpLauncher = void (*)(const float*, std::size_t, float*, float*, cudaStream_t);

const std::size_t kExerciseSizes[] = {1, 31, 33, 255, 257, 100003, std::size_t{1} << 20};

// The max from the exercise's launcher, against the exact max: equal, or the check fails.
course::VerifyResult run_warp_max(MaxLauncher launch, const std::vector<float>& x) {
  course::DeviceBuffer<float> d_x(x.size(), "x"), d_result(1, "result");
  d_x.copy_from_host(x);
  d_result.poison();
  launch(d_x.data(), x.size(), d_result.data(), nullptr);
  CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<float> result(1);
  d_result.copy_to_host(result);
  const double expected = *std::max_element(x.begin(), x.end());
  const course::ReferenceBlock reference = [expected](std::size_t, std::size_t, double* out) { out[0] = expected; };
  return course::verify(result, reference, course::Tolerance::exact());
}

// log(sum exp(x)) from the exercise's launcher against long double: within 1e-5 (relative or
// absolute: the result's rounding, the sum's gamma(depth), and m's own rounding).
course::VerifyResult run_log_sum_exp(LogSumExpLauncher launch, const std::vector<float>& x) {
  course::DeviceBuffer<float> d_x(x.size(), "x"), d_partials(2 * vector_exp::exercises::kLogSumExpBlocks, "partials"),
      d_result(1, "result");
  d_x.copy_from_host(x);
  d_result.poison();
  launch(d_x.data(), x.size(), d_partials.data(), d_result.data(), nullptr);
  CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<float> result(1);
  d_result.copy_to_host(result);
  const auto reference = vector_exp::sum_reference(x);
  const long double m = reference.max;
  long double s = 0;
  for (const float v : x) s += std::exp(static_cast<long double>(v) - m);
  const double expected = static_cast<double>(m + std::log(s));
  const course::ReferenceBlock block = [expected](std::size_t, std::size_t, double* out) { out[0] = expected; };
  return course::verify(result, block, course::Tolerance::relative(1e-5, 1e-5));
}

std::vector<float> exercise_input(std::size_t n) {
  auto x = normal_input(n, course::fresh_seed());
  x[n / 2] = 90.0f;  // exp(90) overflows float: only the shift by the max keeps the sum finite
  return x;
}

template <class Run, class Launch>
void expect_exercise_passes(Run run, Launch launch) {
  for (std::size_t n : kExerciseSizes) {
    const auto check = run(launch, exercise_input(n));
    ASSERT_TRUE(check.passed) << "n = " << n << ": " << check.summary();
  }
}

TEST(GpuReduceExercise, WarpMaxSolutionMatches) {
  COURSE_REQUIRE_GPU_OR_SKIP();
  expect_exercise_passes(run_warp_max, vector_exp::exercises::launch_warp_max_solution);
}

TEST(GpuReduceExercise, DISABLED_WarpMaxStarterMatchesTheReference) {
  COURSE_REQUIRE_GPU_OR_SKIP();
  expect_exercise_passes(run_warp_max, vector_exp::exercises::launch_warp_max_starter);
}

TEST(GpuReduceExercise, WarpMaxStarterAsShippedFailsVerification) {
  COURSE_SKIP_IF_STARTER_EDITED("01_vector_exp", "warp_max");
  COURSE_REQUIRE_GPU_OR_SKIP();
  EXPECT_FALSE(run_warp_max(vector_exp::exercises::launch_warp_max_starter, exercise_input(1000)).passed)
      << "the starter's warp_max returns -inf: the result must be wrong";
}

// Find the bug (tree_barrier): a race on shared memory that only racecheck is sure to see.
TEST(GpuReduceExercise, TreeBarrierSolutionMatchesTheReference) {
  COURSE_REQUIRE_GPU_OR_SKIP();
  expect_exercise_passes(run_warp_max, vector_exp::exercises::launch_tree_barrier_solution);
}

// The student's check (./scripts/check_exercise.sh 01 tree_barrier runs it under compute-sanitizer
// --tool racecheck, which reports the starter's race whether or not its max comes out right).
TEST(GpuReduceExercise, DISABLED_TreeBarrierStarterMatchesTheReference) {
  COURSE_REQUIRE_GPU_OR_SKIP();
  expect_exercise_passes(run_warp_max, vector_exp::exercises::launch_tree_barrier_starter);
}

// The starter as shipped, once, its result not checked: the test
// 01_vector_exp.sanitizer.tree_barrier_starter runs this one under racecheck and expects the race.
TEST(GpuReduceExercise, TreeBarrierStarterAsShippedRuns) {
  COURSE_SKIP_IF_STARTER_EDITED("01_vector_exp", "tree_barrier");
  COURSE_REQUIRE_GPU_OR_SKIP();
  (void)run_warp_max(vector_exp::exercises::launch_tree_barrier_starter, exercise_input(1000));
}

TEST(GpuReduceExercise, LogSumExpSolutionMatches) {
  COURSE_REQUIRE_GPU_OR_SKIP();
  expect_exercise_passes(run_log_sum_exp, vector_exp::exercises::launch_log_sum_exp_solution);
}

TEST(GpuReduceExercise, DISABLED_LogSumExpStarterMatchesTheReference) {
  COURSE_REQUIRE_GPU_OR_SKIP();
  expect_exercise_passes(run_log_sum_exp, vector_exp::exercises::launch_log_sum_exp_starter);
}

TEST(GpuReduceExercise, LogSumExpStarterAsShippedFailsVerification) {
  COURSE_SKIP_IF_STARTER_EDITED("01_vector_exp", "log_sum_exp");
  COURSE_REQUIRE_GPU_OR_SKIP();
  EXPECT_FALSE(run_log_sum_exp(vector_exp::exercises::launch_log_sum_exp_starter, exercise_input(1000)).passed)
      << "the starter's update and combine do nothing: the result must be wrong";
}

}  // namespace
