// Tests of lesson 04: the CPU versions against the double reference, the verification itself
// (it must fail on a wrong element, a NaN, an unwritten output), every kernel of the registry
// at shapes that are not multiples of any tile, with random inputs against the K-scaled bound
// and with small-integer inputs exactly, and the exercise (the solution passes, the starter as
// shipped fails). The kernel tests iterate kernels/registry.inc: a new kernel is tested without
// editing this file. A product that fails against the reference is recomputed a third way
// (matmul::arbitrate), and the message says which side is wrong and how to replay the seed
// (COURSE_SEED).
// Suites named Gpu* need a GPU (label gpu); the others run anywhere (cpu).
#include <gtest/gtest-spi.h>  // ScopedFakeTestPartResultReporter: a failure message, checked
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "course/check.hpp"
#include "course/cublas_ceiling.hpp"
#include "course/device_buffer.hpp"
#include "course/errors.hpp"
#include "course/random.hpp"
#include "course/stream.hpp"
#include "exercises/exercises.hpp"
#include "exercise_record.hpp"
#include "gpu_test.hpp"
#include "matmul.hpp"
#include "sm_holder.hpp"

namespace {

using matmul::Shape;

// 1, primes, one below and above the tile sizes (8, 16, 32, 64, 128), non-square, K not a
// multiple of 4 (no float4 path) and K a multiple of 4 with M, N odd (float4 with edge tiles).
const Shape kShapes[] = {{1, 1, 1},       {31, 31, 31},   {33, 33, 33},   {1000, 1000, 1000}, {1023, 1023, 1023},
                         {1025, 777, 513}, {7, 129, 1029}, {129, 3, 260},  {257, 255, 17},     {64, 128, 8}};

std::string text(const Shape& s) { return std::to_string(s.m) + "x" + std::to_string(s.n) + "x" + std::to_string(s.k); }

struct Problem {
  Shape shape;
  std::vector<float> a, b;
  matmul::Reference reference;
  std::uint64_t seed = 0;
};

Problem random_problem(const Shape& s, std::uint64_t seed) {
  Problem p{s, std::vector<float>(static_cast<std::size_t>(s.m) * s.k), std::vector<float>(static_cast<std::size_t>(s.k) * s.n), {}, seed};
  course::fill_normal(p.a, seed);
  course::fill_normal(p.b, seed + 1);
  p.reference = matmul::reference_product(p.a, p.b, s.m, s.n, s.k);
  return p;
}

Problem integer_problem(const Shape& s, std::uint64_t seed) {
  Problem p{s, std::vector<float>(static_cast<std::size_t>(s.m) * s.k), std::vector<float>(static_cast<std::size_t>(s.k) * s.n), {}, seed};
  course::fill_small_integers(p.a, seed, -4, 4);
  course::fill_small_integers(p.b, seed + 1, -4, 4);
  p.reference = matmul::reference_product(p.a, p.b, s.m, s.n, s.k);
  return p;
}

// The command that runs this test again with the same inputs.
std::string replay_command(std::uint64_t seed) {
  const ::testing::TestInfo* test = ::testing::UnitTest::GetInstance()->current_test_info();
  return "COURSE_SEED=" + std::to_string(seed) + " ./build/<preset>/bin/04_shared_matmul_tests --gtest_filter='" +
         test->test_suite_name() + "." + test->name() + "'";
}

// `result` against the problem's reference (random inputs, the K-scaled bound). On a failure the
// message adds which side a third computation finds wrong, and how to replay.
void expect_product_matches(std::span<const float> result, const Problem& p) {
  const course::VerifyResult check = matmul::verify_product(result, p.reference);
  if (check.passed) return;
  const Shape& s = p.shape;
  const matmul::Arbitration arbitration = matmul::arbitrate(p.a, p.b, s.m, s.n, s.k, result, p.reference);
  ADD_FAILURE() << text(s) << ", seed " << p.seed << ": " << check.summary() << "\n  " << arbitration.verdict()
                << "\n  replay: " << replay_command(p.seed);
}

// ---- CPU -------------------------------------------------------------------------------------

using CpuFunction = void (*)(std::span<const float>, std::span<const float>, std::span<float>, int, int, int);

void expect_cpu_correct(CpuFunction function, const Shape& s, std::uint64_t seed) {
  SCOPED_TRACE(text(s) + ", seed " + std::to_string(seed));
  const Problem p = random_problem(s, seed);
  std::vector<float> c(static_cast<std::size_t>(s.m) * s.n);
  course::poison(c);
  function(p.a, p.b, c, s.m, s.n, s.k);
  expect_product_matches(c, p);
}

TEST(MatmulCpu, NaiveMatchesTheReference) {
  const std::uint64_t seed = course::fresh_seed();
  for (const Shape& s : {Shape{1, 1, 1}, Shape{31, 31, 31}, Shape{33, 17, 65}, Shape{200, 130, 301}}) {
    expect_cpu_correct(matmul::matmul_naive, s, seed);
  }
}

TEST(MatmulCpu, BlockedMatchesTheReference) {
  const std::uint64_t seed = course::fresh_seed();
  for (const Shape& s : kShapes) expect_cpu_correct(matmul::matmul_blocked, s, seed);
}

TEST(MatmulCpu, OpenBlasMatchesTheReference) {
  const std::uint64_t seed = course::fresh_seed();
  for (const Shape& s : kShapes) expect_cpu_correct(matmul::matmul_openblas, s, seed);
}

TEST(MatmulCpu, SmallIntegerProductsAreExact) {
  const Shape s{65, 33, 1025};
  const Problem p = integer_problem(s, 5);
  for (CpuFunction function : {matmul::matmul_naive, matmul::matmul_blocked, matmul::matmul_openblas}) {
    std::vector<float> c(static_cast<std::size_t>(s.m) * s.n);
    course::poison(c);
    function(p.a, p.b, c, s.m, s.n, s.k);
    const course::VerifyResult check = matmul::verify_exact(c, p.reference.c);
    EXPECT_TRUE(check.passed) << check.summary();
  }
}

// ---- The verification can fail ----------------------------------------------------------------

TEST(MatmulVerify, BoundsScaleWithK) {
  EXPECT_NEAR(matmul::gamma_bound(1), 1.0 / 16777216.0, 1e-14);
  EXPECT_GT(matmul::gamma_bound(4096), 4095.0 / 16777216.0);
  EXPECT_NEAR(matmul::rel_l2_bound(4096) / matmul::rel_l2_bound(1024), 2.0, 1e-12);  // sqrt(K)
}

TEST(MatmulVerify, AWrongElementFails) {
  const Shape s{64, 48, 300};
  const Problem p = random_problem(s, 7);
  std::vector<float> c(static_cast<std::size_t>(s.m) * s.n);
  matmul::matmul_openblas(p.a, p.b, c, s.m, s.n, s.k);
  ASSERT_TRUE(matmul::verify_product(c, p.reference).passed);
  // One element off by a little more than its allowed error: found, though the matrix's norm barely moves.
  const std::size_t i = 1234;
  c[i] = static_cast<float>(p.reference.c[i] + 3 * matmul::gamma_bound(s.k) * p.reference.abs_c[i]);
  const course::VerifyResult check = matmul::verify_product(c, p.reference);
  EXPECT_FALSE(check.passed);
  EXPECT_EQ(check.mismatches, 1u);
  EXPECT_EQ(check.worst_index, i);
}

TEST(MatmulVerify, NaNAndUnwrittenOutputsFail) {
  const Shape s{16, 16, 16};
  const Problem p = random_problem(s, 8);
  std::vector<float> c(static_cast<std::size_t>(s.m) * s.n);
  matmul::matmul_openblas(p.a, p.b, c, s.m, s.n, s.k);
  c[5] = std::numeric_limits<float>::quiet_NaN();
  EXPECT_FALSE(matmul::verify_product(c, p.reference).passed);
  course::poison(c);  // nothing written at all
  const course::VerifyResult check = matmul::verify_product(c, p.reference);
  EXPECT_FALSE(check.passed);
  EXPECT_EQ(check.nan_count, c.size());
}

TEST(MatmulVerify, ReducedPrecisionFailsTheNormBound) {
  // A product computed from inputs rounded to TF32 (10 mantissa bits), as tensor cores would:
  // every element may pass its worst-case bound, but the matrix's relative L2 error is far
  // above what FP32 rounding produces.
  const Shape s{128, 128, 4096};
  const Problem p = random_problem(s, 9);
  auto tf32 = [](float x) {
    std::uint32_t bits;
    std::memcpy(&bits, &x, 4);
    bits = (bits + 0x1000u) & ~0x1FFFu;  // round to 10 mantissa bits
    std::memcpy(&x, &bits, 4);
    return x;
  };
  std::vector<float> a(p.a), b(p.b), c(static_cast<std::size_t>(s.m) * s.n);
  for (float& x : a) x = tf32(x);
  for (float& x : b) x = tf32(x);
  matmul::matmul_openblas(a, b, c, s.m, s.n, s.k);
  const course::VerifyResult check = matmul::verify_product(c, p.reference);
  EXPECT_FALSE(check.passed) << check.summary();
  EXPECT_GT(check.rel_l2_error, 5 * matmul::rel_l2_bound(s.k));
}

// ---- Which side is wrong: the third computation ------------------------------------------------

// A x B over the K terms first .. last-1 only (the others skipped, as by a stale or missing tile).
std::vector<double> product_over(const Problem& p, int first, int last) {
  const Shape& s = p.shape;
  std::vector<double> c(static_cast<std::size_t>(s.m) * s.n, 0.0);
  for (int i = 0; i < s.m; ++i) {
    for (int q = first; q < last; ++q) {
      const double a_iq = p.a[static_cast<std::size_t>(i) * s.k + q];
      for (int j = 0; j < s.n; ++j) c[static_cast<std::size_t>(i) * s.n + j] += a_iq * p.b[static_cast<std::size_t>(q) * s.n + j];
    }
  }
  return c;
}

std::vector<float> to_float(const std::vector<double>& values) { return std::vector<float>(values.begin(), values.end()); }

TEST(MatmulArbitration, ACorruptedResultIsBlamedOnTheResult) {
  const Shape s{96, 80, 1024};
  const Problem p = random_problem(s, 11);
  // The kernel "lost" the last quarter of K: relative L2 error 0.50, as in the one failing run
  // of the vectorized kernel at 1023^3 (docs/04_shared_matmul.md, pitfalls).
  const std::vector<float> lacking = to_float(product_over(p, 0, 3 * s.k / 4));
  const course::VerifyResult check = matmul::verify_product(lacking, p.reference);
  EXPECT_FALSE(check.passed);
  EXPECT_NEAR(check.rel_l2_error, 0.5, 0.03) << "a quarter of K missing from the result";
  const matmul::Arbitration arbitration = matmul::arbitrate(p.a, p.b, s.m, s.n, s.k, lacking, p.reference, 500);
  EXPECT_EQ(arbitration.recomputed, 500u) << "at most the limit";
  EXPECT_EQ(arbitration.result_wrong, arbitration.recomputed);
  EXPECT_EQ(arbitration.reference_wrong, 0u);
  EXPECT_NE(arbitration.verdict().find("the RESULT is wrong"), std::string::npos) << arbitration.verdict();
  // One NaN element: found, recomputed, blamed on the result.
  std::vector<float> good(static_cast<std::size_t>(s.m) * s.n);
  matmul::matmul_openblas(p.a, p.b, good, s.m, s.n, s.k);
  good[4321] = std::numeric_limits<float>::quiet_NaN();
  const matmul::Arbitration one = matmul::arbitrate(p.a, p.b, s.m, s.n, s.k, good, p.reference);
  EXPECT_EQ(one.failing, 1u);
  EXPECT_EQ(one.result_wrong, 1u);
  EXPECT_EQ(one.first_result_wrong, 4321u);
  EXPECT_EQ(one.reference_wrong, 0u);
}

TEST(MatmulArbitration, ACorruptedReferenceIsBlamedOnTheReference) {
  const Shape s{96, 80, 1024};
  const Problem p = random_problem(s, 12);
  std::vector<float> good(static_cast<std::size_t>(s.m) * s.n);
  matmul::matmul_openblas(p.a, p.b, good, s.m, s.n, s.k);
  // The reference "lost" a quarter of K (a BLAS thread's share, say): relative L2 error about
  // 0.58 (sqrt(1/3)), measured against the shorter reference.
  matmul::Reference broken = p.reference;
  broken.c = product_over(p, s.k / 4, s.k);
  const course::VerifyResult check = matmul::verify_product(good, broken);
  EXPECT_FALSE(check.passed);
  EXPECT_NEAR(check.rel_l2_error, std::sqrt(1.0 / 3.0), 0.04);
  const matmul::Arbitration arbitration = matmul::arbitrate(p.a, p.b, s.m, s.n, s.k, good, broken);
  EXPECT_GT(arbitration.recomputed, 0u);
  EXPECT_EQ(arbitration.result_wrong, 0u);
  EXPECT_EQ(arbitration.reference_wrong, arbitration.recomputed);
  EXPECT_NE(arbitration.verdict().find("the REFERENCE is wrong"), std::string::npos) << arbitration.verdict();
  // Both broken (in different quarters): both blamed. Both right: neither.
  const matmul::Arbitration both =
      matmul::arbitrate(p.a, p.b, s.m, s.n, s.k, to_float(product_over(p, 0, 3 * s.k / 4)), broken);
  EXPECT_NE(both.verdict().find("BOTH are wrong"), std::string::npos) << both.verdict();
  const matmul::Arbitration neither = matmul::arbitrate(p.a, p.b, s.m, s.n, s.k, good, p.reference);
  EXPECT_EQ(neither.failing, 0u);
  EXPECT_EQ(neither.result_wrong + neither.reference_wrong, 0u);
  EXPECT_NE(neither.verdict().find("NEITHER"), std::string::npos) << neither.verdict();
}

TEST(MatmulArbitration, TheFailureMessageNamesTheSideAndTheReplay) {
  const Shape s{40, 30, 256};
  const Problem p = random_problem(s, 13);
  const std::vector<float> lacking = to_float(product_over(p, 0, s.k / 2));
  ::testing::TestPartResultArray failures;
  {
    ::testing::ScopedFakeTestPartResultReporter reporter(::testing::ScopedFakeTestPartResultReporter::INTERCEPT_ONLY_CURRENT_THREAD,
                                                         &failures);
    expect_product_matches(lacking, p);
  }
  ASSERT_EQ(failures.size(), 1);
  const std::string message = failures.GetTestPartResult(0).message();
  EXPECT_NE(message.find("seed 13"), std::string::npos) << message;
  EXPECT_NE(message.find("the RESULT is wrong"), std::string::npos) << message;
  EXPECT_NE(message.find("COURSE_SEED=13 "), std::string::npos) << message;
  EXPECT_NE(message.find("--gtest_filter='MatmulArbitration.TheFailureMessageNamesTheSideAndTheReplay'"),
            std::string::npos)
      << message;
}

TEST(MatmulRegistry, NamesAreUniqueAndSelectable) {
  const auto names = course::kernel_names(matmul::kernels());
  ASSERT_GE(names.size(), 2u);
  EXPECT_EQ(names.front(), "naive") << "the progression starts with one thread per element of C";
  for (const std::string& name : names) {
    EXPECT_EQ(matmul::kernel(name).name, name);
    EXPECT_EQ(course::select_kernels(matmul::kernels(), {name}).size(), 1u);
  }
  std::size_t on_request = 0;  // the "make it fast" exercises' kernels (exercises/registry.inc): only by name
  for (const auto& entry : matmul::kernels()) on_request += entry.traits.on_request ? 1 : 0;
  EXPECT_GE(on_request, 2u) << "the exercise's starter and solution";
  EXPECT_EQ(course::select_kernels(matmul::kernels(), {"all"}).size(), names.size() - on_request);
  EXPECT_EQ(course::select_kernels(matmul::kernels(), {}).size(), names.size() - on_request) << "the default run";
  EXPECT_THROW(course::select_kernels(matmul::kernels(), {"no_such_kernel"}), course::UsageError);
  EXPECT_THROW(matmul::kernel("no_such_kernel"), std::out_of_range);
}

// What main, the sweep and matmul_tune read from the registry lines instead of comparing names.
TEST(MatmulRegistry, TraitsNameTheHeadlineAndCapTheSlowKernels) {
  EXPECT_EQ(course::headline_kernel(matmul::kernels()).name, "stream_k") << "the kernel the summary quotes";
  EXPECT_GT(matmul::kernel("naive").traits.max_reps, 0) << "tens of ms per run at 4096^3";
  EXPECT_GT(matmul::kernel("tiled_shared").traits.max_reps, 0);
  EXPECT_EQ(matmul::kernel("cp_async").traits.max_reps, 0);
  EXPECT_FALSE(matmul::kernel("cp_async").traits.tuning.empty()) << "matmul_tune times its neighbours";
  const std::string help = course::kernel_help(matmul::kernels());
  EXPECT_NE(help.find("cp_async"), std::string::npos);
  EXPECT_NE(help.find("(headline)"), std::string::npos) << help;
}

// Kernel 12's table on an H100's 132 SMs (docs/04_shared_matmul.md, section 16): kernel 11 with
// a tile per SM, else the tile and the split that give every SM about 8 warps (one 128 x 128
// block of 8 warps, or two 64 x 64 blocks of 4).
TEST(MatmulSplitK, TheTableFillsTheGpu) {
  using Kind = matmul::SplitKPlan::Kind;
  auto expect = [](int m, int n, int k, Kind kind, int tile, int splits) {
    SCOPED_TRACE(std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k));
    const matmul::SplitKPlan plan = matmul::plan_split_k(m, n, k, 132);
    EXPECT_EQ(plan.kind, kind);
    if (kind != Kind::kWideThread) {
      EXPECT_EQ(plan.tile, tile);
      EXPECT_EQ(plan.splits, splits);
    }
  };
  expect(8192, 8192, 8192, Kind::kWideThread, 128, 1);
  expect(4096, 4096, 1024, Kind::kWideThread, 128, 1);
  expect(2048, 2048, 2048, Kind::kWideThread, 128, 1);
  expect(1024, 1024, 1024, Kind::kTiles128, 128, 2);  // 128 blocks of 8 warps
  expect(512, 512, 512, Kind::kTiles64, 64, 4);       // 256 blocks of 4 warps
  expect(256, 256, 256, Kind::kTiles64, 64, 8);       // 128 blocks: 2 k-steps each, the shortest slice
  expect(256, 256, 16, Kind::kTiles64, 64, 1);        // one k-step: nothing to split
  expect(1, 1, 1, Kind::kTiles64, 64, 1);
  for (int size : {1, 31, 33, 256, 300, 1000, 1600, 3000}) {  // a split never makes more than ~8 warps per SM
    const matmul::SplitKPlan plan = matmul::plan_split_k(size, size, 4 * size, 132);
    if (plan.kind == Kind::kWideThread || plan.splits == 1) continue;
    const long long tiles = static_cast<long long>((size + plan.tile - 1) / plan.tile) * ((size + plan.tile - 1) / plan.tile);
    const int block_warps = plan.tile == 128 ? 8 : 4;
    EXPECT_LE(tiles * plan.splits * block_warps, 8LL * 132) << size;
  }
}

// ---- GPU: every kernel of the registry ---------------------------------------------------------

// Every GPU step of a test goes into one stream, the copies in too. A plain cudaMemcpy from
// pageable memory may return before its last bytes have reached the GPU (CUDA runtime API,
// "API synchronization behavior"), and course::Stream is non-blocking: it does not wait for the
// legacy stream that copy ran in. A kernel launched into it right after such a copy can read
// the end of B before it arrives: the likely cause of the one failure of this test at 1023^3
// (a quarter of K missing from every element; docs/04_shared_matmul.md, pitfalls).
std::vector<float> run_on_gpu(matmul::Launcher launch, const Problem& p) {
  const Shape& s = p.shape;
  course::DeviceBuffer<float> a(p.a.size()), b(p.b.size()), c(static_cast<std::size_t>(s.m) * s.n);
  course::Stream stream;
  a.copy_from_host_async(p.a, stream.get());
  b.copy_from_host_async(p.b, stream.get());
  c.poison(stream.get());
  launch({s.m, s.n, s.k, a.data(), b.data(), c.data()}, stream.get());
  stream.synchronize();
  std::vector<float> result(c.size());
  c.copy_to_host(result);
  return result;
}

class GpuMatmul : public ::testing::TestWithParam<std::string> {
 protected:
  matmul::Launcher launcher() const { return matmul::kernel(GetParam()).launch; }
};

TEST_P(GpuMatmul, AwkwardShapesMatchTheReference) {
  COURSE_REQUIRE_GPU_OR_SKIP();
  const std::uint64_t seed = course::fresh_seed();
  for (const Shape& s : kShapes) {
    SCOPED_TRACE(GetParam() + " at " + text(s) + ", seed " + std::to_string(seed));
    const Problem p = random_problem(s, seed);
    expect_product_matches(run_on_gpu(launcher(), p), p);
  }
}

TEST_P(GpuMatmul, SmallIntegerInputsGiveExactProducts) {
  COURSE_REQUIRE_GPU_OR_SKIP();
  for (const Shape& s : {Shape{1025, 777, 513}, Shape{256, 128, 2048}, Shape{33, 31, 1000}}) {
    SCOPED_TRACE(GetParam() + " at " + text(s));
    const Problem p = integer_problem(s, 3);
    const course::VerifyResult check = matmul::verify_exact(run_on_gpu(launcher(), p), p.reference.c);
    EXPECT_TRUE(check.passed) << check.summary();
  }
}

TEST_P(GpuMatmul, MisalignedPointersFallBackToScalarAccess) {
  COURSE_REQUIRE_GPU_OR_SKIP();
  // K and N multiples of 4, but A starts one float into its buffer: float4 loads would fault.
  const Shape s{130, 132, 68};
  const Problem p = random_problem(s, 4);
  const std::size_t c_count = static_cast<std::size_t>(s.m) * s.n;
  course::DeviceBuffer<float> a(p.a.size() + 1), b(p.b.size()), c(c_count + 1);
  std::vector<float> shifted(p.a.size() + 1, 0.0f);
  std::copy(p.a.begin(), p.a.end(), shifted.begin() + 1);
  course::Stream stream;
  a.copy_from_host_async(shifted, stream.get());
  b.copy_from_host_async(p.b, stream.get());
  c.poison(stream.get());
  launcher()({s.m, s.n, s.k, a.data() + 1, b.data(), c.data() + 1}, stream.get());
  stream.synchronize();
  std::vector<float> all(c_count + 1);
  c.copy_to_host(all);
  const std::vector<float> result(all.begin() + 1, all.end());
  expect_product_matches(result, p);
  EXPECT_TRUE(std::isnan(all[0])) << "wrote before the start of C";
}

INSTANTIATE_TEST_SUITE_P(Registry, GpuMatmul, ::testing::ValuesIn(course::kernel_names(matmul::kernels())),
                         course::testing::ParamName());

// ---- Exercises: the solution is checked; the starter, as shipped, must fail ------------------

void expect_tiled_matches_at_awkward_shapes(matmul::Launcher launch) {
  const std::uint64_t seed = course::fresh_seed();
  for (const Shape& s : kShapes) {
    SCOPED_TRACE("exercise 1 at " + text(s) + ", seed " + std::to_string(seed));
    const Problem p = random_problem(s, seed);
    expect_product_matches(run_on_gpu(launch, p), p);
    if (::testing::Test::HasFailure()) return;  // the first failed shape is the one to read
  }
  const Problem p = integer_problem({1025, 777, 513}, 3);
  const course::VerifyResult exact = matmul::verify_exact(run_on_gpu(launch, p), p.reference.c);
  EXPECT_TRUE(exact.passed) << exact.summary();
}

TEST(GpuExercise, TiledSolutionMatchesAtAwkwardShapes) {
  COURSE_REQUIRE_GPU_OR_SKIP();
  expect_tiled_matches_at_awkward_shapes(matmul::exercises::launch_tiled_solution);
}

// The student's check (./scripts/check_exercise.sh 04 tiled): DISABLED_ in the default run, where
// the shipped starter fails it.
TEST(GpuExercise, DISABLED_TiledStarterMatchesTheReference) {
  COURSE_REQUIRE_GPU_OR_SKIP();
  expect_tiled_matches_at_awkward_shapes(matmul::exercises::launch_tiled_starter);
}

TEST(GpuExercise, TiledStarterAsShippedFails) {
  COURSE_SKIP_IF_STARTER_EDITED("04_shared_matmul", "tiled");
  COURSE_REQUIRE_GPU_OR_SKIP();
  // 16 x 16 threads per block, a kernel that still assumes 32 x 32: rows 16-31 of every 32 are
  // never written and stay poisoned.
  const Problem p = random_problem({64, 64, 64}, course::fresh_seed());
  const course::VerifyResult check =
      matmul::verify_product(run_on_gpu(matmul::exercises::launch_tiled_starter, p), p.reference);
  EXPECT_FALSE(check.passed) << "the starter as shipped should not pass: " << check.summary();
  EXPECT_GE(check.nan_count, p.reference.c.size() / 2) << "the elements the 16 x 16 blocks never reach stay NaN";
}

// ---- Find the bug (tile_barrier): a race on the shared tiles that only racecheck is sure to see ----
// The check runs under racecheck, which slows every shared-memory access a hundredfold: shapes
// small enough for seconds, still awkward (partial tiles, K of one step and of many).
void expect_tile_barrier_matches(matmul::Launcher launch) {
  const std::uint64_t seed = course::fresh_seed();
  for (const Shape& s : {Shape{1, 1, 1}, Shape{31, 31, 31}, Shape{33, 33, 33}, Shape{7, 129, 1029}, Shape{129, 3, 260},
                         Shape{257, 255, 17}, Shape{64, 128, 8}, Shape{96, 80, 100}}) {
    SCOPED_TRACE("tile_barrier at " + text(s) + ", seed " + std::to_string(seed));
    const Problem p = random_problem(s, seed);
    expect_product_matches(run_on_gpu(launch, p), p);
    if (::testing::Test::HasFailure()) return;
  }
}

TEST(GpuExercise, TileBarrierSolutionMatchesTheReference) {
  COURSE_REQUIRE_GPU_OR_SKIP();
  expect_tile_barrier_matches(matmul::exercises::launch_tile_barrier_solution);
}

// The student's check (./scripts/check_exercise.sh 04 tile_barrier runs it under compute-sanitizer
// --tool racecheck, which reports the starter's race whether or not its products come out right).
TEST(GpuExercise, DISABLED_TileBarrierStarterMatchesTheReference) {
  COURSE_REQUIRE_GPU_OR_SKIP();
  expect_tile_barrier_matches(matmul::exercises::launch_tile_barrier_starter);
}

// The starter as shipped, once, results not checked: the test
// 04_shared_matmul.sanitizer.tile_barrier_starter runs this one under racecheck and expects the race.
TEST(GpuExercise, TileBarrierStarterAsShippedRuns) {
  COURSE_SKIP_IF_STARTER_EDITED("04_shared_matmul", "tile_barrier");
  COURSE_REQUIRE_GPU_OR_SKIP();
  const Problem p = random_problem({96, 80, 100}, course::fresh_seed());
  (void)run_on_gpu(matmul::exercises::launch_tile_barrier_starter, p);
}

TEST(GpuCublas, RowMajorSgemmMatchesTheReference) {
  COURSE_REQUIRE_GPU_OR_SKIP();
  course::CublasHandle handle;
  for (const Shape& s : {Shape{1025, 777, 513}, Shape{1, 31, 33}}) {
    SCOPED_TRACE(text(s));
    const Problem p = random_problem(s, 6);
    course::DeviceBuffer<float> a(p.a.size()), b(p.b.size()), c(static_cast<std::size_t>(s.m) * s.n);
    course::Stream stream;
    a.copy_from_host_async(p.a, stream.get());
    b.copy_from_host_async(p.b, stream.get());
    c.poison(stream.get());
    course::sgemm_row_major(handle, s.m, s.n, s.k, a.data(), b.data(), c.data(), stream.get());
    stream.synchronize();
    std::vector<float> result(c.size());
    c.copy_to_host(result);
    expect_product_matches(result, p);
  }
}

TEST(GpuCublas, CeilingIsPositive) {
  COURSE_REQUIRE_GPU_OR_SKIP();
  const course::Ceiling ceiling = course::measure_cublas_sgemm(256, 256, 256, {1, 3});
  EXPECT_EQ(ceiling.name, "cublas_sgemm");
  EXPECT_EQ(ceiling.unit, "GFLOP/s");
  EXPECT_GT(ceiling.value, 0);
}

}  // namespace

// stream_k shares a tile between blocks when the k-steps do not divide evenly: at 300 x 260 x
// 3000 (6 tiles of 94 k-steps for a grid of hundreds of blocks) every tile is summed by dozens of
// blocks in turn. Their order is fixed (highest block first), so two runs agree bit for bit.
TEST(GpuStreamK, SharedTilesAreSummedInAFixedOrder) {
  COURSE_REQUIRE_GPU_OR_SKIP();
  for (const Shape& s : {Shape{300, 260, 3000}, Shape{1600, 1600, 1600}, Shape{129, 4, 9}}) {
    SCOPED_TRACE("stream_k at " + text(s));
    const Problem p = random_problem(s, 11);
    const std::vector<float> first = run_on_gpu(matmul::launch_stream_k, p);
    const std::vector<float> second = run_on_gpu(matmul::launch_stream_k, p);
    expect_product_matches(first, p);
    EXPECT_EQ(0, std::memcmp(first.data(), second.data(), first.size() * sizeof(float))) << "two runs differ";
  }
}

// stream_k's blocks wait for each other, so all of them must be resident at once. Here another
// kernel of this process holds half of the SMs (one block per SM, all of its shared memory) while
// stream_k is launched: the cooperative launch either starts the whole grid (now, or when the
// holder lets go) and the product is right, or refuses with a one-line error naming the kernel.
// A hang is the failure. Everything is time-bounded: the holder lets go by itself after 20 s,
// and the test gives up (exit 1, not a hang) if stream_k has not finished 50 s after that.
TEST(GpuExclusiveStreamK, FinishesOrRefusesWhileAnotherKernelHoldsHalfTheGpu) {
  COURSE_REQUIRE_GPU_OR_SKIP();
  using namespace std::chrono_literals;
  int device = 0, sms = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  for (const Shape& s : {Shape{1600, 1600, 1600}, Shape{300, 260, 3000}}) {
    SCOPED_TRACE("stream_k at " + text(s) + " beside a kernel holding " + std::to_string(std::max(1, sms / 2)) + " SMs");
    const Problem p = random_problem(s, 13);
    course::DeviceBuffer<float> a(p.a.size()), b(p.b.size()), c(static_cast<std::size_t>(s.m) * s.n);
    course::Stream stream;
    a.copy_from_host_async(p.a, stream.get());
    b.copy_from_host_async(p.b, stream.get());
    c.poison(stream.get());
    stream.synchronize();

    matmul::testing::SmHolder holder(std::max(1, sms / 2), 20000);
    const bool held = holder.wait_started(5000ms);
    bool refused = false;
    try {
      matmul::launch_stream_k({s.m, s.n, s.k, a.data(), b.data(), c.data()}, stream.get());
    } catch (const course::ResourceError& error) {
      refused = true;
      EXPECT_NE(std::string(error.what()).find("stream_k_kernel"), std::string::npos) << error.what();
      EXPECT_EQ(std::string(error.what()).find('\n'), std::string::npos) << "one line: " << error.what();
    }
    if (refused) continue;
    const bool finished_while_held = matmul::testing::wait_for_stream(stream.get(), 2000ms);
    holder.release();
    if (!finished_while_held && !matmul::testing::wait_for_stream(stream.get(), 50000ms)) {
      ADD_FAILURE() << "stream_k has not finished 50 s after the other kernel let go: it hangs";
      std::cerr << "GpuExclusiveStreamK: stream_k hangs; exiting instead of waiting for it" << std::endl;
      std::fflush(nullptr);
      std::_Exit(1);
    }
    std::cout << "  stream_k at " << text(s) << ": " << (finished_while_held ? "finished while" : "finished after")
              << " the other kernel held " << holder.blocks() << " SMs" << (held ? "" : " (not all of its blocks started)")
              << "\n";
    std::vector<float> result(c.size());
    c.copy_to_host(result);
    expect_product_matches(result, p);
  }
}

// split_k at shapes around and off its tiles (1, 31, 33, 255, 257, 513, non-square), most of
// them split (256^3: 8 slices of 64 x 64 tiles; 1024^3: 2 slices of 128 x 128; K = 9: one
// slice): each matches the reference, and two runs give the same bits, since the last block of
// a tile sums its slices in slice order whichever block that is.
TEST(GpuSplitK, MatchesTheReferenceAndRepeatsBitForBit) {
  COURSE_REQUIRE_GPU_OR_SKIP();
  const std::uint64_t seed = course::fresh_seed();
  const Shape shapes[] = {{1, 1, 1},       {31, 31, 31},     {33, 33, 33},     {255, 255, 255}, {256, 256, 256},
                          {257, 257, 257}, {512, 512, 512},  {513, 513, 513},  {300, 70, 513},  {513, 257, 255},
                          {96, 640, 1000}, {5, 300, 2050},   {300, 260, 3000}, {129, 4, 9},     {1024, 1024, 1024}};
  for (const Shape& s : shapes) {
    SCOPED_TRACE("split_k at " + text(s) + ", seed " + std::to_string(seed));
    const Problem p = random_problem(s, seed);
    const std::vector<float> first = run_on_gpu(matmul::launch_split_k, p);
    const std::vector<float> second = run_on_gpu(matmul::launch_split_k, p);
    expect_product_matches(first, p);
    EXPECT_EQ(0, std::memcmp(first.data(), second.data(), first.size() * sizeof(float))) << "two runs differ";
  }
}

// ---- Exercise 2: kernel 02's tiling on the CPU ---------------------------------------------------

namespace {

// Shapes that are and are not multiples of the 16 x 16 tile; the first failed one is the one to read.
void expect_cpu_tiled_matches(CpuFunction tiled) {
  const std::uint64_t seed = course::fresh_seed();
  for (const Shape& s : {Shape{1, 1, 1}, Shape{16, 16, 16}, Shape{64, 32, 48}, Shape{31, 31, 31}, Shape{33, 17, 65},
                         Shape{7, 129, 260}, Shape{129, 3, 17}}) {
    expect_cpu_correct(tiled, s, seed);
    if (::testing::Test::HasFailure()) return;
  }
}

TEST(CpuTiledExercise, SolutionMatches) { expect_cpu_tiled_matches(matmul::exercises::matmul_tiled_cpu_solution); }

// The student's check (./scripts/check_exercise.sh 04 cpu_tiled): DISABLED_ in the default run,
// where the shipped starter fails it.
TEST(CpuTiledExercise, DISABLED_StarterMatches) {
  expect_cpu_tiled_matches(matmul::exercises::matmul_tiled_cpu_starter);
}

TEST(CpuTiledExercise, StarterAsShippedFails) {
  COURSE_SKIP_IF_STARTER_EDITED("04_shared_matmul", "cpu_tiled");
  // K = 31: the second tile along K holds 15 columns of A and the previous tile's 16th.
  const Problem p = random_problem({31, 31, 31}, course::fresh_seed());
  std::vector<float> c(31 * 31);
  course::poison(c);
  matmul::exercises::matmul_tiled_cpu_starter(p.a, p.b, c, 31, 31, 31);
  EXPECT_FALSE(matmul::verify_product(c, p.reference).passed) << "the starter passes as shipped: has it been solved?";
}

}  // namespace
