// A lesson as a table of experiments: groups, sweeps, setup steps, several outputs, expected
// failures, rows from a registry's traits, and references in long double. Every behaviour is
// checked where a student sees it: the table's text, the JSON and the exit code. CPU variants
// only, so all of it runs without a GPU.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "course/harness.hpp"
#include "course/kernel_registry.hpp"

namespace {

using course::Role;
using course::Target;
using nlohmann::json;

std::vector<const char*> argv_of(const std::vector<std::string>& args) {
  std::vector<const char*> argv;
  for (const std::string& arg : args) argv.push_back(arg.c_str());
  return argv;
}

std::string temp_json(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("course_table_" + name + ".json")).string();
}

// y = 2 x over a few elements, on the CPU; `extra` are flags after the shared ones.
struct Table {
  course::Lesson lesson{"table_test", "doubling", {"-l,--length", "elements", 64, 1 << 20}};
  std::vector<float> x, y, z;
  std::string json_path;

  explicit Table(const std::string& name, std::vector<std::string> extra = {},
                 const std::vector<std::string>& sweeps = {}) {
    for (const std::string& sweep : sweeps) lesson.declare_sweep(sweep, "a sweep of the test");
    json_path = temp_json(name);
    std::vector<std::string> args = {"table_test", "--length", "37", "--cpu-reps", "3", "--warmup", "1",
                                     "--skip-gpu", "--json", json_path};
    args.insert(args.end(), extra.begin(), extra.end());
    const auto argv = argv_of(args);
    lesson.parse(static_cast<int>(argv.size()), argv.data());
    x.resize(37);
    y.resize(37);
    z.resize(37);
    for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i) + 0.25f;
  }
  ~Table() { std::filesystem::remove(json_path); }

  course::ReferenceBlock doubled(double factor = 2) const {
    return [this, factor](std::size_t begin, std::size_t end, double* out) {
      for (std::size_t i = begin; i < end; ++i) out[i - begin] = factor * x[i];
    };
  }
  course::Check check_y() { return course::check_host<float>(y, doubled(), course::Tolerance::exact()); }
  std::function<void(cudaStream_t)> scale_into(std::vector<float>& out, float factor) {
    return [this, &out, factor](cudaStream_t) {
      for (std::size_t i = 0; i < x.size(); ++i) out[i] = factor * x[i];
    };
  }

  struct Outcome {
    int exit_code;
    std::string table;
    json report;
  };
  Outcome finish() {
    ::testing::internal::CaptureStdout();
    const int code = lesson.finish();
    Outcome outcome{code, ::testing::internal::GetCapturedStdout(), {}};
    std::ifstream file(json_path);
    outcome.report = json::parse(file);
    return outcome;
  }
};

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// ---- sweeps -------------------------------------------------------------------------------------
// One point of the sweep writes a wrong value: the table, the JSON and the exit code all say so.
TEST(LessonSweep, AFailedPointFailsTheRunEverywhere) {
  Table t("sweep_fail", {"--sweep", "factor"}, {"factor"});
  t.lesson.add({.name = "CPU 2 x", .role = Role::cpu_serial, .run = t.scale_into(t.y, 2), .check = t.check_y()});
  t.lesson.add_sweep({.name = "factor",
                      .axis = "step",
                      .values = {1, 2, 3},
                      .points = [&](std::int64_t step) {
                        // Step 2 computes 2.5 x instead of 2 x: the one failing point.
                        const float factor = step == 2 ? 2.5f : 2.0f;
                        return std::vector<course::Variant>{{.name = "CPU scaled", .work = 8.0 * 37,
                                                             .run = t.scale_into(t.y, factor), .check = t.check_y()}};
                      },
                      .target = Target::cpu});
  t.lesson.run_variants();
  const auto outcome = t.finish();

  EXPECT_EQ(outcome.exit_code, course::kExitVerificationFailed);
  EXPECT_TRUE(contains(outcome.table, "VERIFICATION FAILED: sweep factor: step 2, CPU scaled")) << outcome.table;
  EXPECT_FALSE(contains(outcome.table, "every result that ran matched")) << outcome.table;
  EXPECT_FALSE(outcome.report["verified"].get<bool>());
  EXPECT_FALSE(outcome.report["summary"]["verified"].get<bool>());
  EXPECT_EQ(outcome.report["exit_code"], 1);
  const json& sweep = outcome.report["sweeps"].at(0);
  EXPECT_EQ(sweep["name"], "factor");
  EXPECT_EQ(sweep["axis"], "step");
  EXPECT_FALSE(sweep["verified"].get<bool>());
  ASSERT_EQ(sweep["points"].size(), 3u);
  EXPECT_TRUE(sweep["points"][0]["check"]["passed"].get<bool>());
  EXPECT_FALSE(sweep["points"][1]["check"]["passed"].get<bool>());
  EXPECT_EQ(sweep["points"][1]["value"], 2);
  EXPECT_TRUE(sweep["points"][2]["time"]["median"].is_number());
  EXPECT_TRUE(sweep["points"][2]["throughput"].is_number());
}

TEST(LessonSweep, RunsOnlyWhenAskedAndIsSkippedWithoutItsTarget) {
  Table t("sweep_gpu", {"--sweep", "blocks"}, {"blocks", "sizes"});
  bool built = false;
  auto points = [&](std::int64_t) {
    built = true;
    return std::vector<course::Variant>{{.name = "GPU", .target = Target::gpu, .run = [](cudaStream_t) {}}};
  };
  t.lesson.add_sweep({.name = "blocks", .axis = "threads", .values = {32, 64}, .points = points});  // GPU
  t.lesson.add_sweep({.name = "sizes", .axis = "n", .values = {1}, .points = points});               // not asked for
  t.lesson.run_variants();
  const auto outcome = t.finish();
  EXPECT_FALSE(built) << "without a GPU the points of a GPU sweep are never built";
  ASSERT_EQ(outcome.report["sweeps"].size(), 1u);
  EXPECT_EQ(outcome.report["sweeps"][0]["status"], "skipped");
  EXPECT_EQ(outcome.report["sweeps"][0]["skip_reason"], "--skip-gpu");
  EXPECT_TRUE(contains(outcome.table, "sweep blocks")) << outcome.table;
  EXPECT_EQ(outcome.exit_code, 0);
}

// The quick mode of the documented commands sets COURSE_SWEEP_MAX_POINTS: a sweep runs its
// first values only, each still verified, and its title says what was left out.
struct SweepLimit {
  explicit SweepLimit(const char* value) { setenv("COURSE_SWEEP_MAX_POINTS", value, 1); }
  ~SweepLimit() { unsetenv("COURSE_SWEEP_MAX_POINTS"); }
};

TEST(LessonSweep, TheEnvironmentsLimitRunsTheFirstValuesOnly) {
  const SweepLimit limit("2");
  Table t("sweep_limit", {"--sweep", "factor"}, {"factor"});
  t.lesson.add({.name = "CPU 2 x", .role = Role::cpu_serial, .run = t.scale_into(t.y, 2), .check = t.check_y()});
  std::vector<std::int64_t> built;
  t.lesson.add_sweep({.name = "factor",
                      .axis = "step",
                      .values = {1, 2, 3, 4},
                      .points = [&](std::int64_t step) {
                        built.push_back(step);
                        // Step 2 is wrong: a limited sweep still verifies what it runs.
                        const float factor = step == 2 ? 2.5f : 2.0f;
                        return std::vector<course::Variant>{{.name = "CPU scaled", .work = 8.0 * 37,
                                                             .run = t.scale_into(t.y, factor), .check = t.check_y()}};
                      },
                      .target = Target::cpu,
                      .title = "doubling at every step"});
  t.lesson.run_variants();
  const auto outcome = t.finish();
  EXPECT_EQ(built, (std::vector<std::int64_t>{1, 2}));
  const json& sweep = outcome.report["sweeps"].at(0);
  ASSERT_EQ(sweep["points"].size(), 2u);
  EXPECT_EQ(sweep["points"][1]["value"], 2);
  EXPECT_EQ(sweep["title"], "doubling at every step (the first 2 of 4 values of step: COURSE_SWEEP_MAX_POINTS)");
  EXPECT_EQ(outcome.exit_code, course::kExitVerificationFailed) << "the failing point ran and failed";
}

TEST(LessonSweep, ALimitAboveTheValuesOrEmptyRunsThemAll) {
  for (const char* value : {"4", "1000000", ""}) {
    SCOPED_TRACE(std::string("COURSE_SWEEP_MAX_POINTS=") + value);
    const SweepLimit limit(value);
    Table t("sweep_no_limit", {"--sweep", "factor"}, {"factor"});
    t.lesson.add_sweep({.name = "factor", .axis = "step", .values = {1, 2, 3, 4},
                        .points = [&](std::int64_t) {
                          return std::vector<course::Variant>{{.name = "CPU scaled", .work = 8.0 * 37,
                                                               .run = t.scale_into(t.y, 2), .check = t.check_y()}};
                        },
                        .target = Target::cpu, .title = "all"});
    t.lesson.run_variants();
    const auto outcome = t.finish();
    EXPECT_EQ(outcome.report["sweeps"].at(0)["points"].size(), 4u);
    EXPECT_EQ(outcome.report["sweeps"].at(0)["title"], "all");
    EXPECT_EQ(outcome.exit_code, 0);
  }
}

TEST(LessonSweep, ALimitThatIsNotAWholeNumberFromOneIsAUsageError) {
  for (const char* value : {"0", "-1", "abc", "3x", "1000001", "99999999999999999999999", "\x1b[31m"}) {
    SCOPED_TRACE(std::string("COURSE_SWEEP_MAX_POINTS=") + value);
    const SweepLimit limit(value);
    course::Lesson lesson{"table_test", "doubling", {"-l,--length", "elements", 64, 1 << 20}};
    const auto argv = argv_of({"table_test", "--skip-gpu"});
    try {
      lesson.parse(static_cast<int>(argv.size()), argv.data());
      ADD_FAILURE() << "accepted";
    } catch (const course::UsageError& error) {
      const std::string message = error.what();
      EXPECT_TRUE(contains(message, "COURSE_SWEEP_MAX_POINTS")) << message;
      EXPECT_EQ(message.find('\x1b'), std::string::npos) << "no raw escape: " << message;
      EXPECT_EQ(message.find('\n'), std::string::npos) << message;
    }
  }
}

TEST(LessonSweep, OneFlagSpellingCheckedAgainstTheDeclaredNames) {
  course::Lesson lesson{"table_test", "doubling", {"-l,--length", "elements", 64, 1 << 20}};
  lesson.declare_sweep("launch", "every launch configuration");
  const auto argv = argv_of({"table_test", "--sweep", "lunch", "--skip-gpu"});
  EXPECT_THROW(lesson.parse(static_cast<int>(argv.size()), argv.data()), course::UsageError);
  course::Lesson other{"table_test", "doubling", {"-l,--length", "elements", 64, 1 << 20}};
  EXPECT_THROW(other.add_sweep({.name = "undeclared", .points = [](std::int64_t) { return std::vector<course::Variant>{}; }}),
               std::logic_error);
}

// ---- several outputs ------------------------------------------------------------------------------
TEST(LessonOutputs, OnlyTheSecondOutputFailsAndTheTableNamesIt) {
  Table t("outputs");
  t.lesson.add({.name = "CPU two outputs",
                .run = [&](cudaStream_t) {
                  t.scale_into(t.y, 2)(nullptr);
                  t.scale_into(t.z, 3)(nullptr);  // should be 2 x as well
                },
                .checks = {{"first", course::check_host<float>(t.y, t.doubled(), course::Tolerance::exact())},
                           {"second", course::check_host<float>(t.z, t.doubled(), course::Tolerance::exact())}}});
  t.lesson.run_variants();
  const auto outcome = t.finish();
  EXPECT_EQ(outcome.exit_code, 1);
  EXPECT_TRUE(contains(outcome.table, "FAILED (second)")) << outcome.table;
  EXPECT_TRUE(contains(outcome.table, "VERIFICATION FAILED: CPU two outputs (second)")) << outcome.table;
  const json& row = outcome.report["rows"][0];
  EXPECT_FALSE(row["verification"]["passed"].get<bool>());
  ASSERT_EQ(row["outputs"].size(), 2u);
  EXPECT_EQ(row["outputs"][0]["name"], "first");
  EXPECT_TRUE(row["outputs"][0]["check"]["passed"].get<bool>());
  EXPECT_EQ(row["outputs"][1]["name"], "second");
  EXPECT_FALSE(row["outputs"][1]["check"]["passed"].get<bool>());
}

TEST(LessonOutputs, AnUnwrittenSecondOutputIsPoisonedAndFails) {
  Table t("outputs_poison");
  for (std::size_t i = 0; i < t.z.size(); ++i) t.z[i] = 2 * t.x[i];  // right values left from before
  t.lesson.add({.name = "CPU forgets z", .run = t.scale_into(t.y, 2),
                .checks = {{"y", course::check_host<float>(t.y, t.doubled(), course::Tolerance::exact())},
                           {"z", course::check_host<float>(t.z, t.doubled(), course::Tolerance::exact())}}});
  t.lesson.run_variants();
  const course::Row& row = t.lesson.report().rows().at(0);
  ASSERT_EQ(row.outputs.size(), 2u);
  EXPECT_TRUE(row.outputs[0].check.passed);
  EXPECT_EQ(row.outputs[1].check.nan_count, t.z.size()) << "z was poisoned before the run";
  EXPECT_EQ(row.failed_outputs(), "z");
}

// ---- groups -------------------------------------------------------------------------------------
TEST(LessonGroups, TheSameRoleInTwoGroupsWithHeadlinesAndSummaryPerGroup) {
  Table t("groups");
  for (const std::string group : {"FP32", "FP64"}) {
    t.lesson.add({.name = "CPU serial " + group, .role = Role::cpu_serial, .group = group, .work = 8.0 * 37,
                  .run = t.scale_into(t.y, 2), .check = t.check_y()});
    t.lesson.add({.name = "CPU kernel " + group, .role = Role::gpu_kernel, .group = group, .work = 8.0 * 37,
                  .run = t.scale_into(t.y, 2), .check = t.check_y()});
  }
  EXPECT_NO_THROW(t.lesson.run_variants());
  const auto outcome = t.finish();
  EXPECT_EQ(outcome.exit_code, 0);
  EXPECT_TRUE(contains(outcome.table, "[FP32]")) << outcome.table;
  EXPECT_TRUE(contains(outcome.table, "[FP64]")) << outcome.table;
  EXPECT_TRUE(contains(outcome.table, "headline [FP64]: CPU kernel FP64")) << outcome.table;
  EXPECT_EQ(outcome.report["rows"][2]["group"], "FP64");
  const json& summary = outcome.report["summary"];
  ASSERT_EQ(summary["groups"].size(), 2u);
  EXPECT_EQ(summary["groups"][0]["name"], "FP32");
  EXPECT_EQ(summary["groups"][1]["name"], "FP64");
  EXPECT_EQ(summary["groups"][1]["gpu_kernel_variant"], "CPU kernel FP64");
  EXPECT_EQ(summary["gpu_kernel_variant"], "CPU kernel FP32") << "the top level keeps the first group's fields";
  EXPECT_TRUE(summary["groups"][1]["kernel_speedup_vs_cpu_serial"].is_number()) << "speedups within the group";

  course::Row again{"CPU serial FP64 again", Target::cpu, Role::cpu_serial};
  again.group = "FP64";
  EXPECT_THROW(t.lesson.report().add(again), std::logic_error) << "roles are unique within a group";
}

// ---- setup steps --------------------------------------------------------------------------------
struct Plan {
  Plan(int id_value, std::vector<int>* destroyed_log) : id(id_value), destroyed(destroyed_log) {}
  ~Plan() { destroyed->push_back(id); }
  Plan(const Plan&) = delete;  // a product need not be movable
  Plan& operator=(const Plan&) = delete;
  int id;
  std::vector<int>* destroyed;
};

TEST(LessonSetup, RunsOnceUntimedAndIsReported) {
  std::vector<int> destroyed;
  int own_setups = 0, shared_setups = 0, runs = 0;
  {
    Table t("setup");
    auto& shared = t.lesson.add_setup("shared tables", [&] {
      ++shared_setups;
      return Plan(2, &destroyed);
    });
    auto& plan = t.lesson.add_setup("", [&] {  // unnamed: the row's own step
      ++own_setups;
      return Plan(1, &destroyed);
    });
    EXPECT_THROW(plan.get(), std::logic_error) << "a product used before its step ran";
    t.lesson.add({.name = "CPU with a plan",
                  .setup = {shared, plan},
                  .run = [&](cudaStream_t) {
                    ++runs;
                    t.scale_into(t.y, static_cast<float>(plan->id + shared->id - 1))(nullptr);
                  },
                  .check = t.check_y()});
    t.lesson.add({.name = "CPU sharing the tables", .setup = {shared}, .run = t.scale_into(t.y, 2),
                  .check = t.check_y()});
    EXPECT_THROW(t.lesson.add({.name = "CPU taking another row's step", .setup = {plan}, .run = t.scale_into(t.y, 2)}),
                 std::logic_error)
        << "an unnamed step belongs to one row";
    t.lesson.run_variants();
    const auto outcome = t.finish();
    EXPECT_EQ(outcome.exit_code, 0) << outcome.table;
    EXPECT_EQ(own_setups, 1);
    EXPECT_EQ(shared_setups, 1) << "a shared step runs once, before the first variant that names it";
    EXPECT_EQ(runs, 1 + 1 + 3) << "verified run, warm-up, 3 timed runs: the setup in none of them";
    EXPECT_TRUE(outcome.report["rows"][0]["setup_ms"].is_number());
    EXPECT_TRUE(outcome.report["rows"][1]["setup_ms"].is_null());
    ASSERT_EQ(outcome.report["setup_steps"].size(), 1u);
    EXPECT_EQ(outcome.report["setup_steps"][0]["name"], "shared tables");
    EXPECT_EQ(outcome.report["setup_steps"][0]["before"], "CPU with a plan");
    EXPECT_TRUE(contains(outcome.table, "setup ms")) << outcome.table;
    EXPECT_TRUE(contains(outcome.table, "setup    shared tables:")) << outcome.table;
    EXPECT_TRUE(destroyed.empty());
  }
  EXPECT_EQ(destroyed, (std::vector<int>{1, 2})) << "the lesson destroys the products, newest step first";
}

TEST(LessonSetup, ASweepPointsStepsGoAfterTheirValue) {
  std::vector<int> destroyed;
  Table t("setup_sweep", {"--sweep", "scale"}, {"scale"});
  t.lesson.add_sweep({.name = "scale", .axis = "factor", .values = {2, 3},
                      .points = [&](std::int64_t value) {
                        auto& plan = t.lesson.add_setup("", [&destroyed, value] { return Plan(static_cast<int>(value), &destroyed); });
                        return std::vector<course::Variant>{{.name = "CPU scaled", .setup = {plan},
                                                             .run = [&t, &plan](cudaStream_t) {
                                                               t.scale_into(t.y, static_cast<float>(plan->id))(nullptr);
                                                             }}};
                      },
                      .target = Target::cpu});
  t.lesson.run_variants();
  EXPECT_EQ(destroyed, (std::vector<int>{2, 3})) << "each value's step is destroyed once its points have run";
}

// ---- expected failures --------------------------------------------------------------------------
TEST(LessonExpectedToFail, AFailureAsExpectedPassesTheRun) {
  Table t("expected_fail");
  t.lesson.add({.name = "CPU naive (teaching)", .run = t.scale_into(t.y, 2.5f), .check = t.check_y(),
                .expected_to_fail = true});
  t.lesson.run_variants();
  const auto outcome = t.finish();
  EXPECT_EQ(outcome.exit_code, 0) << outcome.table;
  EXPECT_TRUE(contains(outcome.table, "failed as expected")) << outcome.table;
  EXPECT_TRUE(outcome.report["verified"].get<bool>());
  EXPECT_TRUE(outcome.report["rows"][0]["expected_to_fail"].get<bool>());
}

TEST(LessonExpectedToFail, AnExpectedFailureThatPassesIsAFailure) {
  Table t("expected_fail_passes");
  t.lesson.add({.name = "CPU naive (teaching)", .run = t.scale_into(t.y, 2), .check = t.check_y(),
                .expected_to_fail = true});
  t.lesson.run_variants();
  const auto outcome = t.finish();
  EXPECT_EQ(outcome.exit_code, 1);
  EXPECT_TRUE(contains(outcome.table, "PASSED, expected to fail")) << outcome.table;
  EXPECT_TRUE(contains(outcome.table, "VERIFICATION FAILED")) << outcome.table;
  EXPECT_FALSE(outcome.report["verified"].get<bool>());
}

TEST(LessonExpectedToFail, NeedsACheck) {
  Table t("expected_fail_unchecked");
  EXPECT_THROW(t.lesson.add({.name = "x", .run = [](cudaStream_t) {}, .expected_to_fail = true}), std::logic_error);
}

// ---- rows from a registry -----------------------------------------------------------------------
using Scale = float (*)(float);
float times_two(float v) { return 2 * v; }
float times_two_slowly(float v) { return v + v; }
float times_three(float v) { return 3 * v; }
constexpr course::KernelEntry<Scale> kScales[] = {
    {"quick", "2 x", {.headline = true}, times_two},
    {"slow", "x + x", {.max_reps = 1}, times_two_slowly},
    {"wrong", "3 x, a teaching row", {.expected_to_fail = true}, times_three},
};

TEST(LessonKernels, OneCallAddsARowPerSelectedKernelWithItsTraits) {
  Table t("kernels");
  const auto chosen = t.lesson.add_kernels(std::span<const course::KernelEntry<Scale>>(kScales), {},
                                           [&](const course::KernelEntry<Scale>& kernel, course::Precision) {
                                             return course::Variant{.name = "CPU " + std::string(kernel.name),
                                                                    .run = [&, scale = kernel.launch](cudaStream_t) {
                                                                      for (std::size_t i = 0; i < t.x.size(); ++i)
                                                                        t.y[i] = scale(t.x[i]);
                                                                    },
                                                                    .check = t.check_y()};
                                           });
  EXPECT_EQ(chosen.size(), 3u);
  t.lesson.run_variants();
  const auto& rows = t.lesson.report().rows();
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].role, Role::gpu_kernel) << "the headline trait";
  EXPECT_EQ(rows[0].time->reps, 3);
  EXPECT_EQ(rows[1].time->reps, 1) << "max_reps caps the timed repetitions";
  EXPECT_TRUE(rows[2].expected_to_fail);
  EXPECT_EQ(t.lesson.report().exit_code(), 0);
  EXPECT_EQ(&course::headline_kernel(std::span<const course::KernelEntry<Scale>>(kScales)), &kScales[0]);
}

template <class T>
using TypedScale = T (*)(T);
template <class T>
T twice(T v) {
  return v + v;
}
template <class T>
T twice_fma(T v) {
  return std::fma(v, T(1), v);
}
using TypedLauncher = course::TypedLauncher<TypedScale>;
constexpr course::KernelEntry<TypedLauncher> kTyped[] = {
    {"twice", "v + v", {.headline = true, .precisions = course::Precisions::both}, {&twice<float>, &twice<double>}},
    {"twice_fma", "fma(v, 1, v)", {.precisions = course::Precisions::f64}, {&twice_fma<float>, &twice_fma<double>}},
};

TEST(LessonKernels, ATypedEntryGivesOneRowPerPrecisionInItsGroup) {
  Table t("typed");
  std::vector<double> y64(t.x.size());
  t.lesson.add_kernels(std::span<const course::KernelEntry<TypedLauncher>>(kTyped), {"all"},
                       [&](const course::KernelEntry<TypedLauncher>& kernel, course::Precision precision) {
                         course::Variant variant{.name = "CPU " + std::string(kernel.name)};
                         if (precision == course::Precision::fp32) {
                           variant.run = [&, f = kernel.launch.get<float>()](cudaStream_t) {
                             for (std::size_t i = 0; i < t.x.size(); ++i) t.y[i] = f(t.x[i]);
                           };
                           variant.check = t.check_y();
                         } else {
                           variant.run = [&, f = kernel.launch.get<double>()](cudaStream_t) {
                             for (std::size_t i = 0; i < t.x.size(); ++i) y64[i] = f(double(t.x[i]));
                           };
                           variant.check = course::check_host<double>(y64, t.doubled(), course::Tolerance::exact());
                         }
                         return variant;
                       });
  t.lesson.run_variants();
  const auto& rows = t.lesson.report().rows();
  ASSERT_EQ(rows.size(), 3u) << "twice in FP32 and FP64, twice_fma in FP64 only";
  EXPECT_EQ(rows[0].group, "FP32");
  EXPECT_EQ(rows[1].group, "FP64");
  EXPECT_EQ(rows[2].group, "FP64");
  EXPECT_EQ(rows[0].role, Role::gpu_kernel);
  EXPECT_EQ(rows[1].role, Role::gpu_kernel) << "one headline per precision, from one registry line";
  EXPECT_EQ(rows[2].role, Role::detail);
  EXPECT_EQ(t.lesson.report().exit_code(), 0);
}

constexpr course::KernelEntry<Scale> kTwoHeadlines[] = {{"a", "", {.headline = true}, times_two},
                                                        {"b", "", {.headline = true}, times_two}};
TEST(LessonKernels, ARegistryWithTwoHeadlinesForOnePrecisionIsAMistake) {
  const std::span<const course::KernelEntry<Scale>> two = kTwoHeadlines;
  EXPECT_THROW(course::headline_kernel(two), std::logic_error);
  EXPECT_THROW(course::headline_kernel(two.first(0)), std::logic_error);
  EXPECT_THROW(course::headline_kernel(std::span<const course::KernelEntry<Scale>>(kScales), course::Precision::fp64),
               std::logic_error);
  EXPECT_EQ(course::promised_ulp({.max_ulp = 2, .ulp_per_abs_input = 1.173}, 5.0, 1), 7.0);  // 2 + floor(5.865)
  EXPECT_EQ(course::promised_ulp({}, 5.0, 1.5), 1.5);
}

// ---- long double references ---------------------------------------------------------------------
// A double result holds a rounding error a double reference cannot see; a long double one can.
TEST(LongReference, MeasuresTheErrorOfADoubleResult) {
  std::vector<double> result(1000);
  std::vector<long double> exact(result.size());
  for (std::size_t i = 0; i < result.size(); ++i) {
    exact[i] = 1.0L / static_cast<long double>(i + 3);
    result[i] = 1.0 / static_cast<double>(i + 3);  // correctly rounded: at most 0.5 ulp
  }
  const course::VerifyResult rounded = course::verify(result, exact, course::Tolerance::ulps(0.5));
  EXPECT_TRUE(rounded.passed) << rounded.summary();
  EXPECT_GT(rounded.max_ulp_error, 0.25) << "the rounding error is visible";
  EXPECT_LE(rounded.max_ulp_error, 0.5);

  result[500] = std::nextafter(std::nextafter(result[500], 1.0), 1.0);  // two ulps up: 1.5 to 2.5 ulp off
  const course::VerifyResult off = course::verify(result, exact, course::Tolerance::ulps(1));
  EXPECT_FALSE(off.passed) << off.summary();
  EXPECT_EQ(off.worst_index, 500u);
  EXPECT_GT(off.max_ulp_error, 1.0);

  result[7] = std::nan("");
  EXPECT_EQ(course::verify(result, course::long_reference_of(exact), course::Tolerance::ulps(2)).nan_count, 1u);
}

}  // namespace
