// One table per run, and the same data as JSON.
//
// Teaches: a number without its context is not a result. Each row says what ran, how long it
// took (median of repetitions, with min and max), the throughput in the lesson's unit, the
// fraction of the ceiling measured in the same run, the speedup over the CPU, and whether its
// output matched the reference. The JSON carries the device, CUDA version, date and command
// line, so a plot made from it can say where its numbers came from.
//
// Rows have roles: the course runner's summary takes the single-thread CPU row, the all-cores
// CPU row, the lesson's headline GPU kernel and its end-to-end (with transfers) row. Rows may
// belong to groups ("FP32", "FP64"): roles are unique within a group, speedups are taken
// within it, and the summary has one entry per group. Sweeps (one kernel at every value of an
// axis) are listed after the rows, each point verified like a row, and any failed point fails
// the run exactly as a failed row does: in the table, in the JSON and in the exit code.
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
// gpu_library: the vendor library doing the same work (cuBLAS, cuFFT), where a lesson has one.
enum class Role { detail, cpu_serial, cpu_parallel, gpu_kernel, gpu_end_to_end, gpu_library };
const char* role_name(Role role);  // "cpu_serial", ...: the names in the JSON

// How work turns into throughput: value = work / seconds / scale, printed with `name`.
struct ThroughputUnit {
  ThroughputUnit() = default;  // constructors, not an aggregate: GCC 12 warns (maybe-uninitialized) on
                               // aggregate Variants that leave an aggregate unit out
  ThroughputUnit(std::string unit_name, double unit_scale, std::string unit_work_name)
      : name(std::move(unit_name)), scale(unit_scale), work_name(std::move(unit_work_name)) {}
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

// One named output of a row that checks several (a call price and a put price).
struct OutputResult {
  std::string name;
  VerifyResult check;
};

struct Row {
  Row() = default;
  Row(std::string variant_name, Target row_target, Role row_role = Role::detail)
      : variant(std::move(variant_name)), target(row_target), role(row_role) {}

  std::string variant;
  Target target = Target::cpu;
  Role role = Role::detail;
  std::string group;                   // "" when the lesson has one group; "FP32", "FP64", ...
  std::optional<TimingStats> time;     // absent when the row was skipped or is a check only
  std::optional<double> setup_ms;      // the variant's untimed setup step, when it has one
  ThroughputUnit unit;                 // empty name: the report's default unit
  double work = 0;                     // per run, in unit.work_name
  std::string ceiling;                 // name of the Ceiling this row is held against, or ""
  std::optional<VerifyResult> check;   // absent: not verified (printed as such); with outputs: all of them
  std::vector<OutputResult> outputs;   // several outputs: each one's check (empty for one output)
  bool expected_to_fail = false;       // a teaching row: its check must fail, and passing is the failure
  std::string skipped;                 // non-empty: the row did not run, and why
  std::string note;

  // work / time in `unit`; the row's own unit wins when it has one.
  std::optional<double> throughput(const ThroughputUnit& unit) const;
  const ThroughputUnit& unit_or(const ThroughputUnit& fallback) const { return unit.name.empty() ? fallback : unit; }
  // What the row means for the run: true unless it was verified and came out other than
  // expected (failed, or passed where it was expected to fail).
  bool as_expected() const;
  std::string failed_outputs() const;  // "put" or "call, put": the outputs that failed; "" if none
};

// The combined verdict of several outputs: passed only if every one passed; the details are
// those of the first that failed (or of the first, when all passed).
VerifyResult combine_outputs(const std::vector<OutputResult>& outputs);

// One value of a sweep's axis and one variant run at it.
struct SweepPoint {
  std::int64_t value = 0;
  Row row;
};

// A sweep: one kernel (or a few) at every value of an axis, each point a verified, timed row.
struct SweepResult {
  std::string name;       // as --sweep takes it: "launch"
  std::string axis;       // what the values are: "threads per block"
  std::string title;      // one line above its table ("" for none)
  std::string skipped;    // non-empty: the sweep did not run, and why
  std::vector<SweepPoint> points;
};

// An untimed setup step shared by several variants, run once (Lesson::add_setup).
struct SetupTiming {
  std::string name;
  double ms = 0;
  std::string before;     // the variant it ran for first
};

class Report {
 public:
  Report(const LessonCli& cli, std::string title, ThroughputUnit unit);

  void set_gpu(const GpuStatus& status) { gpu_ = status; }
  void add_ceiling(Ceiling ceiling);
  Row& add(Row row);                     // at most one row per role other than detail, per group
  // A check that belongs in the verdict but has no timing worth comparing (a tiny demo):
  // listed with its verification, and it fails the run like any row if it fails.
  void add_check(const std::string& variant, Target target, VerifyResult check, const std::string& note = "");
  void add_sweep(SweepResult sweep);
  void add_setup(SetupTiming setup);

  const std::vector<Row>& rows() const { return rows_; }
  const std::vector<SweepResult>& sweeps() const { return sweeps_; }
  const std::vector<SetupTiming>& setups() const { return setups_; }
  std::vector<std::string> groups() const;  // in the order of their first row; {""} when there is one
  const Ceiling* find_ceiling(const std::string& name) const;
  const Ceiling* row_ceiling(const Row& row) const;
  const std::vector<Ceiling>& ceilings() const { return ceilings_; }
  void set_title(std::string title) { title_ = std::move(title); }
  const ThroughputUnit& unit() const { return unit_; }
  const Row* find_role(Role role) const;  // in any group: the first row with that role
  const Row* find_role(Role role, const std::string& group) const;
  // How a GPU row compares with its group's library row (Role::gpu_library): the library's
  // median over the row's (above 1: the row is faster). Only for a timed row doing the same
  // work in the same unit, held against the same ceiling (or none, like it) as a timed library
  // row; none otherwise.
  std::optional<double> vs_library(const Row& row) const;
  bool all_checks_passed() const;        // no row and no sweep point came out other than expected
  std::vector<std::string> failures() const;  // what did: "GPU x (put)", "sweep launch: 64, 1 block per SM"
  int exit_code() const;                 // kExitOk or kExitVerificationFailed

  void print(std::ostream& out) const;
  nlohmann::json to_json() const;
  nlohmann::json dims_json() const;
  nlohmann::json row_json(const Row& row) const;
  // Atomically (course/files.hpp): the path holds the whole JSON or what it held before.
  // Throws course::Error if it cannot.
  void write_json(const std::string& path) const;

 private:
  friend class Lesson;  // lesson-specific data comes in through Lesson::record only
  nlohmann::json& extra() { return extra_; }  // lesson-specific data (timelines, demonstrations)

  std::string lesson_, title_, size_name_, command_line_;
  CommonOptions options_;
  ThroughputUnit unit_;
  GpuStatus gpu_;
  std::vector<Ceiling> ceilings_;
  std::vector<Row> rows_;
  std::vector<SweepResult> sweeps_;
  std::vector<SetupTiming> setups_;
  std::vector<std::pair<std::string, std::int64_t>> dims_;
  nlohmann::json extra_ = nlohmann::json::object();

  bool grouped() const;  // the rows have named groups: print them under their names
  struct OptionalColumns {
    bool setup = false;    // "setup ms": some row has a setup step
    bool library = false;  // "vs lib": some row has a library row to compare with
  };
  void print_rows(std::ostream& out, const std::string& group, std::size_t width, OptionalColumns columns) const;
  void print_sweep(std::ostream& out, const SweepResult& sweep) const;
  void print_checks(std::ostream& out) const;
  nlohmann::json summary_json(const std::string& group) const;
  nlohmann::json sweep_json(const SweepResult& sweep) const;
  nlohmann::json gpu_json() const;
  void print_header(std::ostream& out) const;
};

// After a failure that follows write_json (exit code 2 or 3): rewrites the JSON written last
// with that exit code, "verified": false and the error, so it does not claim a success.
// course::run_lesson calls it; it never throws.
void record_failure_in_json(int exit_code, const std::string& error) noexcept;

// The fields the plot script and the course runner read, in order; tests check that a
// written report holds every one of them.
const std::vector<std::string>& report_json_required_fields();

}  // namespace course
