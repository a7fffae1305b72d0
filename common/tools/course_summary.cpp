// course_summary: the course runner's table, one line per lesson (one per group where a lesson
// has several, e.g. FP32 and FP64), read from the JSON each lesson wrote. Also used by the
// smoke tests to check that a lesson's JSON holds every field.
//
// Usage: course_summary [--missing LESSON=REASON]... [--json OUT.json] RESULT.json...
//   --missing   a lesson that wrote no JSON (it failed before the end), and why
//   --json      also write the table as JSON (each line's numbers and the CPU rows they come from)
//
// The CPU columns are chosen from each line's rows, so that "kernel vs ..." is held against the
// best the CPU did in the same run, whatever the lesson calls its cpu_serial and cpu_parallel rows:
//   "CPU all cores" / "kernel vs all CPUs": the fastest verified CPU row of any method (a direct
//     sum that beats FFTW at a small filter, a teaching row that beats the prefetching one);
//   "CPU 1 thread" / "kernel vs 1 CPU": the fastest verified one-thread CPU row (role cpu_serial,
//     or "1 thread" in its name) that is not a teaching row ("teaching" in its name); "-" where
//     the lesson has none.
// A verified row: status "ok", a median time, a verification that passed, not expected to fail.
// A report whose rows give no verified CPU row at all (an older or hand-made file) keeps its
// summary's cpu_serial_ms and cpu_parallel_ms. Below the table, each line names the rows used.
// Exit codes: 0 every lesson verified, 1 a lesson FAILED verification or did not finish (--missing),
// 2 bad command line, or a file that cannot be read (missing, a folder, a FIFO or a device: refused
// unread), 3 a file that is not JSON, or lacks a field or has one of the wrong type (one line naming
// the file and the field), or a summary that cannot be written.
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
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

// A file named on the command line that cannot be read (missing, a folder, a FIFO or a device, too
// large, no permission, a name too long) is a bad command line, exit 2, as a lesson's --image is;
// one that is read but is not a lesson's JSON is exit 3.
LoadedReport load_report(const std::string& path) {
  std::error_code ignored;
  if (std::filesystem::is_directory(path, ignored)) {
    throw course::UsageError(path + " is a folder; give the JSON files in it");
  }
  std::string text;
  try {
    text = course::read_file(path, kMaxReportBytes);  // a FIFO or /dev/zero is refused unread
  } catch (const course::Error& error) {
    throw course::UsageError(error.what());
  }
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

// One CPU row chosen for a column: its median and its name ("" when taken from the summary).
struct CpuPick {
  std::optional<double> ms;
  std::string variant;
};

struct CpuPicks {
  CpuPick one_thread;  // the fastest verified one-thread row that is not a teaching row
  CpuPick all;         // the fastest verified CPU row of any method
};

bool contains_word_teaching(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text.find("teaching") != std::string::npos;
}

// "1 thread" as a phrase: not "11 threads", not "1 threads".
bool names_one_thread(const std::string& variant) {
  for (std::size_t at = variant.find("1 thread"); at != std::string::npos; at = variant.find("1 thread", at + 1)) {
    const bool starts = at == 0 || !std::isdigit(static_cast<unsigned char>(variant[at - 1]));
    const std::size_t end = at + 8;
    const bool ends = end == variant.size() || variant[end] != 's';
    if (starts && ends) return true;
  }
  return false;
}

// The CPU rows of one line (`group`: its name, or nullopt for every row of a one-line report).
CpuPicks pick_cpu_rows(const Fields& fields, const std::optional<std::string>& group) {
  CpuPicks picks;
  const std::size_t rows = fields.find("/rows")->size();
  for (std::size_t i = 0; i < rows; ++i) {
    const std::string row = "/rows/" + std::to_string(i);
    if (fields.optional_text(row + "/target") != "cpu") continue;
    if (group && fields.optional_text(row + "/group").value_or("") != *group) continue;
    if (fields.optional_text(row + "/status").value_or("ok") != "ok") continue;
    if (fields.optional_flag(row + "/expected_to_fail").value_or(false)) continue;
    if (fields.optional_flag(row + "/verification/passed") != true) continue;
    const std::optional<double> ms = fields.number(row + "/time_ms/median");
    if (!ms || !(*ms > 0)) continue;
    const std::string variant = fields.optional_text(row + "/variant").value_or("");
    if (!picks.all.ms || *ms < *picks.all.ms) picks.all = {ms, variant};
    const bool one_thread = fields.optional_text(row + "/role") == "cpu_serial" || names_one_thread(variant);
    if (one_thread && !contains_word_teaching(variant) && (!picks.one_thread.ms || *ms < *picks.one_thread.ms)) {
      picks.one_thread = {ms, variant};
    }
  }
  return picks;
}

std::optional<double> ratio(std::optional<double> cpu_ms, std::optional<double> gpu_ms) {
  if (!cpu_ms || !gpu_ms || !(*gpu_ms > 0)) return std::nullopt;
  return *cpu_ms / *gpu_ms;
}

// One line of the table, as numbers (for the JSON) and as cells (for the text).
struct Line {
  std::string label, lesson, group;
  bool verified = false;
  bool finished = true;
  std::string not_finished_reason;
  CpuPicks cpu;
  std::string gpu_skipped;  // non-empty: the GPU columns collapse into this reason
  std::optional<double> kernel_ms, end_to_end_ms, kernel_efficiency;
  std::string ceiling;
  std::optional<double> vs_one_cpu() const { return ratio(cpu.one_thread.ms, kernel_ms); }
  std::optional<double> vs_all_cpus() const { return ratio(cpu.all.ms, kernel_ms); }
  std::optional<double> end_to_end_vs_all_cpus() const { return ratio(cpu.all.ms, end_to_end_ms); }
};

// `verified`: the lesson's whole verdict (a failed sweep point fails every line of the lesson).
Line summary_line(const std::string& label, const Fields& fields, const std::string& summary,
                  const std::optional<std::string>& group, bool verified) {
  Line line;
  line.label = label;
  line.lesson = fields.text("/lesson");
  line.group = group.value_or("");
  line.verified = verified && fields.flag(summary + "/verified");
  // The summary's own CPU figures first: what a report without usable rows falls back on.
  const std::optional<double> serial_ms = fields.number(summary + "/cpu_serial_ms");
  const std::optional<double> parallel_ms = fields.number(summary + "/cpu_parallel_ms");
  line.cpu = pick_cpu_rows(fields, group);
  if (!line.cpu.all.ms) line.cpu = {{serial_ms, ""}, {parallel_ms, ""}};
  const std::string skipped = fields.optional_text(summary + "/gpu_skipped_reason").value_or("");
  if (!fields.flag("/gpu/usable") || !skipped.empty()) {
    line.gpu_skipped = skipped.empty() ? fields.text("/gpu/reason") : skipped;
    return line;
  }
  line.kernel_ms = fields.number(summary + "/gpu_kernel_ms");
  line.end_to_end_ms = fields.number(summary + "/gpu_end_to_end_ms");
  line.kernel_efficiency = fields.number(summary + "/kernel_efficiency");
  if (line.kernel_efficiency) {
    const std::string cell = efficiency_cell(fields, summary);
    line.ceiling = cell.substr(cell.find(" of ") + 4);
  }
  return line;
}

std::vector<std::string> line_cells(const Line& line) {
  if (!line.finished) return {line.label, "no", "did not finish: " + line.not_finished_reason};
  std::vector<std::string> row = {line.label, line.verified ? "yes" : "FAILED", ms_cell(line.cpu.one_thread.ms),
                                  ms_cell(line.cpu.all.ms)};
  if (!line.gpu_skipped.empty()) {
    row.push_back("GPU skipped: " + line.gpu_skipped);
    return row;
  }
  row.push_back(ms_cell(line.kernel_ms));
  row.push_back(ms_cell(line.end_to_end_ms));
  row.push_back(speedup_cell(line.vs_one_cpu()));
  row.push_back(speedup_cell(line.vs_all_cpus()));
  row.push_back(speedup_cell(line.end_to_end_vs_all_cpus()));
  row.push_back(line.kernel_efficiency ? course::format_fixed(100.0 * *line.kernel_efficiency, 1) + "% of " + line.ceiling
                                       : "-");
  return row;
}

json optional_json(std::optional<double> value) { return value ? json(*value) : json(nullptr); }

json line_json(const Line& line) {
  json item = {{"label", line.label}, {"lesson", line.lesson}, {"group", line.group}, {"verified", line.verified}};
  if (!line.finished) {
    item["did_not_finish"] = line.not_finished_reason;
    return item;
  }
  const auto pick_json = [](const CpuPick& pick) {
    return json{{"ms", optional_json(pick.ms)}, {"variant", pick.variant.empty() ? json(nullptr) : json(pick.variant)}};
  };
  item["cpu_one_thread"] = pick_json(line.cpu.one_thread);
  item["cpu_all"] = pick_json(line.cpu.all);
  item["gpu_skipped_reason"] = line.gpu_skipped;
  item["gpu_kernel_ms"] = optional_json(line.kernel_ms);
  item["gpu_end_to_end_ms"] = optional_json(line.end_to_end_ms);
  item["kernel_vs_one_cpu"] = optional_json(line.vs_one_cpu());
  item["kernel_vs_all_cpus"] = optional_json(line.vs_all_cpus());
  item["end_to_end_vs_all_cpus"] = optional_json(line.end_to_end_vs_all_cpus());
  item["kernel_efficiency"] = optional_json(line.kernel_efficiency);
  item["kernel_ceiling"] = line.ceiling.empty() ? json(nullptr) : json(line.ceiling);
  // The cells as printed: what a page quoting the table shows.
  item["cells"] = line_cells(line);
  return item;
}

int run(int argc, char** argv) {
  CLI::App app("Prints the course summary table from lesson JSON results", "course_summary");
  std::vector<std::string> files, missing;
  std::string json_out;
  // One value per --missing (a JSON file after it is a file, not a second reason).
  app.add_option("--missing", missing, "LESSON=REASON for a lesson that wrote no JSON (one per --missing)")
      ->allow_extra_args(false);
  app.add_option("--json", json_out, "also write the table as JSON to this file");
  app.add_option("files", files, "JSON files written by the lessons (--json)");
  course::parse_command_line(app, argc, argv);
  if (files.empty() && missing.empty()) throw course::UsageError("no JSON files given");
  // Before anything is read: a FIFO would block, and a device must never be replaced.
  if (!json_out.empty()) course::check_output_path("--json", json_out);
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
  std::vector<Line> lines;
  std::string gpu_line, cpu_line;
  bool all_verified = missing.empty();  // a lesson that did not finish verified nothing
  for (const LoadedReport& report : reports) {
    const Fields fields = report.fields();
    // The whole lesson's verdict (sweeps included), whatever its groups say.
    const std::optional<bool> whole = fields.optional_flag("/verified");
    const bool verified = fields.flag("/summary/verified") && whole.value_or(true);
    all_verified = all_verified && verified;
    const auto summaries = lesson_lines(fields);
    for (const auto& [label, summary] : summaries) {
      std::optional<std::string> group;
      if (summaries.size() > 1) group = fields.text(summary + "/name");
      lines.push_back(summary_line(label, fields, summary, group, verified));
    }
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
    Line line;
    line.label = line.lesson = item.substr(0, split);
    line.finished = false;
    line.not_finished_reason = item.substr(split + 1);
    lines.push_back(line);
  }
  std::vector<std::vector<std::string>> table;
  for (const Line& line : lines) table.push_back(line_cells(line));

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
  auto printable = [](std::string text) {
    for (char& c : text) {
      if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
    }
    return text;
  };
  for (auto& row : table) {
    for (std::string& cell : row) cell = printable(cell);
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
  // Which CPU rows the columns are, so that a reader can find them in the lesson's own table.
  bool named = false;
  for (const Line& line : lines) {
    if (!line.finished || line.cpu.all.variant.empty()) continue;
    if (!named) {
      std::cout << "CPU rows: \"all CPUs\" is the fastest verified CPU row of any method, \"1 CPU\" the fastest "
                   "verified one-thread row that is not a teaching row\n";
      named = true;
    }
    std::cout << "  " << printable(line.label) << ": 1 CPU = "
              << (line.cpu.one_thread.ms ? printable(line.cpu.one_thread.variant)
                                         : "none (no one-thread row that is not a teaching row)")
              << "; all CPUs = " << printable(line.cpu.all.variant) << "\n";
  }
  if (!json_out.empty()) {
    json out = {{"gpu", gpu_line.empty() ? json(nullptr) : json(gpu_line)},
                {"cpu", cpu_line.empty() ? json(nullptr) : json(cpu_line)},
                {"verified", all_verified},
                {"headers", headers},
                {"lines", json::array()}};
    for (const Line& line : lines) out["lines"].push_back(line_json(line));
    course::write_file_atomically(json_out, out.dump(2) + "\n", "the summary JSON");
  }
  std::cout.flush();
  if (!std::cout) throw course::Error("cannot write the summary to standard output (a full disk or a closed pipe?)");
  return all_verified ? course::kExitOk : course::kExitVerificationFailed;
}

}  // namespace

int main(int argc, char** argv) { return course::run_lesson(argc, argv, run); }
