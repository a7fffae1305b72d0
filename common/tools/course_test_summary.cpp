// course_test_summary: the closing lines of scripts/test_course.sh: how many tests passed, were
// skipped (grouped by the reason each skipped test printed) and failed, read from ctest's JUnit file.
//
// Usage: course_test_summary CTEST_JUNIT.xml     (written by `ctest --output-junit FILE`)
//
// ctest alone ends with "100% tests passed" and a list of names marked "(Skipped)": a skipped GPU
// test then reads like a pass. This groups the skipped tests by the reason each one printed.
// The XML is read by pugixml (Debian: libpugixml-dev), whose parser and tree walk use no
// recursion, so nesting 20,000 deep is only a file that is not JUnit; the file is read only if
// it is a regular file, up to a bound. A truncated or broken file, or one whose root is not a
// <testsuite>, is an error rather than a summary of half the tests (or of none).
// Exit codes: 0 summary printed (whatever the tests did), 2 bad command line or a file that cannot
// be read (missing, a folder, a FIFO or a device: refused unread, as a lesson's input file), 3 a
// file that is not XML or not a JUnit file.
#include <CLI/CLI.hpp>
#include <pugixml.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iostream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "course/cli.hpp"
#include "course/errors.hpp"
#include "course/files.hpp"
#include "course/main.hpp"

namespace {

constexpr std::size_t kMaxJunitBytes = std::size_t{256} << 20;  // a whole course's run is a few MiB
constexpr std::size_t kMaxReasonChars = 300;                     // a reason is shown on one line

std::size_t line_of(std::string_view text, std::size_t offset) {
  return 1 + static_cast<std::size_t>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(
                                                                          std::min(offset, text.size())), '\n'));
}

// pugixml decodes &#N; without checking N: a reference beyond Unicode (&#99999999999;) would
// become bytes that are not text. XML forbids them, so such a file is refused, naming the line.
void check_character_references(std::string_view text) {
  for (std::size_t at = text.find("&#"); at != std::string_view::npos; at = text.find("&#", at + 2)) {
    const bool hex = at + 2 < text.size() && text[at + 2] == 'x';
    std::uint64_t value = 0;
    std::size_t i = at + (hex ? 3 : 2);
    const std::size_t first_digit = i;
    for (; i < text.size() && i - first_digit < 12; ++i) {
      const char c = text[i];
      const int digit = c >= '0' && c <= '9'                     ? c - '0'
                        : hex && c >= 'a' && c <= 'f'              ? c - 'a' + 10
                        : hex && c >= 'A' && c <= 'F'              ? c - 'A' + 10
                                                                   : -1;
      if (digit < 0) break;
      value = value * (hex ? 16 : 10) + static_cast<std::uint64_t>(digit);
    }
    const bool closed = i < text.size() && text[i] == ';' && i > first_digit;
    if (!closed || value == 0 || value > 0x10FFFF || (value >= 0xD800 && value <= 0xDFFF)) {
      const std::string shown(text.substr(at, std::min<std::size_t>(i - at + 1, 16)));
      throw course::Error("'" + shown + "' is not a character reference to a Unicode character (line " +
                          std::to_string(line_of(text, at)) + ")");
    }
  }
}

std::string strip(std::string_view text) {
  constexpr std::string_view space = " \t\n\r\v\f\x1c\x1d\x1e\x1f";
  const std::size_t first = text.find_first_not_of(space);
  if (first == std::string_view::npos) return "";
  return std::string(text.substr(first, text.find_last_not_of(space) - first + 1));
}

std::vector<std::string_view> split_lines(std::string_view text) {
  std::vector<std::string_view> lines;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find_first_of("\n\r\v\f\x1c\x1d\x1e", start);
    if (end == std::string_view::npos) end = text.size();
    lines.push_back(text.substr(start, end - start));
    start = text.compare(end, 2, "\r\n") == 0 ? end + 2 : end + 1;
  }
  return lines;
}

// GoogleTest's "path/file.cpp:42: Skipped" (the reason is on the next non-empty line).
bool is_gtest_skip_line(std::string_view line) {
  constexpr std::string_view tail = ": Skipped";
  if (!line.ends_with(tail)) return false;
  line.remove_suffix(tail.size());
  std::size_t digits = 0;
  while (digits < line.size() && line[line.size() - 1 - digits] >= '0' && line[line.size() - 1 - digits] <= '9') {
    ++digits;
  }
  return digits > 0 && digits < line.size() && line[line.size() - 1 - digits] == ':';
}

// All the text directly inside `node` (text split by a comment or CDATA comes as several nodes).
std::string text_of(pugi::xml_node node) {
  std::string text;
  for (pugi::xml_node child = node.first_child(); child; child = child.next_sibling()) {
    if (child.type() == pugi::node_pcdata || child.type() == pugi::node_cdata) text += child.value();
  }
  return text;
}

std::string shorten(std::string text) {
  // Text from the file reaches the terminal without control characters (ANSI escapes, newlines).
  for (char& c : text) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
  }
  if (text.size() > kMaxReasonChars) text = text.substr(0, kMaxReasonChars) + "... (" + std::to_string(text.size()) + " characters)";
  return text;
}

// The reason a skipped test printed: GoogleTest's line after "file:line: Skipped", a
// "SKIPPED: reason" line (the course's -P scripts), else what ctest recorded.
std::string skip_reason(pugi::xml_node testcase) {
  const std::string out = text_of(testcase.child("system-out"));
  const std::vector<std::string_view> lines = split_lines(out);
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (is_gtest_skip_line(strip(lines[i]))) {
      for (std::size_t j = i + 1; j < lines.size(); ++j) {
        if (!strip(lines[j]).empty()) return shorten(strip(lines[j]));
      }
    }
    const std::string line = strip(lines[i]);
    if (line.starts_with("SKIPPED:") && !strip(std::string_view(line).substr(8)).empty()) {
      return shorten(strip(std::string_view(line).substr(8)));
    }
  }
  const std::string message = testcase.child("skipped").attribute("message").value();
  return message.empty() ? "no reason printed" : shorten(message);
}

// Every <testcase> in document order, walked without recursion.
std::vector<pugi::xml_node> testcases_of(pugi::xml_node root) {
  std::vector<pugi::xml_node> found;
  pugi::xml_node node = root;
  while (node) {
    if (node.type() == pugi::node_element && std::string_view(node.name()) == "testcase") found.push_back(node);
    if (node.first_child()) {
      node = node.first_child();
      continue;
    }
    while (node && node != root && !node.next_sibling()) node = node.parent();
    node = node && node != root ? node.next_sibling() : pugi::xml_node();
  }
  return found;
}

// The JUnit document in `path`, checked: well-formed XML whose root is <testsuite(s)>.
void load_junit(const std::string& path, pugi::xml_document& document) {
  std::string text;
  try {
    text = course::read_file(path, kMaxJunitBytes);
  } catch (const course::Error& error) {
    throw course::UsageError("cannot read " + path + ": " + error.what());
  }
  try {
    check_character_references(text);
    const pugi::xml_parse_result result = document.load_buffer(text.data(), text.size());
    if (!result) {
      throw course::Error(std::string(result.description()) + " (line " +
                          std::to_string(line_of(text, static_cast<std::size_t>(std::max<std::ptrdiff_t>(result.offset, 0)))) +
                          ")");
    }
  } catch (const course::Error& error) {
    throw course::Error("cannot read " + path + ": " + error.what());
  }
  // pugixml accepts several top-level elements; a JUnit file has exactly one.
  int elements = 0;
  for (const pugi::xml_node node : document.children()) elements += node.type() == pugi::node_element;
  if (elements != 1) {
    throw course::Error(path + " is not ctest's JUnit file: it has " + std::to_string(elements) +
                        " top-level elements, not one <testsuite>");
  }
  const std::string_view root = document.document_element().name();
  if (root != "testsuite" && root != "testsuites") {
    throw course::Error(path + " is not ctest's JUnit file: its root element is <" + std::string(root) +
                        ">, not <testsuite>");
  }
}

int run(int argc, char** argv) {
  CLI::App app("Prints how many tests passed, were skipped (by reason) and failed, from ctest's JUnit file",
               "course_test_summary");
  std::string path;
  app.add_option("junit", path, "the file written by ctest --output-junit");
  course::parse_command_line(app, argc, argv);
  if (path.empty()) throw course::UsageError("give the JUnit file that ctest --output-junit wrote");

  pugi::xml_document document;
  load_junit(path, document);
  const std::vector<pugi::xml_node> testcases = testcases_of(document.document_element());
  if (testcases.empty()) throw course::Error(path + " lists no test: ctest ran none (a filter that matched nothing?)");
  int passed = 0, skipped = 0, failed = 0, disabled = 0;
  std::vector<std::pair<std::string, std::vector<std::string>>> reasons;  // in order first seen
  std::vector<std::string> failed_names;
  for (const pugi::xml_node testcase : testcases) {
    const std::string_view status = testcase.attribute("status").value();
    const std::string name = shorten(testcase.attribute("name").as_string("?"));
    if (status == "run") {
      ++passed;
    } else if (status == "fail") {
      ++failed;
      failed_names.push_back(name);
    } else if (status == "disabled") {
      ++disabled;
    } else {  // "notrun": skipped, or not run at all (a missing binary)
      ++skipped;
      const std::string reason = skip_reason(testcase);
      auto group = std::find_if(reasons.begin(), reasons.end(), [&](const auto& item) { return item.first == reason; });
      if (group == reasons.end()) group = reasons.insert(reasons.end(), {reason, {}});
      group->second.push_back(name);
    }
  }
  // Most common reason first; a stable sort keeps equal counts in the order first seen.
  std::stable_sort(reasons.begin(), reasons.end(),
                   [](const auto& a, const auto& b) { return a.second.size() > b.second.size(); });

  std::cout << "== " << passed << " passed, " << skipped << " skipped, " << failed << " failed";
  if (disabled) std::cout << ", " << disabled << " disabled";
  std::cout << " (of " << testcases.size() << " tests)\n";
  for (const auto& [reason, names] : reasons) {
    std::cout << "   " << names.size() << " skipped because: " << reason << "  (e.g. " << names.front() << ")\n";
  }
  for (const std::string& name : failed_names) std::cout << "   failed: " << name << "\n";
  std::cout.flush();
  if (!std::cout) throw course::Error("cannot write the summary to standard output (a full disk or a closed pipe?)");
  return course::kExitOk;
}

}  // namespace

int main(int argc, char** argv) { return course::run_lesson(argc, argv, run); }
