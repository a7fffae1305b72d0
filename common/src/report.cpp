// The run's table and its JSON twin.
#include "course/report.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <stdexcept>

#include "course/device.hpp"
#include "course/errors.hpp"
#include "course/files.hpp"
#include "course/format.hpp"

namespace course {

namespace {

std::string utc_now() {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

std::string cuda_version_text(int version) {
  return std::to_string(version / 1000) + "." + std::to_string((version % 1000) / 10);
}

std::string format_speedup(double speedup) {
  char text[32];
  std::snprintf(text, sizeof text, speedup >= 100 ? "%.0fx" : (speedup >= 10 ? "%.1fx" : "%.2fx"), speedup);
  return text;
}

std::string format_throughput(double value, const std::string& unit) {
  char text[48];
  std::snprintf(text, sizeof text, value >= 100 ? "%.0f %s" : (value >= 10 ? "%.1f %s" : "%.3g %s"), value,
                unit.c_str());
  return text;
}

nlohmann::json optional_number(std::optional<double> value) {
  return value && std::isfinite(*value) ? nlohmann::json(*value) : nlohmann::json(nullptr);
}

nlohmann::json verification_json(const VerifyResult& check) {
  return {{"passed", check.passed},
          {"count", check.count},
          {"mismatches", check.mismatches},
          {"nan_count", check.nan_count},
          {"inf_count", check.inf_count},
          {"max_abs_error", check.max_abs_error},
          {"max_rel_error", std::isfinite(check.max_rel_error) ? nlohmann::json(check.max_rel_error) : nullptr},
          {"rel_l1_error", check.rel_l1_error},
          {"rel_l2_error", check.rel_l2_error},
          {"max_ulp_error", check.max_ulp_error},
          {"worst_index", check.worst_index},
          {"tolerance", check.tolerance_text},
          {"allowed_mismatches", check.allowed_mismatches},
          {"summary", check.summary()}};
}

}  // namespace

const char* role_name(Role role) {
  switch (role) {
    case Role::detail: return "detail";
    case Role::cpu_serial: return "cpu_serial";
    case Role::cpu_parallel: return "cpu_parallel";
    case Role::gpu_kernel: return "gpu_kernel";
    case Role::gpu_end_to_end: return "gpu_end_to_end";
    case Role::gpu_library: return "gpu_library";
  }
  return "detail";
}


namespace {

std::string check_cell(const Row& row) {
  if (!row.check) return "-";
  if (row.expected_to_fail) return row.check->passed ? "PASSED, expected to fail" : "failed as expected";
  if (row.check->passed) return "ok";
  const std::string outputs = row.failed_outputs();
  return outputs.empty() ? "FAILED" : "FAILED (" + outputs + ")";
}

// "GPU x", "GPU x (put)", "GPU x (passed, expected to fail)": a row that failed the run.
std::string failure_text(const std::string& label, const Row& row) {
  if (row.expected_to_fail) return label + " (passed, expected to fail)";
  const std::string outputs = row.failed_outputs();
  return outputs.empty() ? label : label + " (" + outputs + ")";
}

std::string point_label(const SweepResult& sweep, const SweepPoint& point) {
  return "sweep " + sweep.name + ": " + sweep.axis + " " + std::to_string(point.value) + ", " + point.row.variant;
}

nlohmann::json time_json(const std::optional<TimingStats>& time) {
  if (!time) return nullptr;
  return {{"median", time->median_ms}, {"min", time->min_ms}, {"max", time->max_ms}, {"mean", time->mean_ms},
          {"reps", time->reps}};
}

nlohmann::json outputs_json(const Row& row) {
  nlohmann::json outputs = nlohmann::json::array();
  for (const OutputResult& output : row.outputs) {
    outputs.push_back({{"name", output.name}, {"check", verification_json(output.check)}});
  }
  return outputs;
}

std::optional<double> speedup(const Row* base, const Row& row) {
  if (!base || !base->time || !row.time || row.time->median_ms <= 0) return std::nullopt;
  return base->time->median_ms / row.time->median_ms;
}

}  // namespace

std::optional<double> Row::throughput(const ThroughputUnit& fallback) const {
  if (!time || time->median_ms <= 0 || work <= 0) return std::nullopt;
  return work / (time->median_ms * 1e-3) / unit_or(fallback).scale;
}

bool Row::as_expected() const {
  if (!check) return true;
  return expected_to_fail ? !check->passed : check->passed;
}

std::string Row::failed_outputs() const {
  std::string names;
  for (const OutputResult& output : outputs) {
    if (!output.check.passed) names += (names.empty() ? "" : ", ") + output.name;
  }
  return names;
}

VerifyResult combine_outputs(const std::vector<OutputResult>& outputs) {
  if (outputs.empty()) throw std::logic_error("combine_outputs: no outputs to combine");
  const auto failed = std::find_if(outputs.begin(), outputs.end(), [](const OutputResult& o) { return !o.check.passed; });
  VerifyResult combined = failed == outputs.end() ? outputs.front().check : failed->check;
  combined.passed = failed == outputs.end();
  return combined;
}

Report::Report(const LessonCli& cli, std::string title, ThroughputUnit unit)
    : lesson_(cli.name()),
      title_(std::move(title)),
      size_name_(cli.size_name()),
      command_line_(cli.command_line()),
      options_(cli.options()),
      unit_(std::move(unit)),
      dims_(cli.options().dims) {}

void Report::add_ceiling(Ceiling ceiling) { ceilings_.push_back(std::move(ceiling)); }

Row& Report::add(Row row) {
  if (row.role != Role::detail && find_role(row.role, row.group)) {
    throw std::logic_error(std::string("Report::add: a second row with role ") + role_name(row.role) +
                           (row.group.empty() ? "" : " in group " + row.group) + " ('" + row.variant + "')");
  }
  rows_.push_back(std::move(row));
  return rows_.back();
}

void Report::add_check(const std::string& variant, Target target, VerifyResult check, const std::string& note) {
  Row row;
  row.variant = variant;
  row.target = target;
  row.check = std::move(check);
  row.note = note;
  add(std::move(row));
}

void Report::add_sweep(SweepResult sweep) { sweeps_.push_back(std::move(sweep)); }
void Report::add_setup(SetupTiming setup) { setups_.push_back(std::move(setup)); }

nlohmann::json Report::dims_json() const {
  nlohmann::json dims = nlohmann::json::object();
  for (const auto& [name, value] : dims_) dims[name] = value;
  return dims;
}

// The ceiling a row is held against, when it was measured and is in the row's unit.
const Ceiling* Report::row_ceiling(const Row& row) const {
  if (row.ceiling.empty()) return nullptr;
  const Ceiling* ceiling = find_ceiling(row.ceiling);
  if (!ceiling) return nullptr;
  if (ceiling->unit != row.unit_or(unit_).name) {
    throw std::logic_error("row '" + row.variant + "' in " + row.unit_or(unit_).name + " held against ceiling " +
                           ceiling->name + " in " + ceiling->unit);
  }
  return ceiling;
}

const Ceiling* Report::find_ceiling(const std::string& name) const {
  for (const Ceiling& ceiling : ceilings_) {
    if (ceiling.name == name) return &ceiling;
  }
  return nullptr;
}

const Row* Report::find_role(Role role) const {
  for (const Row& row : rows_) {
    if (row.role == role) return &row;
  }
  return nullptr;
}

const Row* Report::find_role(Role role, const std::string& group) const {
  for (const Row& row : rows_) {
    if (row.role == role && row.group == group) return &row;
  }
  return nullptr;
}

std::optional<double> Report::vs_library(const Row& row) const {
  const Row* library = find_role(Role::gpu_library, row.group);
  if (!library || &row == library || row.target != Target::gpu || row.work <= 0) return std::nullopt;
  if (row.ceiling != library->ceiling || row.work != library->work) return std::nullopt;
  if (row.unit_or(unit_).name != library->unit_or(unit_).name) return std::nullopt;
  return speedup(library, row);
}

std::vector<std::string> Report::groups() const {
  std::vector<std::string> names;
  for (const Row& row : rows_) {
    if (std::find(names.begin(), names.end(), row.group) == names.end()) names.push_back(row.group);
  }
  if (names.empty()) names.emplace_back();
  return names;
}

bool Report::grouped() const {
  const auto names = groups();
  return names.size() > 1 || !names.front().empty();
}

std::vector<std::string> Report::failures() const {
  std::vector<std::string> failed;
  for (const Row& row : rows_) {
    if (!row.as_expected()) failed.push_back(failure_text(row.variant, row));
  }
  for (const SweepResult& sweep : sweeps_) {
    for (const SweepPoint& point : sweep.points) {
      if (!point.row.as_expected()) failed.push_back(failure_text(point_label(sweep, point), point.row));
    }
  }
  return failed;
}

bool Report::all_checks_passed() const { return failures().empty(); }

int Report::exit_code() const { return all_checks_passed() ? kExitOk : kExitVerificationFailed; }

void Report::print_header(std::ostream& out) const {
  out << "\n" << lesson_ << ": " << title_ << "\n";
  if (gpu_.usable && gpu_.device) {
    out << "  GPU      " << gpu_.device->one_line() << "\n";
  } else {
    out << "  GPU      none usable: " << gpu_.reason << "\n";
  }
  out << "  CPU      " << describe_host().one_line() << "; " << options_.cpu_threads() << " OpenMP threads\n";
  out << "  timing   GPU: median of " << options_.reps << " after " << options_.warmup << " warm-up runs, L2 "
      << (options_.flush_l2 ? "flushed before each" : "left warm") << "; CPU: median of " << options_.cpu_reps
      << "\n";
  for (const Ceiling& ceiling : ceilings_) {
    out << "  ceiling  " << ceiling.name << " = " << format_throughput(ceiling.value, ceiling.unit) << "  ("
        << ceiling.description << ")\n";
  }
  for (const SetupTiming& setup : setups_) {
    out << "  setup    " << setup.name << ": " << format_ms(setup.ms) << " ms, untimed, before " << setup.before << "\n";
  }
}

void Report::print(std::ostream& out) const {
  print_header(out);
  std::size_t width = 8;
  bool setup_column = false, library_column = false;
  for (const Row& row : rows_) {
    width = std::max(width, row.variant.size());
    setup_column = setup_column || row.setup_ms.has_value();
    library_column = library_column || vs_library(row).has_value();
  }
  out << "\n  " << std::left << std::setw(static_cast<int>(width)) << "variant" << std::right << std::setw(11)
      << "median ms" << std::setw(10) << "min ms" << std::setw(10) << "max ms";
  if (setup_column) out << std::setw(10) << "setup ms";
  out << std::setw(18) << "throughput" << std::setw(9) << "of ceil" << std::setw(10) << "vs 1 CPU" << std::setw(10)
      << "vs CPUs";
  if (library_column) out << std::setw(9) << "vs lib";
  out << "  check\n";
  for (const std::string& group : groups()) {
    if (grouped()) out << "  [" << (group.empty() ? "other rows" : group) << "]\n";
    print_rows(out, group, width, {.setup = setup_column, .library = library_column});
  }
  if (grouped()) {
    for (const std::string& group : groups()) {
      const Row* kernel = find_role(Role::gpu_kernel, group);
      if (!kernel || !kernel->time) continue;
      const auto ratio = [&](Role role) {
        const auto value = speedup(find_role(role, group), *kernel);
        return value ? format_speedup(*value) : std::string("-");
      };
      const auto library = vs_library(*kernel);
      out << "  headline [" << group << "]: " << kernel->variant << ": " << ratio(Role::cpu_serial) << " vs 1 CPU, "
          << ratio(Role::cpu_parallel) << " vs CPUs"
          << (library ? ", " + format_speedup(*library) + " vs library" : std::string()) << "\n";
    }
  }
  for (const SweepResult& sweep : sweeps_) print_sweep(out, sweep);
  print_checks(out);
  for (const Row& row : rows_) {
    if (!row.note.empty()) out << "  note: " << row.variant << ": " << row.note << "\n";
  }
  const std::vector<std::string> failed = failures();
  std::size_t as_expected = 0;
  for (const Row& row : rows_) as_expected += row.expected_to_fail && row.check && !row.check->passed ? 1 : 0;
  out << "\n  result: ";
  if (failed.empty()) {
    out << "every result that ran matched its reference";
    if (as_expected > 0) out << " (" << as_expected << " teaching row(s) failed as expected)";
  } else {
    out << "VERIFICATION FAILED: ";
    for (std::size_t i = 0; i < failed.size(); ++i) out << (i ? "; " : "") << failed[i];
  }
  out << "\n";
}

void Report::print_rows(std::ostream& out, const std::string& group, std::size_t width, OptionalColumns columns) const {
  const bool setup_column = columns.setup;
  const Row* serial = find_role(Role::cpu_serial, group);
  const Row* parallel = find_role(Role::cpu_parallel, group);
  for (const Row& row : rows_) {
    if (row.group != group) continue;
    out << "  " << std::left << std::setw(static_cast<int>(width)) << row.variant << std::right;
    if (!row.time && !row.skipped.empty()) {
      out << "  skipped: " << row.skipped << "\n";
      continue;
    }
    if (!row.time) {  // a check without a timing
      out << std::setw(11) << "-" << std::setw(10) << "-" << std::setw(10) << "-";
      if (setup_column) out << std::setw(10) << (row.setup_ms ? format_ms(*row.setup_ms) : "-");
      out << std::setw(18) << "-" << std::setw(9) << "-" << std::setw(10) << "-" << std::setw(10) << "-";
      if (columns.library) out << std::setw(9) << "-";
      out << "  " << check_cell(row) << "\n";
      continue;
    }
    out << std::setw(11) << format_ms(row.time->median_ms) << std::setw(10) << format_ms(row.time->min_ms)
        << std::setw(10) << format_ms(row.time->max_ms);
    if (setup_column) out << std::setw(10) << (row.setup_ms ? format_ms(*row.setup_ms) : "-");
    const auto throughput = row.throughput(unit_);
    // A leading space keeps a long number from running into the previous column.
    out << std::setw(18) << (throughput ? " " + format_throughput(*throughput, row.unit_or(unit_).name) : "-");
    const Ceiling* ceiling = row_ceiling(row);
    out << std::setw(9)
        << (throughput && ceiling ? format_fixed(100.0 * *throughput / ceiling->value, 1) + "%" : "-");
    const auto vs_serial = speedup(serial, row), vs_parallel = speedup(parallel, row);
    out << std::setw(10) << (vs_serial ? format_speedup(*vs_serial) : "-");
    out << std::setw(10) << (vs_parallel ? format_speedup(*vs_parallel) : "-");
    if (columns.library) {
      const auto vs_lib = vs_library(row);
      out << std::setw(9) << (vs_lib ? format_speedup(*vs_lib) : "-");
    }
    out << "  " << check_cell(row) << "\n";
  }
}

void Report::print_sweep(std::ostream& out, const SweepResult& sweep) const {
  out << "\n  sweep " << sweep.name << (sweep.title.empty() ? "" : ": " + sweep.title) << "\n";
  if (!sweep.skipped.empty()) {
    out << "    skipped: " << sweep.skipped << "\n";
    return;
  }
  const int axis_width = static_cast<int>(std::max<std::size_t>(sweep.axis.size(), 6));
  std::size_t width = 7;
  for (const SweepPoint& point : sweep.points) width = std::max(width, point.row.variant.size());
  out << "    " << std::setw(axis_width) << sweep.axis << "  " << std::left << std::setw(static_cast<int>(width))
      << "variant" << std::right << std::setw(11) << "median ms" << std::setw(18) << "throughput" << std::setw(9)
      << "of ceil" << "  check\n";
  const SweepPoint* fastest = nullptr;
  std::vector<std::pair<std::string, std::string>> not_run;  // "<value>: <variants>", reason
  for (const SweepPoint& point : sweep.points) {
    const Row& row = point.row;
    if (!row.time && !row.skipped.empty()) {
      const std::string key = std::to_string(point.value);
      if (!not_run.empty() && not_run.back().second == row.skipped && not_run.back().first.rfind(key + ": ", 0) == 0) {
        not_run.back().first += ", " + row.variant;
      } else {
        not_run.emplace_back(key + ": " + row.variant, row.skipped);
      }
      continue;
    }
    if (row.time && (!fastest || row.time->median_ms < fastest->row.time->median_ms)) fastest = &point;
    const auto throughput = row.throughput(unit_);
    const Ceiling* ceiling = row_ceiling(row);
    out << "    " << std::setw(axis_width) << point.value << "  " << std::left << std::setw(static_cast<int>(width))
        << row.variant << std::right << std::setw(11) << (row.time ? format_ms(row.time->median_ms) : "-")
        << std::setw(18) << (throughput ? " " + format_throughput(*throughput, row.unit_or(unit_).name) : "-")
        << std::setw(9) << (throughput && ceiling ? format_fixed(100.0 * *throughput / ceiling->value, 1) + "%" : "-")
        << "  " << check_cell(row) << (row.note.empty() ? "" : "  " + row.note) << "\n";
  }
  for (const auto& [points, reason] : not_run) {
    out << "    not run: " << sweep.axis << " " << points << " (" << reason << ")\n";
  }
  if (fastest) {
    out << "    fastest: " << sweep.axis << " " << fastest->value << ", " << fastest->row.variant << ": "
        << format_ms(fastest->row.time->median_ms) << " ms\n";
  }
}

void Report::print_checks(std::ostream& out) const {
  bool any_check = false;
  for (const Row& row : rows_) any_check = any_check || row.check.has_value();
  for (const SweepResult& sweep : sweeps_) any_check = any_check || !sweep.points.empty();
  if (!any_check) return;
  out << "\n  verification\n";
  for (const Row& row : rows_) {
    if (!row.check) continue;
    const std::string prefix = row.expected_to_fail ? "(expected to fail) " : "";
    if (row.outputs.empty()) {
      out << "    " << prefix << row.variant << ": " << row.check->summary() << "\n";
      continue;
    }
    for (const OutputResult& output : row.outputs) {
      out << "    " << prefix << row.variant << " [" << output.name << "]: " << output.check.summary() << "\n";
    }
  }
  for (const SweepResult& sweep : sweeps_) {
    std::size_t verified = 0, failed = 0;
    for (const SweepPoint& point : sweep.points) {
      if (!point.row.check) continue;
      ++verified;
      if (point.row.as_expected()) continue;
      ++failed;
      out << "    " << point_label(sweep, point) << ": " << point.row.check->summary() << "\n";
    }
    if (verified > 0) {
      out << "    sweep " << sweep.name << ": " << verified << " points verified, "
          << (failed == 0 ? std::string("all as expected") : std::to_string(failed) + " FAILED") << "\n";
    }
  }
}

nlohmann::json Report::row_json(const Row& row) const {
  using nlohmann::json;
  const Row* serial = find_role(Role::cpu_serial, row.group);
  const Row* parallel = find_role(Role::cpu_parallel, row.group);
  json item;
  item["variant"] = row.variant;
  item["target"] = row.target == Target::cpu ? "cpu" : "gpu";
  item["role"] = role_name(row.role);
  item["group"] = row.group;
  item["status"] = row.skipped.empty() ? "ok" : "skipped";
  item["skip_reason"] = row.skipped;
  item["time_ms"] = time_json(row.time);
  item["setup_ms"] = row.setup_ms ? json(*row.setup_ms) : json(nullptr);
  item["work"] = row.work;
  const auto throughput = row.throughput(unit_);
  item["throughput"] = optional_number(throughput);
  item["unit"] = row.unit_or(unit_).name;
  item["work_unit"] = row.unit_or(unit_).work_name;
  const Ceiling* ceiling = row_ceiling(row);
  item["ceiling"] = ceiling ? json(ceiling->name) : json(nullptr);
  item["efficiency"] =
      optional_number(throughput && ceiling ? std::optional<double>(*throughput / ceiling->value) : std::nullopt);
  item["speedup_vs_cpu_serial"] = optional_number(speedup(serial, row));
  item["speedup_vs_cpu_parallel"] = optional_number(speedup(parallel, row));
  item["vs_library"] = optional_number(vs_library(row));
  item["verification"] = row.check ? verification_json(*row.check) : json(nullptr);
  item["outputs"] = outputs_json(row);
  item["expected_to_fail"] = row.expected_to_fail;
  item["note"] = row.note;
  return item;
}

// The course runner's numbers for one group: its CPU rows, its headline kernel, its end to end.
nlohmann::json Report::summary_json(const std::string& group) const {
  using nlohmann::json;
  const Row* serial = find_role(Role::cpu_serial, group);
  const Row* parallel = find_role(Role::cpu_parallel, group);
  const Row* kernel = find_role(Role::gpu_kernel, group);
  const Row* end_to_end = find_role(Role::gpu_end_to_end, group);
  const Row* library = find_role(Role::gpu_library, group);
  auto median = [](const Row* row) { return row && row->time ? json(row->time->median_ms) : json(nullptr); };
  std::string gpu_skipped;
  if (kernel && !kernel->time) gpu_skipped = kernel->skipped;
  const auto kernel_throughput = kernel ? kernel->throughput(unit_) : std::nullopt;
  const Ceiling* kernel_ceiling = kernel ? row_ceiling(*kernel) : nullptr;
  bool verified = true;
  for (const Row& row : rows_) verified = verified && (row.group != group || row.as_expected());
  return {
      {"name", group},
      {"cpu_threads", options_.cpu_threads()},
      {"cpu_serial_ms", median(serial)},
      {"cpu_parallel_ms", median(parallel)},
      {"gpu_kernel_variant", kernel ? json(kernel->variant) : json(nullptr)},
      {"gpu_kernel_ms", median(kernel)},
      {"gpu_end_to_end_ms", median(end_to_end)},
      {"gpu_library_variant", library ? json(library->variant) : json(nullptr)},
      {"gpu_library_ms", median(library)},
      {"kernel_vs_library", kernel ? optional_number(vs_library(*kernel)) : json(nullptr)},
      {"kernel_speedup_vs_cpu_serial", kernel ? optional_number(speedup(serial, *kernel)) : json(nullptr)},
      {"kernel_speedup_vs_cpu_parallel", kernel ? optional_number(speedup(parallel, *kernel)) : json(nullptr)},
      {"end_to_end_speedup_vs_cpu_parallel", end_to_end ? optional_number(speedup(parallel, *end_to_end)) : json(nullptr)},
      {"kernel_throughput", optional_number(kernel_throughput)},
      {"kernel_unit", kernel ? json(kernel->unit_or(unit_).name) : json(nullptr)},
      {"kernel_ceiling", kernel_ceiling ? json(kernel_ceiling->name) : json(nullptr)},
      {"kernel_efficiency", optional_number(kernel_throughput && kernel_ceiling
                                                ? std::optional<double>(*kernel_throughput / kernel_ceiling->value)
                                                : std::nullopt)},
      {"gpu_skipped_reason", gpu_skipped},
      {"verified", verified}};
}

nlohmann::json Report::sweep_json(const SweepResult& sweep) const {
  using nlohmann::json;
  json points = json::array();
  std::string unit = unit_.name;
  bool verified = true;
  for (const SweepPoint& point : sweep.points) {
    const Row& row = point.row;
    if (&point == &sweep.points.front()) unit = row.unit_or(unit_).name;
    verified = verified && row.as_expected();
    const auto throughput = row.throughput(unit_);
    const Ceiling* ceiling = row_ceiling(row);
    points.push_back(
        {{"value", point.value}, {"variant", row.variant}, {"group", row.group},
         {"status", row.skipped.empty() ? "ok" : "skipped"}, {"skip_reason", row.skipped},
         {"time", time_json(row.time)}, {"setup_ms", row.setup_ms ? json(*row.setup_ms) : json(nullptr)},
         {"work", row.work}, {"throughput", optional_number(throughput)}, {"unit", row.unit_or(unit_).name},
         {"ceiling", ceiling ? json(ceiling->name) : json(nullptr)},
         {"efficiency", optional_number(throughput && ceiling ? std::optional<double>(*throughput / ceiling->value)
                                                               : std::nullopt)},
         {"check", row.check ? verification_json(*row.check) : json(nullptr)}, {"outputs", outputs_json(row)},
         {"expected_to_fail", row.expected_to_fail}, {"note", row.note}});
  }
  return {{"name", sweep.name},   {"axis", sweep.axis}, {"title", sweep.title},
          {"unit", unit},         {"status", sweep.skipped.empty() ? "ok" : "skipped"},
          {"skip_reason", sweep.skipped}, {"verified", verified}, {"points", points}};
}

nlohmann::json Report::to_json() const {
  using nlohmann::json;
  json rows = json::array();
  for (const Row& row : rows_) rows.push_back(row_json(row));
  json ceilings = json::array();
  for (const Ceiling& ceiling : ceilings_) {
    ceilings.push_back(
        {{"name", ceiling.name}, {"description", ceiling.description}, {"value", ceiling.value}, {"unit", ceiling.unit}});
  }
  json sweeps = json::array();
  for (const SweepResult& sweep : sweeps_) sweeps.push_back(sweep_json(sweep));
  json setups = json::array();
  for (const SetupTiming& setup : setups_) setups.push_back({{"name", setup.name}, {"ms", setup.ms}, {"before", setup.before}});

  // The summary: one entry per group, and the first group's fields at the top level as well,
  // so readers written for one group keep working.
  json groups = json::array();
  for (const std::string& group : this->groups()) groups.push_back(summary_json(group));
  json summary = groups.front();
  summary.erase("name");
  summary["verified"] = all_checks_passed();
  summary["groups"] = groups;

  const HostInfo host = describe_host();
  return {{"schema", "cuda-course-report/1"},
          {"lesson", lesson_},
          {"title", title_},
          {"date", utc_now()},
          {"command_line", command_line_},
          {"size", {{"name", size_name_}, {"value", options_.size}, {"dims", dims_json()}}},
          {"parameters",
           {{"reps", options_.reps}, {"warmup", options_.warmup}, {"cpu_reps", options_.cpu_reps},
            {"cpu_threads", options_.cpu_threads()}, {"flush_l2", options_.flush_l2}, {"seed", options_.seed},
            {"device", options_.device}}},
          {"build",
           {{"cuda_architectures", COURSE_CUDA_ARCHITECTURES}, {"build_type", COURSE_BUILD_TYPE},
            {"cuda_compiler_version", COURSE_CUDA_COMPILER_VERSION}}},
          {"gpu", gpu_json()},
          {"host", {{"cpu", host.cpu}, {"logical_cpus", host.logical_cpus}}},
          {"throughput_unit", unit_.name},
          {"work_unit", unit_.work_name},
          {"ceilings", ceilings},
          {"setup_steps", setups},
          {"rows", rows},
          {"sweeps", sweeps},
          {"summary", summary},
          {"verified", all_checks_passed()},
          {"exit_code", exit_code()},
          {"extra", extra_}};
}

nlohmann::json Report::gpu_json() const {
  nlohmann::json gpu = {{"usable", gpu_.usable}, {"reason", gpu_.reason}, {"name", nullptr},
                        {"compute_capability", nullptr}, {"sm_count", nullptr}, {"l2_bytes", nullptr},
                        {"memory_bytes", nullptr}, {"driver_cuda_version", nullptr},
                        {"runtime_cuda_version", nullptr}, {"context_creation_ms", nullptr}};
  if (gpu_.device) {
    const DeviceInfo& d = *gpu_.device;
    gpu["name"] = d.name;
    gpu["compute_capability"] = d.compute_capability();
    gpu["sm_count"] = d.sm_count;
    gpu["l2_bytes"] = d.l2_bytes;
    gpu["memory_bytes"] = d.global_memory_bytes;
    gpu["driver_cuda_version"] = cuda_version_text(d.driver_version);
    gpu["runtime_cuda_version"] = cuda_version_text(d.runtime_version);
  }
  if (gpu_.usable) gpu["context_creation_ms"] = gpu_.context_creation_ms;
  return gpu;
}

namespace {
// The JSON this run wrote, kept so that a failure after it (an image that cannot be written, a
// CUDA error in a later step) can be recorded in it: a file must not say more than happened.
struct WrittenJson {
  std::string path;
  nlohmann::json content;
};
std::optional<WrittenJson>& written_json() {
  static std::optional<WrittenJson> written;
  return written;
}

std::string dump(const nlohmann::json& content) {
  // replace: a command line with bytes that are not UTF-8 must not stop the write.
  return content.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}
}  // namespace

void Report::write_json(const std::string& path) const {
  nlohmann::json content = to_json();
  write_file_atomically(path, dump(content), "the JSON results");  // all or nothing (course/files.hpp)
  written_json() = WrittenJson{path, std::move(content)};
}

void record_failure_in_json(int exit_code, const std::string& error) noexcept {
  std::optional<WrittenJson>& written = written_json();
  if (!written) return;
  try {
    nlohmann::json& content = written->content;
    content["exit_code"] = exit_code;
    content["verified"] = false;
    if (content.contains("summary")) {
      content["summary"]["verified"] = false;
      if (content["summary"].contains("groups") && content["summary"]["groups"].is_array()) {
        for (nlohmann::json& group : content["summary"]["groups"]) group["verified"] = false;
      }
    }
    content["error"] = error;
    write_file_atomically(written->path, dump(content), "the JSON results");
  } catch (...) {
    // Best effort: the error line is printed whatever happens here.
  }
  written.reset();
}

const std::vector<std::string>& report_json_required_fields() {
  static const std::vector<std::string> fields = {
      "/schema", "/lesson", "/title", "/date", "/size/name", "/size/value", "/gpu/usable", "/gpu/reason",
      "/gpu/name", "/gpu/runtime_cuda_version", "/throughput_unit", "/ceilings", "/rows", "/rows/0/variant",
      "/rows/0/target", "/rows/0/role", "/rows/0/status", "/rows/0/skip_reason", "/rows/0/time_ms",
      "/rows/0/throughput", "/rows/0/ceiling", "/rows/0/efficiency", "/summary/cpu_threads",
      "/summary/cpu_serial_ms", "/summary/cpu_parallel_ms", "/summary/gpu_kernel_ms",
      "/summary/gpu_end_to_end_ms", "/summary/kernel_speedup_vs_cpu_serial",
      "/summary/kernel_speedup_vs_cpu_parallel", "/summary/kernel_efficiency", "/summary/gpu_skipped_reason",
      "/summary/verified", "/verified", "/extra"};
  return fields;
}

}  // namespace course
