// One table per run, and the same data as JSON.
//
// Teaches: a number without its context is not a result. Each row says what ran, how long it
// took (median of repetitions, with min and max), the throughput in the lesson's unit, the
// fraction of the ceiling measured in the same run, the speedup over the CPU, and whether its
// output matched the reference. The JSON carries the device, CUDA version, date and command
// line, so a plot made from it can say where its numbers came from.
//
// Rows have roles: the course runner's summary takes the single-thread CPU row, the all-cores
// CPU row, the lesson's headline GPU kernel and its end-to-end (with transfers) row.
#pragma once

#include <nlohmann/json.hpp>

#include <iosfwd>
#include <cstdint>
#include <optional>
#include <utility>
#include <string>
#include <vector>

#include "course/ceilings.hpp"
#include "course/cli.hpp"
#include "course/device.hpp"
#include "course/timing.hpp"
#include "course/verify.hpp"

namespace course {

enum class Target { cpu, gpu };
enum class Role { detail, cpu_serial, cpu_parallel, gpu_kernel, gpu_end_to_end };

// How work turns into throughput: value = work / seconds / scale, printed with `name`.
struct ThroughputUnit {
  std::string name;        // "GB/s"
  double scale = 1;        // 1e9
  std::string work_name;   // "bytes"
};

// The units the lessons use. A row's efficiency is its throughput over a ceiling in the same unit.
namespace units {
inline ThroughputUnit bandwidth() { return {"GB/s", 1e9, "bytes"}; }         // bytes read + written
inline ThroughputUnit gflops() { return {"GFLOP/s", 1e9, "flops"}; }         // floating-point operations
// Anything else counted per second, in units of 10^9: items("Gpixel-iter/s", "pixel-iterations").
inline ThroughputUnit items(std::string name, std::string work_name, double scale = 1e9) {
  return {std::move(name), scale, std::move(work_name)};
}
}  // namespace units

struct Row {
  Row() = default;
  Row(std::string variant_name, Target row_target, Role row_role = Role::detail)
      : variant(std::move(variant_name)), target(row_target), role(row_role) {}

  std::string variant;
  Target target = Target::cpu;
  Role role = Role::detail;
  std::optional<TimingStats> time;     // absent when the row was skipped or is a check only
  ThroughputUnit unit;                 // empty name: the report's default unit
  double work = 0;                     // per run, in unit.work_name
  std::string ceiling;                 // name of the Ceiling this row is held against, or ""
  std::optional<VerifyResult> check;   // absent: not verified (printed as such)
  std::string skipped;                 // non-empty: the row did not run, and why
  std::string note;

  // work / time in `unit`; the row's own unit wins when it has one.
  std::optional<double> throughput(const ThroughputUnit& unit) const;
  const ThroughputUnit& unit_or(const ThroughputUnit& fallback) const { return unit.name.empty() ? fallback : unit; }
};

class Report {
 public:
  Report(const LessonCli& cli, std::string title, ThroughputUnit unit);

  void set_gpu(const GpuStatus& status) { gpu_ = status; }
  void add_ceiling(Ceiling ceiling);
  Row& add(Row row);                     // at most one row per role other than detail
  // A check that belongs in the verdict but has no timing worth comparing (a tiny demo):
  // listed with its verification, and it fails the run like any row if it fails.
  void add_check(const std::string& variant, Target target, VerifyResult check, const std::string& note = "");
  // Rows that could not run (no GPU, --skip-gpu): listed with the reason, roles kept.
  void add_skipped(const std::string& variant, Target target, Role role, const std::string& reason);
  nlohmann::json& extra() { return extra_; }  // lesson-specific data (sweeps, timelines)

  const std::vector<Row>& rows() const { return rows_; }
  const Ceiling* find_ceiling(const std::string& name) const;
  const Ceiling* row_ceiling(const Row& row) const;
  const std::vector<Ceiling>& ceilings() const { return ceilings_; }
  void set_title(std::string title) { title_ = std::move(title); }
  const ThroughputUnit& unit() const { return unit_; }
  const Row* find_role(Role role) const;
  bool all_checks_passed() const;        // no verified row failed
  int exit_code() const;                 // kExitOk or kExitVerificationFailed

  void print(std::ostream& out) const;
  nlohmann::json to_json() const;
  nlohmann::json dims_json() const;
  // Atomically (course/files.hpp): the path holds the whole JSON or what it held before.
  // Throws course::Error if it cannot.
  void write_json(const std::string& path) const;

 private:
  std::string lesson_, title_, size_name_, command_line_;
  CommonOptions options_;
  ThroughputUnit unit_;
  GpuStatus gpu_;
  std::vector<Ceiling> ceilings_;
  std::vector<Row> rows_;
  std::vector<std::pair<std::string, std::int64_t>> dims_;
  nlohmann::json extra_ = nlohmann::json::object();
};

// After a failure that follows write_json (exit code 2 or 3): rewrites the JSON written last
// with that exit code, "verified": false and the error, so it does not claim a success.
// course::run_lesson calls it; it never throws.
void record_failure_in_json(int exit_code, const std::string& error) noexcept;

// The fields the plot script and the course runner read, in order; tests check that a
// written report holds every one of them.
const std::vector<std::string>& report_json_required_fields();

}  // namespace course
