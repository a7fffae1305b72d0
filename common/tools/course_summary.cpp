// course_summary: the course runner's table, one line per lesson (one per group where a lesson
// has several, e.g. FP32 and FP64), read from the JSON each lesson wrote. Also used by the
// smoke tests to check that a lesson's JSON holds every field.
//
// Usage: course_summary [--missing LESSON=REASON]... RESULT.json...
//   --missing   a lesson that wrote no JSON (it failed before the end), and why
// Exit codes: 0 every lesson verified, 1 a lesson FAILED verification or did not finish (--missing),
// 2 bad command line, 3 a file is unreadable (a FIFO, a device: refused unread), not JSON, or lacks
// a field or has one of the wrong type (one line naming the file and the field).
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "course/cli.hpp"
#include "course/errors.hpp"
#include "course/files.hpp"
#include "course/format.hpp"
#include "course/main.hpp"
#include "course/report.hpp"

namespace {

using nlohmann::json;

constexpr std::size_t kMaxReportBytes = std::size_t{64} << 20;  // a lesson's JSON is a few hundred KiB at most

// A report's fields, read by JSON pointer ("/summary/verified"). A required field that is absent
// or of the wrong type is one line naming the file and the field; an optional one that is absent
// or null is "not there" (a "-" in the table). Nothing is read through operator[] on a missing key.
class Fields {
 public:
  Fields(const json& report, const std::string& path) : report_(report), path_(path) {}

  const json* find(const std::string& pointer) const {
    const json::json_pointer where(pointer);
    return report_.contains(where) ? &report_.at(where) : nullptr;
  }
  [[noreturn]] void wrong(const std::string& pointer, const std::string& expected) const {
    throw course::Error(path_ + ": the field " + pointer + (find(pointer) ? " is not " + expected : " is missing") +
                        " (written by an older or foreign program?)");
  }
  std::string text(const std::string& pointer) const {
    const json* value = find(pointer);
    if (!value || !value->is_string()) wrong(pointer, "a string");
    return value->get<std::string>();
  }
  bool flag(const std::string& pointer) const {
    const json* value = find(pointer);
    if (!value || !value->is_boolean()) wrong(pointer, "true or false");
    return value->get<bool>();
  }
  std::optional<bool> optional_flag(const std::string& pointer) const {
    const json* value = find(pointer);
    if (!value || value->is_null()) return std::nullopt;
    if (!value->is_boolean()) wrong(pointer, "true or false");
    return value->get<bool>();
  }
  std::int64_t integer(const std::string& pointer) const {
    const json* value = find(pointer);
    if (!value || !value->is_number_integer()) wrong(pointer, "a whole number");
    return value->get<std::int64_t>();
  }
  std::optional<double> number(const std::string& pointer) const {
    const json* value = find(pointer);
    if (!value || value->is_null()) return std::nullopt;
    if (!value->is_number()) wrong(pointer, "a number or null");
    return value->get<double>();
  }
  std::optional<std::string> optional_text(const std::string& pointer) const {
    const json* value = find(pointer);
    if (!value || value->is_null()) return std::nullopt;
    if (!value->is_string()) wrong(pointer, "a string or null");
    return value->get<std::string>();
  }

 private:
  const json& report_;
  const std::string& path_;
};

struct LoadedReport {
  std::string path;
  json content;
  Fields fields() const { return Fields(content, path); }
};

LoadedReport load_report(const std::string& path) {
  if (std::filesystem::is_directory(path)) throw course::Error(path + " is a folder; give the JSON files in it");
  const std::string text = course::read_file(path, kMaxReportBytes);  // a FIFO or /dev/zero is refused
  LoadedReport report{path, {}};
  try {
    report.content = json::parse(text);
  } catch (const json::exception& error) {
    // what() starts "[json.exception.parse_error.101] parse error at line 1, ...": keep the plain part.
    const std::string what = error.what();
    const std::size_t plain = what.find("] ");
    throw course::Error(path + " is not valid JSON: " + (plain == std::string::npos ? what : what.substr(plain + 2)));
  }
  if (!report.content.is_object()) throw course::Error(path + " is not a lesson's JSON (not an object)");
  const Fields fields = report.fields();
  const json* rows = fields.find("/rows");
  if (!rows || !rows->is_array()) fields.wrong("/rows", "a list");
  for (const std::string& field : course::report_json_required_fields()) {
    if (field.rfind("/rows/0", 0) == 0 && rows->empty()) continue;
    if (!fields.find(field)) fields.wrong(field, "");
  }
  for (std::size_t i = 0; i < rows->size(); ++i) {
    if (!(*rows)[i].is_object()) fields.wrong("/rows/" + std::to_string(i), "an object");
  }
  return report;
}

std::string ms_cell(std::optional<double> value) {
  return value ? course::format_ms(*value) + " ms" : "-";
}

std::string speedup_cell(std::optional<double> value) {
  if (!value) return "-";
  const double speedup = *value;
  return (speedup >= 100 ? course::format_fixed(speedup, 0)
                         : course::format_fixed(speedup, speedup >= 10 ? 1 : 2)) + "x";
}

// The ceiling the headline kernel is held against: the summary's own (a group's), else the
// gpu_kernel row's, else "ceiling". `summary` is "/summary" or "/summary/groups/<i>".
std::string efficiency_cell(const Fields& fields, const std::string& summary) {
  const std::optional<double> efficiency = fields.number(summary + "/kernel_efficiency");
  if (!efficiency) return "-";
  std::string ceiling = "ceiling";
  if (const auto named = fields.optional_text(summary + "/kernel_ceiling")) {
    ceiling = *named;
  } else {
    const std::size_t rows = fields.find("/rows")->size();
    for (std::size_t i = 0; i < rows; ++i) {  // a row may lack its role (an older or hand-made file)
      const std::string row = "/rows/" + std::to_string(i);
      if (fields.optional_text(row + "/role") != "gpu_kernel") continue;
      if (const auto name = fields.optional_text(row + "/ceiling")) ceiling = *name;
    }
  }
  return course::format_fixed(100.0 * *efficiency, 1) + "% of " + ceiling;
}

// The summaries to print for one report, as (label, JSON pointer): each group's where it has
// several, else the one.
std::vector<std::pair<std::string, std::string>> lesson_lines(const Fields& fields) {
  const std::string lesson = fields.text("/lesson");
  std::vector<std::pair<std::string, std::string>> lines;
  const json* groups = fields.find("/summary/groups");
  if (groups && !groups->is_null() && !groups->is_array()) fields.wrong("/summary/groups", "a list");
  if (groups && groups->is_array() && groups->size() > 1) {
    for (std::size_t i = 0; i < groups->size(); ++i) {
      const std::string group = "/summary/groups/" + std::to_string(i);
      lines.emplace_back(lesson + " [" + fields.text(group + "/name") + "]", group);
    }
  } else {
    lines.emplace_back(lesson, "/summary");
  }
  return lines;
}

// `verified`: the lesson's whole verdict (a failed sweep point fails every line of the lesson).
std::vector<std::string> summary_row(const std::string& label, const Fields& fields, const std::string& summary,
                                     bool verified) {
  std::vector<std::string> row = {label, verified && fields.flag(summary + "/verified") ? "yes" : "FAILED",
                                  ms_cell(fields.number(summary + "/cpu_serial_ms")),
                                  ms_cell(fields.number(summary + "/cpu_parallel_ms"))};
  const std::string skipped = fields.optional_text(summary + "/gpu_skipped_reason").value_or("");
  if (!fields.flag("/gpu/usable") || !skipped.empty()) {
    row.push_back("GPU skipped: " + (skipped.empty() ? fields.text("/gpu/reason") : skipped));
    return row;
  }
  row.push_back(ms_cell(fields.number(summary + "/gpu_kernel_ms")));
  row.push_back(ms_cell(fields.number(summary + "/gpu_end_to_end_ms")));
  row.push_back(speedup_cell(fields.number(summary + "/kernel_speedup_vs_cpu_serial")));
  row.push_back(speedup_cell(fields.number(summary + "/kernel_speedup_vs_cpu_parallel")));
  row.push_back(speedup_cell(fields.number(summary + "/end_to_end_speedup_vs_cpu_parallel")));
  row.push_back(efficiency_cell(fields, summary));
  return row;
}

int run(int argc, char** argv) {
  CLI::App app("Prints the course summary table from lesson JSON results", "course_summary");
  std::vector<std::string> files, missing;
  // One value per --missing (a JSON file after it is a file, not a second reason).
  app.add_option("--missing", missing, "LESSON=REASON for a lesson that wrote no JSON (one per --missing)")
      ->allow_extra_args(false);
  app.add_option("files", files, "JSON files written by the lessons (--json)");
  course::parse_command_line(app, argc, argv);
  if (files.empty() && missing.empty()) throw course::UsageError("no JSON files given");
  for (const std::string& item : missing) {
    if (item.find('=') == std::string::npos || item.front() == '=') {
      throw course::UsageError("--missing: '" + item + "' is not LESSON=REASON");
    }
  }

  std::vector<LoadedReport> reports;
  for (const std::string& file : files) reports.push_back(load_report(file));

  const std::vector<std::string> headers = {"lesson", "verified", "CPU 1 thread", "CPU all cores", "GPU kernel",
                                            "GPU end-to-end", "kernel vs 1 CPU", "kernel vs all CPUs",
                                            "end-to-end vs all CPUs", "kernel efficiency"};
  std::vector<std::vector<std::string>> table;
  std::string gpu_line, cpu_line;
  bool all_verified = missing.empty();  // a lesson that did not finish verified nothing
  for (const LoadedReport& report : reports) {
    const Fields fields = report.fields();
    // The whole lesson's verdict (sweeps included), whatever its groups say.
    const std::optional<bool> whole = fields.optional_flag("/verified");
    const bool verified = fields.flag("/summary/verified") && whole.value_or(true);
    all_verified = all_verified && verified;
    for (const auto& [label, summary] : lesson_lines(fields)) table.push_back(summary_row(label, fields, summary, verified));
    if (gpu_line.empty() && fields.flag("/gpu/usable")) {
      gpu_line = fields.optional_text("/gpu/name").value_or("a GPU") + ", CUDA runtime " +
                 fields.optional_text("/gpu/runtime_cuda_version").value_or("?");
    }
    if (cpu_line.empty()) {
      // Reports written before the host was recorded have no "host" (or an empty one).
      const std::optional<std::string> host = fields.optional_text("/host/cpu");
      const std::int64_t threads = fields.integer("/summary/cpu_threads");
      if (threads < 1 || threads > (1 << 20)) fields.wrong("/summary/cpu_threads", "a thread count (1 to 2^20)");
      cpu_line = (host ? *host + ", " : "") + std::to_string(threads) + " CPU threads";
    }
  }
  for (const std::string& item : missing) {
    const std::size_t split = item.find('=');
    table.push_back({item.substr(0, split), "no", "did not finish: " + item.substr(split + 1)});
  }

  // Column widths from the cells that stay within their column (collapsed cells run on).
  std::vector<std::size_t> widths;
  for (const std::string& header : headers) widths.push_back(header.size());
  for (const auto& row : table) {
    const bool collapsed = row.size() < headers.size();
    for (std::size_t c = 0; c < row.size(); ++c) {
      if (collapsed && c + 1 == row.size()) break;
      widths[c] = std::max(widths[c], row[c].size());
    }
  }
  // Text from a results file reaches the terminal without control characters (ANSI escapes, newlines).
  for (auto& row : table) {
    for (std::string& cell : row) {
      for (char& c : cell) {
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
      }
    }
  }
  auto print_row = [&](const std::vector<std::string>& row) {
    for (std::size_t c = 0; c < row.size(); ++c) {
      const bool last = c + 1 == row.size();  // no padding after the last cell
      std::cout << (c ? "  " : "") << std::left << std::setw(last ? 0 : static_cast<int>(widths[c])) << row[c];
    }
    std::cout << "\n";
  };
  std::cout << "\nCourse summary (medians; " << (gpu_line.empty() ? "no GPU used" : gpu_line) << "; "
            << (cpu_line.empty() ? "CPU" : cpu_line) << ")\n";
  print_row(headers);
  for (const auto& row : table) print_row(row);
  std::cout.flush();
  if (!std::cout) throw course::Error("cannot write the summary to standard output (a full disk or a closed pipe?)");
  return all_verified ? course::kExitOk : course::kExitVerificationFailed;
}

}  // namespace

int main(int argc, char** argv) { return course::run_lesson(argc, argv, run); }
