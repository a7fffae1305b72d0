// The report: table, JSON fields the plot script and runner read, exit codes, fixture sync.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <tuple>
#include <vector>

#include "course/errors.hpp"
#include "course/report.hpp"

namespace {

using nlohmann::json;

const course::LessonCli& test_cli() {
  static course::LessonCli cli("99_test", "a test lesson", {"-l,--length", "number of elements", 1000, 1 << 30});
  static const bool parsed = [] {
    const char* argv[] = {"99_test", "--length", "1000"};
    cli.parse(3, argv);
    return true;
  }();
  (void)parsed;
  return cli;
}

course::VerifyResult passed_check() {
  course::VerifyResult check;
  check.count = 1000;
  check.passed = true;
  return check;
}

course::Report make_report(bool gpu_fails_check) {
  course::Report report(test_cli(), "y = f(x)", {"GB/s", 1e9, "bytes"});
  course::GpuStatus gpu;
  gpu.reason = "no CUDA-capable GPU was found";
  report.set_gpu(gpu);
  report.add_ceiling({"d2d_copy", "a copy", 2000.0, "GB/s"});

  course::Row serial{"CPU, 1 thread", course::Target::cpu, course::Role::cpu_serial};
  serial.time = course::TimingStats::from_samples({10.0});
  serial.work = 8e6;
  serial.check = passed_check();
  report.add(serial);

  course::Row parallel{"CPU, 4 threads", course::Target::cpu, course::Role::cpu_parallel};
  parallel.time = course::TimingStats::from_samples({2.5});
  parallel.work = 8e6;
  parallel.check = passed_check();
  report.add(parallel);

  course::Row kernel{"GPU kernel", course::Target::gpu, course::Role::gpu_kernel};
  kernel.time = course::TimingStats::from_samples({0.004});
  kernel.work = 8e6;
  kernel.ceiling = "d2d_copy";
  kernel.check = passed_check();
  kernel.check->passed = !gpu_fails_check;
  report.add(kernel);

  course::Row skipped{"GPU other", course::Target::gpu};
  skipped.skipped = "not run in this test";
  report.add(skipped);
  return report;
}

TEST(Report, ThroughputEfficiencyAndSpeedups) {
  const course::Report report = make_report(false);
  const json j = report.to_json();
  const json& kernel = j["rows"][2];
  EXPECT_DOUBLE_EQ(kernel["throughput"].get<double>(), 2000.0);  // 8e6 bytes in 4 us
  EXPECT_DOUBLE_EQ(kernel["efficiency"].get<double>(), 1.0);
  EXPECT_DOUBLE_EQ(kernel["speedup_vs_cpu_serial"].get<double>(), 2500.0);
  EXPECT_DOUBLE_EQ(kernel["speedup_vs_cpu_parallel"].get<double>(), 625.0);
  EXPECT_EQ(j["rows"][3]["status"], "skipped");
  EXPECT_TRUE(j["rows"][3]["time_ms"].is_null());
  EXPECT_DOUBLE_EQ(j["summary"]["kernel_efficiency"].get<double>(), 1.0);
  EXPECT_EQ(j["summary"]["gpu_kernel_variant"], "GPU kernel");
  EXPECT_TRUE(j["verified"].get<bool>());
  EXPECT_EQ(report.exit_code(), 0);
}

TEST(Report, AFailedCheckFailsTheRun) {
  const course::Report report = make_report(true);
  EXPECT_FALSE(report.all_checks_passed());
  EXPECT_EQ(report.exit_code(), 1);
  EXPECT_FALSE(report.to_json()["summary"]["verified"].get<bool>());
  std::ostringstream text;
  report.print(text);
  EXPECT_NE(text.str().find("FAILED"), std::string::npos);
  EXPECT_NE(text.str().find("VERIFICATION FAILED"), std::string::npos);
}

TEST(Report, TableShowsSkipsCeilingsAndReasons) {
  std::ostringstream text;
  make_report(false).print(text);
  const std::string table = text.str();
  EXPECT_NE(table.find("skipped: not run in this test"), std::string::npos) << table;
  EXPECT_NE(table.find("none usable: no CUDA-capable GPU was found"), std::string::npos) << table;
  EXPECT_NE(table.find("d2d_copy = 2000 GB/s"), std::string::npos) << table;
  EXPECT_NE(table.find("100.0%"), std::string::npos) << table;
}

TEST(Report, NamesTheHostCpuInTheTableAndTheJson) {
  const course::HostInfo host = course::describe_host();
  EXPECT_FALSE(host.cpu.empty());
  EXPECT_GT(host.logical_cpus, 0u);
  std::ostringstream text;
  make_report(false).print(text);
  EXPECT_NE(text.str().find("  CPU      " + host.one_line() + "; "), std::string::npos) << text.str();
  const json j = make_report(false).to_json();
  EXPECT_EQ(j["host"]["cpu"], host.cpu);
  EXPECT_EQ(j["host"]["logical_cpus"], host.logical_cpus);
}

TEST(Report, ACheckWithoutTimingJoinsTheVerdict) {
  course::Report report = make_report(false);
  course::VerifyResult failed;
  failed.count = 400;
  failed.mismatches = 1;
  report.add_check("a 400-element demo", course::Target::gpu, failed);
  EXPECT_EQ(report.exit_code(), 1);
  const json j = report.to_json();
  EXPECT_EQ(j["rows"].back()["status"], "ok");
  EXPECT_TRUE(j["rows"].back()["time_ms"].is_null());
  EXPECT_FALSE(j["verified"].get<bool>());
  std::ostringstream text;
  report.print(text);
  EXPECT_NE(text.str().find("a 400-element demo"), std::string::npos);
}

TEST(Report, OneRowPerRole) {
  course::Report report = make_report(false);
  EXPECT_THROW(report.add({"again", course::Target::cpu, course::Role::cpu_serial}), std::logic_error);
}

// A library row (Role::gpu_library): every GPU row doing the same work against the same ceiling
// gets its ratio to it, in the table ("vs lib"), the row's JSON and the summary; others do not.
TEST(Report, KernelsAreComparedWithTheLibraryRow) {
  course::Report report = make_report(false);  // GPU kernel: 8e6 bytes in 4 us
  course::Row library{"GPU library", course::Target::gpu, course::Role::gpu_library};
  library.time = course::TimingStats::from_samples({0.005});
  library.work = 8e6;
  library.ceiling = "d2d_copy";
  library.check = passed_check();
  report.add(library);
  course::Row other_work{"GPU copy half", course::Target::gpu};  // different work: no ratio
  other_work.time = course::TimingStats::from_samples({0.002});
  other_work.work = 4e6;
  other_work.ceiling = "d2d_copy";
  report.add(other_work);

  const json j = report.to_json();
  EXPECT_DOUBLE_EQ(j["rows"][2]["vs_library"].get<double>(), 1.25);  // the kernel is 1.25x the library
  EXPECT_TRUE(j["rows"][0]["vs_library"].is_null());                 // a CPU row
  EXPECT_TRUE(j["rows"][3]["vs_library"].is_null());                 // skipped
  EXPECT_TRUE(j["rows"][4]["vs_library"].is_null());                 // the library row itself
  EXPECT_TRUE(j["rows"][5]["vs_library"].is_null());                 // other work
  EXPECT_DOUBLE_EQ(j["summary"]["kernel_vs_library"].get<double>(), 1.25);
  EXPECT_EQ(j["summary"]["gpu_library_variant"], "GPU library");
  std::ostringstream text;
  report.print(text);
  EXPECT_NE(text.str().find("vs lib"), std::string::npos) << text.str();
  EXPECT_NE(text.str().find("1.25x"), std::string::npos) << text.str();

  std::ostringstream without;  // no library row: no column
  make_report(false).print(without);
  EXPECT_EQ(without.str().find("vs lib"), std::string::npos) << without.str();
  EXPECT_TRUE(make_report(false).to_json()["summary"]["kernel_vs_library"].is_null());
}

// In a grouped table the headline line quotes the ratio too, taken within the group.
TEST(Report, GroupedHeadlineQuotesTheLibraryOfItsGroup) {
  course::Report report(test_cli(), "prices", {"GB/s", 1e9, "bytes"});
  report.add_ceiling({"d2d_copy", "a copy", 2000.0, "GB/s"});
  for (const std::string group : {"FP32", "FP64"}) {
    const double kernel_ms = group == "FP32" ? 0.004 : 0.010;
    for (const auto& [name, role, ms] : {std::tuple{"GPU kernel", course::Role::gpu_kernel, kernel_ms},
                                         std::tuple{"GPU library", course::Role::gpu_library, 0.008}}) {
      course::Row row{std::string(name), course::Target::gpu, role};
      row.group = group;
      row.time = course::TimingStats::from_samples({ms});
      row.work = 8e6;
      row.ceiling = "d2d_copy";
      report.add(row);
    }
  }
  const json j = report.to_json();
  EXPECT_DOUBLE_EQ(j["summary"]["groups"][0]["kernel_vs_library"].get<double>(), 2.0);
  EXPECT_DOUBLE_EQ(j["summary"]["groups"][1]["kernel_vs_library"].get<double>(), 0.8);
  std::ostringstream text;
  report.print(text);
  EXPECT_NE(text.str().find("headline [FP32]: GPU kernel: - vs 1 CPU, - vs CPUs, 2.00x vs library"), std::string::npos)
      << text.str();
  EXPECT_NE(text.str().find("headline [FP64]: GPU kernel: - vs 1 CPU, - vs CPUs, 0.80x vs library"), std::string::npos)
      << text.str();
}

TEST(Report, WrittenJsonParsesAndHoldsEveryRequiredField) {
  const std::string path = (std::filesystem::temp_directory_path() / "course_report_test.json").string();
  make_report(false).write_json(path);
  std::ifstream file(path);
  const json j = json::parse(file);
  for (const std::string& field : course::report_json_required_fields()) {
    EXPECT_TRUE(j.contains(json::json_pointer(field))) << "missing " << field;
  }
  std::filesystem::remove(path);
  EXPECT_THROW(make_report(false).write_json("/no/such/folder/x.json"), course::Error);
}

// The plot script is tested on a committed fixture. It must look like what Report writes today:
// every required field present, and rows with the same keys.
TEST(Report, PlotFixtureMatchesTheCurrentFormat) {
  std::ifstream file(std::string(COURSE_FIXTURE_DIR) + "/01_vector_exp_fixture.json");
  ASSERT_TRUE(file) << "fixture missing";
  const json fixture = json::parse(file);
  for (const std::string& field : course::report_json_required_fields()) {
    EXPECT_TRUE(fixture.contains(json::json_pointer(field))) << "fixture lacks " << field;
  }
  const json current = make_report(false).to_json();
  std::vector<std::string> fixture_keys, current_keys;
  for (const auto& item : fixture["rows"][0].items()) fixture_keys.push_back(item.key());
  for (const auto& item : current["rows"][0].items()) current_keys.push_back(item.key());
  EXPECT_EQ(fixture_keys, current_keys);
  EXPECT_EQ(fixture["schema"], current["schema"]);
}

}  // namespace
