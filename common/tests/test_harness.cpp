// The harness runs what a lesson declares: poison -> run -> verify -> time -> row. It must catch
// a variant that writes nothing or writes a wrong value, list GPU variants as skipped without a
// GPU, and keep a row's unit and ceiling.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "course/harness.hpp"
#include "course/kernel_registry.hpp"
#include "gpu_test.hpp"

namespace {

using course::Role;
using course::Target;

const std::vector<std::string> kArgs = {"harness_test", "--length", "1000", "--cpu-reps", "2", "--warmup", "0",
                                        "--reps", "2", "--skip-gpu"};

std::vector<const char*> argv_of(const std::vector<std::string>& args) {
  std::vector<const char*> argv;
  for (const std::string& arg : args) argv.push_back(arg.c_str());
  return argv;
}

struct SquareLesson {
  course::Lesson lesson{"harness_test", "squares", {"-l,--length", "elements", 100, 1 << 20}};
  std::vector<float> x, y;
  course::ReferenceBlock reference;

  explicit SquareLesson(const std::vector<std::string>& args) {
    const auto argv = argv_of(args);
    const auto& options = lesson.parse(static_cast<int>(argv.size()), argv.data());
    x.resize(static_cast<std::size_t>(options.size));
    y.resize(x.size());
    for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i) * 0.5f;
    reference = [this](std::size_t begin, std::size_t end, double* out) {
      for (std::size_t i = begin; i < end; ++i) out[i - begin] = double(x[i]) * double(x[i]);
    };
  }
  course::Check check() { return course::check_host<float>(y, reference, course::Tolerance::exact()); }
};

TEST(Harness, RunsVerifiesAndTimesEachVariant) {
  SquareLesson s(kArgs);
  s.lesson.add({.name = "CPU square", .role = Role::cpu_serial, .work = 8.0 * 1000,
                .run = [&](cudaStream_t) { for (std::size_t i = 0; i < s.x.size(); ++i) s.y[i] = s.x[i] * s.x[i]; },
                .check = s.check()});
  s.lesson.run_variants();
  const auto& rows = s.lesson.report().rows();
  ASSERT_EQ(rows.size(), 1u);
  ASSERT_TRUE(rows[0].check.has_value());
  EXPECT_TRUE(rows[0].check->passed) << rows[0].check->summary();
  ASSERT_TRUE(rows[0].time.has_value());
  EXPECT_EQ(rows[0].time->reps, 2);
  EXPECT_EQ(s.lesson.report().exit_code(), course::kExitOk);
}

TEST(Harness, AVariantThatSkipsAnElementOrIsWrongFails) {
  SquareLesson s(kArgs);
  s.lesson.add({.name = "CPU forgets the last element",
                .run = [&](cudaStream_t) { for (std::size_t i = 0; i + 1 < s.x.size(); ++i) s.y[i] = s.x[i] * s.x[i]; },
                .check = s.check()});
  s.lesson.add({.name = "CPU off by one somewhere",
                .run = [&](cudaStream_t) {
                  for (std::size_t i = 0; i < s.x.size(); ++i) s.y[i] = s.x[i] * s.x[i];
                  s.y[7] += 1.0f;
                },
                .check = s.check()});
  s.lesson.run_variants();
  const auto& rows = s.lesson.report().rows();
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_FALSE(rows[0].check->passed);
  EXPECT_EQ(rows[0].check->nan_count, 1u) << "the poisoned last element must be caught";
  EXPECT_FALSE(rows[1].check->passed);
  EXPECT_EQ(rows[1].check->worst_index, 7u);
  EXPECT_EQ(s.lesson.report().exit_code(), course::kExitVerificationFailed);
}

TEST(Harness, GpuVariantsAreListedAsSkippedWithTheReason) {
  SquareLesson s(kArgs);  // --skip-gpu
  bool ran = false;
  s.lesson.add({.name = "GPU square", .target = Target::gpu, .role = Role::gpu_kernel,
                .run = [&](cudaStream_t) { ran = true; }, .check = s.check()});
  s.lesson.run_variants();
  const auto& rows = s.lesson.report().rows();
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_FALSE(ran);
  EXPECT_EQ(rows[0].skipped, "--skip-gpu");
  EXPECT_EQ(rows[0].role, Role::gpu_kernel) << "a skipped row keeps its role for the summary";
}

TEST(Harness, RowsKeepTheirOwnUnitAndCeilingMustMatchIt) {
  SquareLesson s(kArgs);
  s.lesson.add_ceiling(Target::cpu, [] { return course::Ceiling{"flop_ceiling", "made up", 100.0, "GFLOP/s"}; });
  s.lesson.add({.name = "CPU square", .unit = course::units::gflops(), .work = 1000, .ceiling = "flop_ceiling",
                .run = [&](cudaStream_t) { for (std::size_t i = 0; i < s.x.size(); ++i) s.y[i] = s.x[i] * s.x[i]; },
                .check = s.check()});
  s.lesson.run_variants();
  const course::Row& row = s.lesson.report().rows().at(0);
  EXPECT_EQ(row.unit.name, "GFLOP/s");
  EXPECT_NE(s.lesson.report().row_ceiling(row), nullptr);
  const auto json = s.lesson.report().to_json();
  EXPECT_EQ(json["rows"][0]["unit"], "GFLOP/s");
  EXPECT_EQ(json["size"]["dims"]["length"], 1000);

  course::Row mismatched = row;
  mismatched.unit = course::units::bandwidth();
  EXPECT_THROW(s.lesson.report().row_ceiling(mismatched), std::logic_error) << "GB/s against a GFLOP/s ceiling";
}

TEST(Harness, SkipCpuListsCpuRowsAsSkipped) {
  std::vector<std::string> args = kArgs;
  args.back() = "--skip-cpu";  // instead of --skip-gpu
  if (!course::testing::gpu_test_state().usable) GTEST_SKIP() << "--skip-cpu needs a usable GPU";
  SquareLesson s(args);
  bool ran = false;
  s.lesson.add({.name = "CPU square", .run = [&](cudaStream_t) { ran = true; }, .check = s.check()});
  s.lesson.run_variants();
  EXPECT_FALSE(ran);
  EXPECT_EQ(s.lesson.report().rows().at(0).skipped, "--skip-cpu");
}

// ---- the kernel registry ----------------------------------------------------------------------
using FakeLauncher = int (*)(int);
int one(int v) { return v + 1; }
int two(int v) { return v + 2; }
const course::KernelEntry<FakeLauncher> kFake[] = {{"first", "adds one", {}, one}, {"second", "adds two", {.headline = true}, two}};

TEST(KernelRegistry, SelectsByNameInRegistryOrderOrAll) {
  const std::span<const course::KernelEntry<FakeLauncher>> all = kFake;
  EXPECT_EQ(course::select_kernels(all, {}).size(), 2u);
  EXPECT_EQ(course::select_kernels(all, {"all"}).size(), 2u);
  const auto picked = course::select_kernels(all, {"second", "first"});
  ASSERT_EQ(picked.size(), 2u);
  EXPECT_EQ(picked[0]->name, "first") << "registry order, not command-line order";
  EXPECT_EQ(picked[1]->launch(1), 3);
  EXPECT_EQ(course::kernel_names(all), (std::vector<std::string>{"first", "second"}));
  EXPECT_EQ(course::find_kernel(all, "second").launch(1), 3);
  EXPECT_THROW(course::find_kernel(all, "third"), std::out_of_range);
  try {
    course::select_kernels(all, {"third"});
    FAIL() << "an unknown kernel must be a usage error";
  } catch (const course::UsageError& error) {
    EXPECT_NE(std::string(error.what()).find("first, second, all"), std::string::npos) << error.what();
  }
}

TEST(KernelRegistry, MinimumComputeCapabilityNamesWhatIsMissing) {
  const course::KernelTraits hopper{.min_cc = 90};
  EXPECT_EQ(course::unsupported_reason(hopper, 9, 0), "");
  EXPECT_EQ(course::unsupported_reason(hopper, 10, 0), "");
  EXPECT_EQ(course::unsupported_reason(hopper, 8, 6), "needs compute capability 9.0 or newer (this GPU is 8.6)");
  EXPECT_EQ(course::unsupported_reason({}, 5, 0), "") << "min_cc 0: any GPU";
}

// ---- named dimensions ---------------------------------------------------------------------------
TEST(LessonCliDims, SizeShortcutSetsEveryDimensionUnlessGiven) {
  course::LessonCli cli("dims", "matrix", {{"--m", "rows", 64, 1 << 16}, {"--n", "cols", 64, 1 << 16},
                                          {"--k", "inner", 64, 1 << 16}},
                        "-s,--size", "square size");
  const std::vector<std::string> args = {"dims", "--size", "100", "--k", "7"};
  const auto argv = argv_of(args);
  const auto& options = cli.parse(static_cast<int>(argv.size()), argv.data());
  EXPECT_EQ(options.dim("m"), 100);
  EXPECT_EQ(options.dim("n"), 100);
  EXPECT_EQ(options.dim("k"), 7);
  EXPECT_EQ(options.size, 100);
  EXPECT_THROW((void)options.dim("z"), std::out_of_range);
}

}  // namespace
