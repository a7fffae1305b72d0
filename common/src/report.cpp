// The run's table and its JSON twin.
#include "course/report.hpp"

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

const char* role_name(Role role) {
  switch (role) {
    case Role::detail: return "detail";
    case Role::cpu_serial: return "cpu_serial";
    case Role::cpu_parallel: return "cpu_parallel";
    case Role::gpu_kernel: return "gpu_kernel";
    case Role::gpu_end_to_end: return "gpu_end_to_end";
  }
  return "detail";
}

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

std::optional<double> Row::throughput(const ThroughputUnit& fallback) const {
  if (!time || time->median_ms <= 0 || work <= 0) return std::nullopt;
  return work / (time->median_ms * 1e-3) / unit_or(fallback).scale;
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
  if (row.role != Role::detail && find_role(row.role)) {
    throw std::logic_error(std::string("Report::add: a second row with role ") + role_name(row.role));
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

void Report::add_skipped(const std::string& variant, Target target, Role role, const std::string& reason) {
  Row row;
  row.variant = variant;
  row.target = target;
  row.role = role;
  row.skipped = reason;
  add(std::move(row));
}

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

bool Report::all_checks_passed() const {
  for (const Row& row : rows_) {
    if (row.check && !row.check->passed) return false;
  }
  return true;
}

int Report::exit_code() const { return all_checks_passed() ? kExitOk : kExitVerificationFailed; }

void Report::print(std::ostream& out) const {
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

  const Row* serial = find_role(Role::cpu_serial);
  const Row* parallel = find_role(Role::cpu_parallel);
  std::size_t width = 8;
  for (const Row& row : rows_) width = std::max(width, row.variant.size());

  out << "\n  " << std::left << std::setw(static_cast<int>(width)) << "variant" << std::right << std::setw(11)
      << "median ms" << std::setw(10) << "min ms" << std::setw(10) << "max ms" << std::setw(18) << "throughput"
      << std::setw(9) << "of ceil" << std::setw(10) << "vs 1 CPU" << std::setw(10) << "vs CPUs" << "  check\n";
  for (const Row& row : rows_) {
    out << "  " << std::left << std::setw(static_cast<int>(width)) << row.variant << std::right;
    if (!row.time && !row.skipped.empty()) {
      out << "  skipped: " << row.skipped << "\n";
      continue;
    }
    if (!row.time) {  // a check without a timing
      out << std::setw(11) << "-" << std::setw(10) << "-" << std::setw(10) << "-" << std::setw(18) << "-"
          << std::setw(9) << "-" << std::setw(10) << "-" << std::setw(10) << "-" << "  "
          << (row.check && row.check->passed ? "ok" : "FAILED") << "\n";
      continue;
    }
    out << std::setw(11) << format_ms(row.time->median_ms) << std::setw(10) << format_ms(row.time->min_ms)
        << std::setw(10) << format_ms(row.time->max_ms);
    const auto throughput = row.throughput(unit_);
    // A leading space keeps a long number from running into the previous column.
    out << std::setw(18) << (throughput ? " " + format_throughput(*throughput, row.unit_or(unit_).name) : "-");
    const Ceiling* ceiling = row_ceiling(row);
    out << std::setw(9)
        << (throughput && ceiling ? format_fixed(100.0 * *throughput / ceiling->value, 1) + "%" : "-");
    out << std::setw(10)
        << (serial && serial->time ? format_speedup(serial->time->median_ms / row.time->median_ms) : "-");
    out << std::setw(10)
        << (parallel && parallel->time ? format_speedup(parallel->time->median_ms / row.time->median_ms) : "-");
    out << "  " << (!row.check ? "-" : (row.check->passed ? "ok" : "FAILED")) << "\n";
  }

  bool any_check = false;
  for (const Row& row : rows_) any_check = any_check || row.check.has_value();
  if (any_check) {
    out << "\n  verification\n";
    for (const Row& row : rows_) {
      if (row.check) out << "    " << row.variant << ": " << row.check->summary() << "\n";
    }
  }
  for (const Row& row : rows_) {
    if (!row.note.empty()) out << "  note: " << row.variant << ": " << row.note << "\n";
  }
  out << "\n  result: "
      << (all_checks_passed() ? "every result that ran matched its reference" : "VERIFICATION FAILED") << "\n";
}

nlohmann::json Report::to_json() const {
  using nlohmann::json;
  const Row* serial = find_role(Role::cpu_serial);
  const Row* parallel = find_role(Role::cpu_parallel);
  auto speedup = [](const Row* base, const Row& row) -> std::optional<double> {
    if (!base || !base->time || !row.time || row.time->median_ms <= 0) return std::nullopt;
    return base->time->median_ms / row.time->median_ms;
  };

  json rows = json::array();
  for (const Row& row : rows_) {
    json item;
    item["variant"] = row.variant;
    item["target"] = row.target == Target::cpu ? "cpu" : "gpu";
    item["role"] = role_name(row.role);
    item["status"] = row.skipped.empty() ? "ok" : "skipped";
    item["skip_reason"] = row.skipped;
    item["time_ms"] = row.time ? json{{"median", row.time->median_ms}, {"min", row.time->min_ms},
                                      {"max", row.time->max_ms}, {"mean", row.time->mean_ms},
                                      {"reps", row.time->reps}}
                               : json(nullptr);
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
    item["verification"] = row.check ? verification_json(*row.check) : json(nullptr);
    item["note"] = row.note;
    rows.push_back(std::move(item));
  }

  json ceilings = json::array();
  for (const Ceiling& ceiling : ceilings_) {
    ceilings.push_back(
        {{"name", ceiling.name}, {"description", ceiling.description}, {"value", ceiling.value}, {"unit", ceiling.unit}});
  }

  json gpu = {{"usable", gpu_.usable}, {"reason", gpu_.reason}, {"name", nullptr}, {"compute_capability", nullptr},
              {"sm_count", nullptr}, {"l2_bytes", nullptr}, {"memory_bytes", nullptr},
              {"driver_cuda_version", nullptr}, {"runtime_cuda_version", nullptr},
              {"context_creation_ms", nullptr}};
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

  const Row* kernel = find_role(Role::gpu_kernel);
  const Row* end_to_end = find_role(Role::gpu_end_to_end);
  auto median = [](const Row* row) { return row && row->time ? json(row->time->median_ms) : json(nullptr); };
  std::string gpu_skipped;
  if (kernel && !kernel->time) gpu_skipped = kernel->skipped;
  const auto kernel_throughput = kernel ? kernel->throughput(unit_) : std::nullopt;
  const Ceiling* kernel_ceiling = kernel ? row_ceiling(*kernel) : nullptr;
  json summary = {
      {"cpu_threads", options_.cpu_threads()},
      {"cpu_serial_ms", median(serial)},
      {"cpu_parallel_ms", median(parallel)},
      {"gpu_kernel_variant", kernel ? json(kernel->variant) : json(nullptr)},
      {"gpu_kernel_ms", median(kernel)},
      {"gpu_end_to_end_ms", median(end_to_end)},
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
      {"verified", all_checks_passed()}};

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
          {"gpu", gpu},
          {"host", {{"cpu", host.cpu}, {"logical_cpus", host.logical_cpus}}},
          {"throughput_unit", unit_.name},
          {"work_unit", unit_.work_name},
          {"ceilings", ceilings},
          {"rows", rows},
          {"summary", summary},
          {"verified", all_checks_passed()},
          {"exit_code", exit_code()},
          {"extra", extra_}};
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
    if (content.contains("summary")) content["summary"]["verified"] = false;
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
