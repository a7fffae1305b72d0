// Tests of lesson 01: the CPU versions, every GPU kernel at awkward sizes, and checks that fail
// when they should. Suites named Gpu* need a GPU (label gpu); the others run anywhere (cpu).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <stdexcept>
#include <limits>
#include <string>
#include <vector>

#include "course/check.hpp"
#include "course/errors.hpp"
#include "course/device_buffer.hpp"
#include "course/random.hpp"
#include "course/stream.hpp"
#include "exercise_record.hpp"
#include "gpu_test.hpp"
#include "vector_exp.hpp"

namespace {


// Sizes that break sloppy kernels: 1, primes, one around each block boundary, non-multiples of 4.
const std::size_t kSizes[] = {1, 2, 3, 5, 7, 31, 255, 256, 257, 1000, 4099, 65537, 1000003};

std::vector<float> random_input(std::size_t n, std::uint64_t seed) {
  std::vector<float> x(n);
  course::fill_normal(x, seed, 0.0f, 3.0f);  // wider than the lesson's inputs: larger exponents
  return x;
}

TEST(VectorExpCpu, SerialIsWithinOneUlpOfDouble) {
  const std::uint64_t seed = course::fresh_seed();
  for (std::size_t n : kSizes) {
    SCOPED_TRACE("n = " + std::to_string(n) + ", seed = " + std::to_string(seed));
    const auto x = random_input(n, seed);
    std::vector<float> y(n, std::numeric_limits<float>::quiet_NaN());
    vector_exp::exp_serial(x, y);
    const auto check = course::verify(y, vector_exp::exp_reference(x), course::Tolerance::ulps(1));
    EXPECT_TRUE(check.passed) << check.summary();
  }
}

TEST(VectorExpCpu, ParallelEqualsSerialExactly) {
  const auto x = random_input(1000003, course::fresh_seed());
  std::vector<float> serial(x.size()), parallel(x.size(), std::numeric_limits<float>::quiet_NaN());
  vector_exp::exp_serial(x, serial);
  vector_exp::exp_parallel(x, parallel);
  EXPECT_EQ(std::memcmp(serial.data(), parallel.data(), serial.size() * sizeof(float)), 0)
      << "the same function on the same inputs must give the same bits, whatever the thread count";
}

// The SIMD rows, with and without software prefetch: every element written (outputs start as
// NaN), within the 4 ulp glibc promises for libmvec, at lengths that end in a partial vector and
// lengths long enough for the prefetches to run ahead of the loop; all cores give the same bits.
TEST(VectorExpCpu, SimdIsWithinFourUlpAtEveryLength) {
  const std::uint64_t seed = course::fresh_seed();
  for (const auto prefetch : {vector_exp::Prefetch::hardware_only, vector_exp::Prefetch::software}) {
    for (std::size_t n : kSizes) {
      SCOPED_TRACE("n = " + std::to_string(n) + ", seed = " + std::to_string(seed) + ", software prefetch " +
                   (prefetch == vector_exp::Prefetch::software ? "on" : "off"));
      const auto x = random_input(n, seed);
      std::vector<float> serial(n, std::numeric_limits<float>::quiet_NaN()), parallel = serial;
      vector_exp::exp_simd_serial(x, serial, prefetch);
      const auto check = course::verify(serial, vector_exp::exp_reference(x), course::Tolerance::ulps(4));
      EXPECT_TRUE(check.passed) << check.summary();
      vector_exp::exp_simd_parallel(x, parallel, prefetch);
      EXPECT_EQ(std::memcmp(serial.data(), parallel.data(), n * sizeof(float)), 0)
          << "one core and all cores must give the same bits";
    }
  }
}

TEST(VectorExpCpu, SimdSpecialValuesInsideWholeVectors) {
  // 32 elements: two whole AVX-512 vectors, so the special values go through the vector code.
  std::vector<float> x(32, 0.5f);
  x[3] = 0.0f;
  x[9] = 89.0f;     // overflows float: +inf
  x[17] = -110.0f;  // underflows to zero
  x[30] = -std::numeric_limits<float>::infinity();
  std::vector<float> y(x.size(), std::numeric_limits<float>::quiet_NaN());
  vector_exp::exp_simd_serial(x, y);
  EXPECT_EQ(y[3], 1.0f);
  EXPECT_TRUE(std::isinf(y[9]) && y[9] > 0) << y[9];
  EXPECT_EQ(y[17], 0.0f);
  EXPECT_EQ(y[30], 0.0f);
  EXPECT_TRUE(course::verify(y, vector_exp::exp_reference(x), course::Tolerance::ulps(4)).passed);
}

TEST(VectorExpCpu, ClosedFormValues) {
  const std::vector<float> x = {0.0f, 1.0f, -1.0f, std::log(2.0f), 88.0f, -87.0f, 89.0f, -110.0f};
  std::vector<float> y(x.size());
  vector_exp::exp_serial(x, y);
  EXPECT_EQ(y[0], 1.0f) << "exp(0) is exactly 1";
  EXPECT_NEAR(y[1], 2.718281828f, 1e-6f);
  EXPECT_NEAR(y[2], 0.367879441f, 1e-7f);
  EXPECT_NEAR(y[3], 2.0f, 1e-6f);
  EXPECT_TRUE(std::isfinite(y[4]));
  EXPECT_GT(y[5], 0.0f);
  EXPECT_TRUE(std::isinf(y[6])) << "exp(89) overflows float";
  EXPECT_EQ(y[7], 0.0f) << "exp(-110) underflows to zero";
  // The reference agrees, infinities included: verification passes on the full range.
  EXPECT_TRUE(course::verify(y, vector_exp::exp_reference(x), course::Tolerance::ulps(1)).passed);
}

TEST(VectorExpCpu, AWrongOrMissingElementFailsVerification) {
  const auto x = random_input(5000, course::fresh_seed());
  std::vector<float> y(x.size());
  vector_exp::exp_serial(x, y);
  auto wrong = y;
  wrong[4321] = std::nextafter(std::nextafter(wrong[4321], 1e30f), 1e30f);  // 2 ulp off
  EXPECT_FALSE(course::verify(wrong, vector_exp::exp_reference(x), course::Tolerance::ulps(1)).passed);
  auto missing = y;
  missing[17] = std::numeric_limits<float>::quiet_NaN();
  EXPECT_FALSE(course::verify(missing, vector_exp::exp_reference(x), course::Tolerance::ulps(1e6)).passed);
}

TEST(VectorExpCpu, PromisedAccuracy) {
  EXPECT_EQ(vector_exp::promised_ulp("grid_stride_ilp", 50.0), 2.0);
  EXPECT_EQ(vector_exp::promised_ulp("fast_expf", 0.0), 2.0);
  EXPECT_EQ(vector_exp::promised_ulp("fast_expf", 5.0), 7.0);  // 2 + floor(5.865)
  EXPECT_EQ(vector_exp::max_abs(std::vector<float>{1.0f, -4.5f, 2.0f}), 4.5);
}

// Runs `kernel` on x on the GPU (output poisoned first) and returns y.
std::vector<float> run_on_gpu(const std::string& kernel, const std::vector<float>& x,
                              const vector_exp::LaunchConfig& config = {}) {
  course::DeviceBuffer<float> d_x(x.size()), d_y(x.size());
  d_x.copy_from_host(x);
  d_y.poison();
  vector_exp::kernel(kernel).launch(d_x.data(), d_y.data(), x.size(), config, nullptr);
  CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<float> y(x.size());
  d_y.copy_to_host(y);
  return y;
}

void expect_matches_reference(const std::string& kernel, const std::vector<float>& x, const std::vector<float>& y) {
  const double ulp = vector_exp::promised_ulp(kernel, vector_exp::max_abs(x));
  const auto check = course::verify(y, vector_exp::exp_reference(x), course::Tolerance::ulps(ulp));
  EXPECT_TRUE(check.passed) << kernel << ": " << check.summary();
}

}  // namespace

namespace {

// Every kernel in kernels/registry.inc, without naming any: a new kernel is tested as it is added.
class GpuExpKernels : public ::testing::TestWithParam<std::string> {};

TEST_P(GpuExpKernels, MatchReferenceAtAwkwardSizes) {
  COURSE_REQUIRE_GPU_OR_SKIP();
  COURSE_SKIP_IF_UNSUPPORTED(vector_exp::kernel(GetParam()).traits);
  const std::uint64_t seed = course::fresh_seed();
  for (std::size_t n : kSizes) {
    SCOPED_TRACE("n = " + std::to_string(n) + ", seed = " + std::to_string(seed));
    const auto x = random_input(n, seed);
    expect_matches_reference(GetParam(), x, run_on_gpu(GetParam(), x));
  }
}

TEST_P(GpuExpKernels, EveryIlpAndBlockSize) {
  COURSE_REQUIRE_GPU_OR_SKIP();
  COURSE_SKIP_IF_UNSUPPORTED(vector_exp::kernel(GetParam()).traits);
  const auto x = random_input(100003, course::fresh_seed());
  for (int ilp : {1, 2, 4, 8}) {
    for (int block : {32, 100, 256, 1024}) {
      SCOPED_TRACE("ilp " + std::to_string(ilp) + ", block " + std::to_string(block));
      expect_matches_reference(GetParam(), x, run_on_gpu(GetParam(), x, {block, 0, ilp}));
    }
  }
}

// bulk_copy's tile is --tile floats: tiles that are not a multiple of the block's threads, one
// float4 per block, the default and the largest (64 KiB of shared memory, past the 48 KiB opt-in),
// each with partial last tiles (100,003 floats) and tiny arrays.
TEST(GpuBulkCopy, EveryTileSize) {
  COURSE_REQUIRE_GPU_OR_SKIP();
  COURSE_SKIP_IF_UNSUPPORTED(vector_exp::kernel("bulk_copy").traits);
  for (std::size_t n : {std::size_t{1}, std::size_t{7}, std::size_t{4099}, std::size_t{100003}}) {
    const auto x = random_input(n, course::fresh_seed());
    for (int tile : {4, 12, 764, 1024, 3072, 16384}) {
      for (int block : {32, 100, 256}) {
        SCOPED_TRACE("n " + std::to_string(n) + ", tile " + std::to_string(tile) + ", block " + std::to_string(block));
        vector_exp::LaunchConfig config{block, 0, 4};
        config.tile = tile;
        expect_matches_reference("bulk_copy", x, run_on_gpu("bulk_copy", x, config));
      }
    }
  }
}

TEST(BulkCopy, TileOutsideItsRulesIsRefused) {
  // Checked before anything touches the GPU, so it runs without one.
  for (int tile : {0, 6, 16388}) {
    vector_exp::LaunchConfig config;
    config.tile = tile;
    EXPECT_THROW(vector_exp::kernel("bulk_copy").launch(nullptr, nullptr, 8, config, nullptr), std::invalid_argument)
        << "tile " << tile;
  }
}

TEST_P(GpuExpKernels, TinyGridLoopsOverEverything) {
  COURSE_REQUIRE_GPU_OR_SKIP();
  COURSE_SKIP_IF_UNSUPPORTED(vector_exp::kernel(GetParam()).traits);
  // 2 blocks of 32 threads for 100,003 elements: each thread runs the loop ~1,560 times.
  const auto x = random_input(100003, course::fresh_seed());
  expect_matches_reference(GetParam(), x, run_on_gpu(GetParam(), x, {32, 2, 4}));
  expect_matches_reference(GetParam(), x, run_on_gpu(GetParam(), x, {1, 1, 1}));
}

TEST_P(GpuExpKernels, MisalignedPointersStillCorrect) {
  COURSE_REQUIRE_GPU_OR_SKIP();
  COURSE_SKIP_IF_UNSUPPORTED(vector_exp::kernel(GetParam()).traits);
  // Views into the middle of arrays: x + 1 is not 16-byte aligned. Same offset for x and y
  // takes the head/body/tail path of the vector kernels; different offsets their fallback.
  const std::size_t n = 10007;
  const auto x = random_input(n + 8, course::fresh_seed());
  course::DeviceBuffer<float> d_x(x.size()), d_y(x.size());
  d_x.copy_from_host(x);
  for (std::size_t x_offset : {0, 1, 2, 3}) {
    for (std::size_t y_offset : {0, 1, 3}) {
      SCOPED_TRACE("x + " + std::to_string(x_offset) + ", y + " + std::to_string(y_offset));
      d_y.poison();
      vector_exp::kernel(GetParam()).launch(d_x.data() + x_offset, d_y.data() + y_offset, n, {}, nullptr);
      CUDA_CHECK(cudaDeviceSynchronize());
      std::vector<float> all(x.size());
      d_y.copy_to_host(all);
      const std::vector<float> view_x(x.begin() + x_offset, x.begin() + x_offset + n);
      const std::vector<float> view_y(all.begin() + y_offset, all.begin() + y_offset + n);
      expect_matches_reference(GetParam(), view_x, view_y);
      EXPECT_TRUE(std::isnan(all[y_offset + n])) << "wrote past the end of the view";
      if (y_offset > 0) {
        EXPECT_TRUE(std::isnan(all[y_offset - 1])) << "wrote before the start of the view";
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Registry, GpuExpKernels, ::testing::ValuesIn(course::kernel_names(vector_exp::kernels())),
                         course::testing::ParamName());

TEST(VectorExpRegistry, NamesAreUniqueAndSelectable) {
  const auto names = course::kernel_names(vector_exp::kernels());
  ASSERT_GE(names.size(), 4u);
  EXPECT_EQ(names.front(), "one_per_element") << "the progression starts with the one-thread-per-element kernel";
  for (const std::string& name : names) {
    EXPECT_EQ(vector_exp::kernel(name).name, name);
    EXPECT_EQ(course::select_kernels(vector_exp::kernels(), {name}).size(), 1u);
  }
  std::size_t on_request = 0;  // the "make it fast" exercises' kernels (exercises/registry.inc): only by name
  for (const auto& entry : vector_exp::kernels()) on_request += entry.traits.on_request ? 1 : 0;
  EXPECT_GE(on_request, 2u) << "the exercise's starter and solution";
  EXPECT_EQ(course::select_kernels(vector_exp::kernels(), {"all"}).size(), names.size() - on_request);
  EXPECT_EQ(course::select_kernels(vector_exp::kernels(), {}).size(), names.size() - on_request) << "the default run";
  EXPECT_THROW(course::select_kernels(vector_exp::kernels(), {"no_such_kernel"}), course::UsageError);
}


TEST(GpuVectorExp, ClosedFormAndSpecialValues) {
  COURSE_REQUIRE_GPU_OR_SKIP();
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<float> x = {0.0f, 1.0f, std::log(2.0f), -inf, inf, 89.0f, -110.0f};
  const auto y = run_on_gpu("grid_stride_ilp", x);
  EXPECT_EQ(y[0], 1.0f);
  EXPECT_NEAR(y[1], 2.718281828f, 1e-6f);
  EXPECT_NEAR(y[2], 2.0f, 1e-6f);
  EXPECT_EQ(y[3], 0.0f);
  EXPECT_EQ(y[4], inf);
  EXPECT_EQ(y[5], inf);
  EXPECT_EQ(y[6], 0.0f);
  const auto nan = run_on_gpu("grid_stride_ilp", {std::numeric_limits<float>::quiet_NaN()});
  EXPECT_TRUE(std::isnan(nan[0])) << "exp(NaN) is NaN";
}

TEST(GpuVectorExp, ADeliberatelyWrongOrShortResultFails) {
  COURSE_REQUIRE_GPU_OR_SKIP();
  const auto x = random_input(4096, course::fresh_seed());
  course::DeviceBuffer<float> d_x(x.size()), d_y(x.size());
  d_x.copy_from_host(x);
  d_y.poison();
  // Launch for one element too few: the last element stays poisoned (NaN) and must fail.
  vector_exp::launch_grid_stride_ilp(d_x.data(), d_y.data(), x.size() - 1, {}, nullptr);
  CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<float> y(x.size());
  d_y.copy_to_host(y);
  auto check = course::verify(y, vector_exp::exp_reference(x), course::Tolerance::ulps(2));
  EXPECT_FALSE(check.passed);
  EXPECT_EQ(check.nan_count, 1u);
  EXPECT_EQ(check.worst_index, x.size() - 1);

  // A full launch, then one element overwritten on the device with a wrong value.
  vector_exp::launch_grid_stride_ilp(d_x.data(), d_y.data(), x.size(), {}, nullptr);
  const float wrong = 1.0f;
  CUDA_CHECK(cudaMemcpy(d_y.data() + 1234, &wrong, sizeof wrong, cudaMemcpyHostToDevice));
  d_y.copy_to_host(y);
  check = course::verify(y, vector_exp::exp_reference(x), course::Tolerance::ulps(2));
  EXPECT_FALSE(check.passed);
  EXPECT_EQ(check.worst_index, 1234u);
}

TEST(GpuVectorExp, FastIntrinsicIsLessAccurateThanExpf) {
  COURSE_REQUIRE_GPU_OR_SKIP();
  // Inputs up to |x| = 20: __expf's error grows with |x|, expf's does not.
  std::vector<float> x(1 << 16);
  course::fill_uniform(x, course::fresh_seed(), -20.0f, 20.0f);
  const auto accurate = course::verify(run_on_gpu("grid_stride_ilp", x), vector_exp::exp_reference(x),
                                       course::Tolerance::ulps(2));
  const auto fast = course::verify(run_on_gpu("fast_expf", x), vector_exp::exp_reference(x),
                                   course::Tolerance::ulps(vector_exp::promised_ulp("fast_expf", 20.0)));
  EXPECT_TRUE(accurate.passed) << accurate.summary();
  EXPECT_TRUE(fast.passed) << fast.summary();
  EXPECT_LE(accurate.max_ulp_error, 2.0);
  EXPECT_GT(fast.max_ulp_error, accurate.max_ulp_error);
}

}  // namespace

// ---- Exercises: the solution is checked; the starter, as shipped, must fail ----------------
#include "exercises/exercises.hpp"

namespace {

using ExerciseLauncher = void (*)(const float*, float*, std::size_t, cudaStream_t);

course::VerifyResult run_gaussian(ExerciseLauncher launch, const std::vector<float>& x) {
  course::DeviceBuffer<float> d_x(x.size()), d_y(x.size());
  d_x.copy_from_host(x);
  d_y.poison();
  launch(d_x.data(), d_y.data(), x.size(), nullptr);
  CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<float> y(x.size());
  d_y.copy_to_host(y);
  const course::ReferenceBlock reference = [&x](std::size_t begin, std::size_t end, double* out) {
    for (std::size_t i = begin; i < end; ++i) out[i - begin] = std::exp(-0.5 * double(x[i]) * double(x[i]));
  };
  // expf's 2 ulp, plus the rounding of -x*x/2 in float (|x| <= ~15 here): a few ulp more.
  return course::verify(y, reference, course::Tolerance::relative(1e-5, 1e-30));
}

void expect_gaussian_matches(ExerciseLauncher launch) {
  for (std::size_t n : {std::size_t{1}, std::size_t{255}, std::size_t{257}, std::size_t{100003}}) {
    const auto x = random_input(n, course::fresh_seed());
    const auto check = run_gaussian(launch, x);
    ASSERT_TRUE(check.passed) << "n = " << n << ": " << check.summary();
  }
}

TEST(GpuExercise, GaussianSolutionMatches) {
  COURSE_REQUIRE_GPU_OR_SKIP();
  expect_gaussian_matches(vector_exp::exercises::launch_gaussian_solution);
}

// The student's check (./scripts/check_exercise.sh 01 gaussian): DISABLED_ in the default run,
// where the shipped starter fails it.
TEST(GpuExercise, DISABLED_GaussianStarterMatchesTheReference) {
  COURSE_REQUIRE_GPU_OR_SKIP();
  expect_gaussian_matches(vector_exp::exercises::launch_gaussian_starter);
}

TEST(GpuExercise, GaussianStarterAsShippedFailsVerification) {
  COURSE_SKIP_IF_STARTER_EDITED("01_vector_exp", "gaussian");
  COURSE_REQUIRE_GPU_OR_SKIP();
  const auto x = random_input(1000, course::fresh_seed());
  const auto check = run_gaussian(vector_exp::exercises::launch_gaussian_starter, x);
  EXPECT_FALSE(check.passed) << "the empty starter writes nothing: every element should stay poisoned";
  EXPECT_EQ(check.nan_count, x.size());
}

}  // namespace

// ---- Exercise 4: the launch shape of a grid-stride loop (CPU) ------------------------------------

namespace {

using BlocksFn = unsigned (*)(std::size_t, unsigned, unsigned);

// The first thing wrong with blocks_for(n, block, max_blocks), or "" if nothing is: the count
// against its limits, then a CPU run of the grid-stride loop (for lengths small enough to visit)
// that counts how often each element is reached.
std::string launch_shape_problem(BlocksFn blocks_for, std::size_t n, unsigned block, unsigned max_blocks) {
  const unsigned blocks = blocks_for(n, block, max_blocks);
  const std::string where = "n = " + std::to_string(n) + ", block = " + std::to_string(block) +
                            ", max_blocks = " + std::to_string(max_blocks) + ": " + std::to_string(blocks) +
                            " blocks";
  if (blocks > max_blocks) return where + ", more than max_blocks";
  if (n == 0) return blocks == 0 ? "" : where + " for no element (want 0)";
  if (blocks == 0) return where + ": no thread runs, all " + std::to_string(n) + " elements are left out";
  const std::size_t threads = std::size_t{blocks} * block;
  if (blocks < max_blocks && threads < n) {
    return where + " (" + std::to_string(threads) + " threads) could be more: the loop then needs a second pass "
                   "that one element per thread avoids (want ceil(n / block) = " +
           std::to_string(n / block + (n % block != 0)) + ")";
  }
  if (threads >= n + block) return where + ": whole blocks with no element to work on (want ceil(n / block))";
  if (n > (std::size_t{1} << 22)) return "";  // the arithmetic above covers it; the visits are for small n
  std::vector<unsigned char> visits(n, 0);
  for (std::size_t t = 0; t < threads; ++t) {
    for (std::size_t i = t; i < n; i += threads) ++visits[i];  // step 2's loop, thread t
  }
  for (std::size_t i = 0; i < n; ++i) {
    if (visits[i] != 1) {
      return where + ": element " + std::to_string(i) + " is visited " + std::to_string(visits[i]) + " times";
    }
  }
  return "";
}

std::string first_launch_shape_problem(BlocksFn blocks_for) {
  const std::size_t lengths[] = {0,   1,   31,  255,       256,       257,       1000,           4099,
                                 65537, 1000003, (std::size_t{1} << 20) + 3, std::size_t{1} << 40,
                                 (std::size_t{1} << 40) + 1};
  for (const unsigned block : {32u, 128u, 256u, 1024u}) {
    for (const unsigned max_blocks : {1u, 132u * 8u, 1u << 31}) {
      for (const std::size_t n : lengths) {
        std::string problem = launch_shape_problem(blocks_for, n, block, max_blocks);
        if (!problem.empty()) return problem;
      }
    }
  }
  return "";
}

TEST(LaunchShapeExercise, SolutionMatches) {
  const std::string problem = first_launch_shape_problem(vector_exp::exercises::blocks_for_solution);
  EXPECT_TRUE(problem.empty()) << problem;
}

// The student's check (./scripts/check_exercise.sh 01 launch_shape): DISABLED_ in the default run,
// where the shipped starter fails it.
TEST(LaunchShapeExercise, DISABLED_StarterMatches) {
  const std::string problem = first_launch_shape_problem(vector_exp::exercises::blocks_for_starter);
  EXPECT_TRUE(problem.empty()) << problem;
}

TEST(LaunchShapeExercise, StarterAsShippedFails) {
  COURSE_SKIP_IF_STARTER_EDITED("01_vector_exp", "launch_shape");
  EXPECT_FALSE(first_launch_shape_problem(vector_exp::exercises::blocks_for_starter).empty())
      << "the starter passes as shipped: has it been solved?";
}

}  // namespace
