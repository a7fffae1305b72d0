// course_summary: the course runner's table, one line per lesson (one per group where a lesson
// has several, e.g. FP32 and FP64), read from the JSON each lesson wrote. Also used by the
// smoke tests to check that a lesson's JSON holds every field.
//
// Usage: course_summary [--missing LESSON=REASON]... RESULT.json...
//   --missing   a lesson that wrote no JSON (it failed before the end), and why
// Exit codes: 0 every lesson verified, 1 a lesson FAILED verification or did not finish (--missing),
// 2 bad command line, 3 a file is unreadable, not JSON, or lacks a field.
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <string>
#include <vector>

#include "course/errors.hpp"
#include "course/format.hpp"
#include "course/main.hpp"
#include "course/report.hpp"

namespace {

using nlohmann::json;

json load_report(const std::string& path) {
  if (std::filesystem::is_directory(path)) throw course::Error(path + " is a folder; give the JSON files in it");
  std::ifstream file(path);
  if (!file) throw course::Error("cannot open " + path);
  json report;
  try {
    report = json::parse(file);
  } catch (const json::parse_error& error) {
    // what() starts "[json.exception.parse_error.101] parse error at line 1, ...": keep the plain part.
    const std::string what = error.what();
    const std::size_t plain = what.find("] ");
    throw course::Error(path + " is not valid JSON: " + (plain == std::string::npos ? what : what.substr(plain + 2)));
  }
  if (!report.is_object()) throw course::Error(path + " is not a lesson's JSON (not an object)");
  for (const std::string& field : course::report_json_required_fields()) {
    if (field.rfind("/rows/0", 0) == 0 && report.value("rows", json::array()).empty()) continue;
    if (!report.contains(json::json_pointer(field))) {
      throw course::Error(path + " lacks the field " + field + " (written by an older or foreign program?)");
    }
  }
  return report;
}

std::string ms_cell(const json& value) {
  return value.is_number() ? course::format_ms(value.get<double>()) + " ms" : "-";
}

std::string speedup_cell(const json& value) {
  if (!value.is_number()) return "-";
  const double speedup = value.get<double>();
  return (speedup >= 100 ? course::format_fixed(speedup, 0)
                         : course::format_fixed(speedup, speedup >= 10 ? 1 : 2)) + "x";
}

std::string efficiency_cell(const json& report, const json& summary) {
  if (!summary["kernel_efficiency"].is_number()) return "-";
  std::string ceiling = "ceiling";
  if (summary.contains("kernel_ceiling") && summary["kernel_ceiling"].is_string()) {
    ceiling = summary["kernel_ceiling"].get<std::string>();
  } else {
    for (const json& row : report["rows"]) {
      if (row["role"] == "gpu_kernel" && row["ceiling"].is_string()) ceiling = row["ceiling"].get<std::string>();
    }
  }
  return course::format_fixed(100.0 * summary["kernel_efficiency"].get<double>(), 1) + "% of " + ceiling;
}

// The summaries to print for one report: each group's where it has several, else the one.
std::vector<std::pair<std::string, json>> lesson_lines(const json& report) {
  const std::string lesson = report["lesson"].get<std::string>();
  const json& summary = report["summary"];
  std::vector<std::pair<std::string, json>> lines;
  if (summary.contains("groups") && summary["groups"].size() > 1) {
    for (const json& group : summary["groups"]) {
      lines.emplace_back(lesson + " [" + group["name"].get<std::string>() + "]", group);
    }
  } else {
    lines.emplace_back(lesson, summary);
  }
  return lines;
}

// `verified`: the lesson's whole verdict (a failed sweep point fails every line of the lesson).
std::vector<std::string> summary_row(const std::string& label, const json& report, const json& summary,
                                     bool verified) {
  std::vector<std::string> row = {label, verified && summary["verified"].get<bool>() ? "yes" : "FAILED",
                                  ms_cell(summary["cpu_serial_ms"]), ms_cell(summary["cpu_parallel_ms"])};
  const std::string skipped = summary["gpu_skipped_reason"].get<std::string>();
  if (!report["gpu"]["usable"].get<bool>() || !skipped.empty()) {
    row.push_back("GPU skipped: " + (skipped.empty() ? report["gpu"]["reason"].get<std::string>() : skipped));
    return row;
  }
  row.push_back(ms_cell(summary["gpu_kernel_ms"]));
  row.push_back(ms_cell(summary["gpu_end_to_end_ms"]));
  row.push_back(speedup_cell(summary["kernel_speedup_vs_cpu_serial"]));
  row.push_back(speedup_cell(summary["kernel_speedup_vs_cpu_parallel"]));
  row.push_back(speedup_cell(summary["end_to_end_speedup_vs_cpu_parallel"]));
  row.push_back(efficiency_cell(report, summary));
  return row;
}

int run(int argc, char** argv) {
  CLI::App app("Prints the course summary table from lesson JSON results", "course_summary");
  std::vector<std::string> files, missing;
  app.add_option("--missing", missing, "LESSON=REASON for a lesson that wrote no JSON");
  app.add_option("files", files, "JSON files written by the lessons (--json)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    std::cout << app.help();
    return 0;
  } catch (const CLI::ParseError& error) {
    throw course::UsageError(error.what());
  }
  if (files.empty() && missing.empty()) throw course::UsageError("no JSON files given");
  for (const std::string& item : missing) {
    if (item.find('=') == std::string::npos || item.front() == '=') {
      throw course::UsageError("--missing: '" + item + "' is not LESSON=REASON");
    }
  }

  std::vector<json> reports;
  for (const std::string& file : files) reports.push_back(load_report(file));

  const std::vector<std::string> headers = {"lesson", "verified", "CPU 1 thread", "CPU all cores", "GPU kernel",
                                            "GPU end-to-end", "kernel vs 1 CPU", "kernel vs all CPUs",
                                            "end-to-end vs all CPUs", "kernel efficiency"};
  std::vector<std::vector<std::string>> table;
  std::string gpu_line, cpu_line;
  bool all_verified = missing.empty();  // a lesson that did not finish verified nothing
  for (const json& report : reports) {
    const json& summary = report["summary"];
    // The whole lesson's verdict (sweeps included), whatever its groups say.
    const bool verified = summary["verified"].get<bool>() && report.value("verified", true);
    all_verified = all_verified && verified;
    for (const auto& [label, group] : lesson_lines(report)) table.push_back(summary_row(label, report, group, verified));
    if (gpu_line.empty() && report["gpu"]["usable"].get<bool>()) {
      gpu_line = report["gpu"]["name"].get<std::string>() + ", CUDA runtime " +
                 report["gpu"]["runtime_cuda_version"].get<std::string>();
    }
    if (cpu_line.empty()) {
      // Reports written before the host was recorded have no "host".
      const std::string host = report.contains("host") ? report["host"]["cpu"].get<std::string>() + ", " : "";
      cpu_line = host + std::to_string(summary["cpu_threads"].get<int>()) + " CPU threads";
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
  return all_verified ? course::kExitOk : course::kExitVerificationFailed;
}

}  // namespace

int main(int argc, char** argv) { return course::run_lesson(argc, argv, run); }
