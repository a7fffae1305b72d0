// course_test_summary: the closing lines of scripts/test_course.sh: how many tests passed, were
// skipped (grouped by the reason each skipped test printed) and failed, read from ctest's JUnit file.
//
// Usage: course_test_summary CTEST_JUNIT.xml     (written by `ctest --output-junit FILE`)
//
// ctest alone ends with "100% tests passed" and a list of names marked "(Skipped)": a skipped GPU
// test then reads like a pass. This groups the skipped tests by the reason each one printed.
// The XML is read by a small checking scanner (elements, attributes, text, the five named entities
// and numeric character references): no XML library, and a truncated or broken file is an error
// rather than a summary of half the tests.
// Exit codes: 0 summary printed (whatever the tests did), 2 bad command line, 3 unreadable or not XML.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstddef>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <map>
#include <memory>
#include <regex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "course/errors.hpp"
#include "course/main.hpp"

namespace {

// One XML element: what the summary needs of it, as an ElementTree-like tree.
struct Element {
  std::string name;
  std::map<std::string, std::string> attributes;
  std::string text;  // the text before the first child element (what <system-out> holds)
  std::vector<std::unique_ptr<Element>> children;

  std::string attribute(const std::string& key, const std::string& fallback = "") const {
    const auto found = attributes.find(key);
    return found == attributes.end() ? fallback : found->second;
  }
  const Element* child(std::string_view child_name) const {
    for (const auto& element : children) {
      if (element->name == child_name) return element.get();
    }
    return nullptr;
  }
};

// Appends code point `value` to `out` as UTF-8.
void append_utf8(std::string& out, unsigned long value) {
  if (value < 0x80) {
    out += static_cast<char>(value);
  } else if (value < 0x800) {
    out += static_cast<char>(0xC0 | (value >> 6));
    out += static_cast<char>(0x80 | (value & 0x3F));
  } else if (value < 0x10000) {
    out += static_cast<char>(0xE0 | (value >> 12));
    out += static_cast<char>(0x80 | ((value >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (value & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (value >> 18));
    out += static_cast<char>(0x80 | ((value >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((value >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (value & 0x3F));
  }
}

// A scanner over the whole document. Errors name the line, like an XML parser's would.
class Scanner {
 public:
  explicit Scanner(std::string text) : text_(std::move(text)) {
    // XML reads every line ending as "\n" (so "\r\n" in a Windows-written file is one break).
    std::string normal;
    normal.reserve(text_.size());
    for (std::size_t i = 0; i < text_.size(); ++i) {
      if (text_[i] == '\r') {
        normal += '\n';
        if (i + 1 < text_.size() && text_[i + 1] == '\n') ++i;
      } else {
        normal += text_[i];
      }
    }
    text_ = std::move(normal);
    if (text_.rfind("\xEF\xBB\xBF", 0) == 0) pos_ = 3;  // a UTF-8 byte-order mark
  }

  // The document's one root element; anything but markup and white space around it is an error.
  std::unique_ptr<Element> document() {
    std::unique_ptr<Element> root;
    while (true) {
      skip_space();
      if (pos_ >= text_.size()) break;
      if (text_[pos_] != '<') fail("text outside the root element");
      if (skip_markup()) continue;
      if (root) fail("junk after the root element");
      root = element();
    }
    if (!root) fail("no element found");
    return root;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    const std::size_t end = std::min(pos_, text_.size());
    const auto line = 1 + std::count(text_.begin(), text_.begin() + static_cast<std::ptrdiff_t>(end), '\n');
    throw course::Error(what + " (line " + std::to_string(line) + ")");
  }

  void skip_space() {
    while (pos_ < text_.size() && std::string_view(" \t\n").find(text_[pos_]) != std::string_view::npos) ++pos_;
  }

  // Skips to just past `terminator`, or fails: an unclosed construct means a truncated file.
  void skip_past(std::string_view terminator, const std::string& what) {
    const std::size_t end = text_.find(terminator, pos_);
    if (end == std::string::npos) fail("unclosed " + what);
    pos_ = end + terminator.size();
  }

  // At '<': skips a declaration, processing instruction, comment or DOCTYPE; false for anything else.
  bool skip_markup() {
    const std::string_view rest = std::string_view(text_).substr(pos_);
    if (rest.starts_with("<?")) {
      skip_past("?>", "processing instruction");
    } else if (rest.starts_with("<!--")) {
      skip_past("-->", "comment");
    } else if (rest.starts_with("<!DOCTYPE")) {
      skip_past(">", "DOCTYPE");
    } else {
      return false;
    }
    return true;
  }

  std::string name() {
    const std::size_t start = pos_;
    while (pos_ < text_.size() &&
           std::string_view(" \t\n/>=<\"'&").find(text_[pos_]) == std::string_view::npos) {
      ++pos_;
    }
    if (pos_ == start) fail("a name was expected");
    return text_.substr(start, pos_ - start);
  }

  // Decodes the entities in text[start, end); `attribute` also turns raw tabs and line breaks into
  // spaces, as XML does for attribute values (an encoded &#10; stays a line break).
  std::string decode(std::size_t start, std::size_t end, bool attribute) {
    std::string out;
    out.reserve(end - start);
    for (std::size_t i = start; i < end; ++i) {
      const char c = text_[i];
      if (c == '<') {
        pos_ = i;
        fail("'<' inside an attribute value");
      }
      if (c != '&') {
        out += attribute && (c == '\t' || c == '\n') ? ' ' : c;
        continue;
      }
      const std::size_t semicolon = text_.find(';', i);
      if (semicolon == std::string::npos || semicolon >= end) {
        pos_ = i;
        fail("'&' that starts no entity");
      }
      const std::string entity = text_.substr(i + 1, semicolon - i - 1);
      static const std::map<std::string, char> named = {
          {"lt", '<'}, {"gt", '>'}, {"amp", '&'}, {"quot", '"'}, {"apos", '\''}};
      if (const auto found = named.find(entity); found != named.end()) {
        out += found->second;
      } else if (static const std::regex numeric("#[0-9]+|#x[0-9A-Fa-f]+"); std::regex_match(entity, numeric)) {
        const bool hex = entity[1] == 'x';
        append_utf8(out, std::stoul(entity.substr(hex ? 2 : 1), nullptr, hex ? 16 : 10));
      } else {
        pos_ = i;
        fail("undefined entity &" + entity + ";");
      }
      i = semicolon;
    }
    return out;
  }

  // At '<' of a start tag: the element, its attributes, text and children, through its end tag.
  std::unique_ptr<Element> element() {
    auto node = std::make_unique<Element>();
    ++pos_;
    node->name = name();
    while (true) {
      skip_space();
      if (pos_ >= text_.size()) fail("unclosed start tag <" + node->name);
      if (text_.compare(pos_, 2, "/>") == 0) {
        pos_ += 2;
        return node;
      }
      if (text_[pos_] == '>') break;
      const std::string key = name();
      skip_space();
      if (pos_ >= text_.size() || text_[pos_] != '=') fail("'=' expected after attribute " + key);
      ++pos_;
      skip_space();
      if (pos_ >= text_.size() || (text_[pos_] != '"' && text_[pos_] != '\'')) fail("quoted value expected");
      const char quote = text_[pos_];
      const std::size_t close = text_.find(quote, pos_ + 1);
      if (close == std::string::npos) fail("unclosed attribute value");
      if (node->attributes.contains(key)) fail("duplicate attribute " + key);
      node->attributes[key] = decode(pos_ + 1, close, true);
      pos_ = close + 1;
    }
    ++pos_;  // past '>' of the start tag
    // Content: text, CDATA, comments, child elements, until the matching end tag.
    while (true) {
      const std::size_t next = text_.find('<', pos_);
      if (next == std::string::npos) {
        pos_ = text_.size();
        fail("unclosed element <" + node->name + ">");
      }
      if (node->children.empty()) node->text += decode_text(pos_, next);
      pos_ = next;
      const std::string_view rest = std::string_view(text_).substr(pos_);
      if (rest.starts_with("</")) {
        pos_ += 2;
        const std::string closing = name();
        if (closing != node->name) fail("mismatched tag </" + closing + "> closes <" + node->name + ">");
        skip_space();
        if (pos_ >= text_.size() || text_[pos_] != '>') fail("unclosed end tag </" + closing);
        ++pos_;
        return node;
      }
      if (rest.starts_with("<![CDATA[")) {
        const std::size_t start = pos_ + 9;
        skip_past("]]>", "CDATA section");
        if (node->children.empty()) node->text += text_.substr(start, pos_ - 3 - start);
      } else if (!skip_markup()) {
        node->children.push_back(element());
      }
    }
  }

  std::string decode_text(std::size_t start, std::size_t end) {
    const std::size_t saved = pos_;
    std::string out = decode(start, end, false);
    pos_ = saved;
    return out;
  }

  std::string text_;
  std::size_t pos_ = 0;
};

// Every element named `name` in document order, the root included (ElementTree's iter()).
void collect(const Element& node, std::string_view name, std::vector<const Element*>& out) {
  if (node.name == name) out.push_back(&node);
  for (const auto& child : node.children) collect(*child, name, out);
}

std::string strip(std::string_view text) {
  constexpr std::string_view space = " \t\n\r\v\f\x1c\x1d\x1e\x1f";
  const std::size_t first = text.find_first_not_of(space);
  if (first == std::string_view::npos) return "";
  return std::string(text.substr(first, text.find_last_not_of(space) - first + 1));
}

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find_first_of("\n\r\v\f\x1c\x1d\x1e", start);
    if (end == std::string::npos) end = text.size();
    lines.push_back(text.substr(start, end - start));
    start = text.compare(end, 2, "\r\n") == 0 ? end + 2 : end + 1;
  }
  return lines;
}

// The reason a skipped test printed: GoogleTest's line after "file:line: Skipped", a
// "SKIPPED: reason" line (the course's -P scripts), else what ctest recorded.
std::string skip_reason(const Element& testcase) {
  static const std::regex gtest_skip(R"(:\d+: Skipped$)");
  static const std::regex script_skip(R"(\s*SKIPPED:\s*(.+))");
  const Element* out = testcase.child("system-out");
  const std::vector<std::string> lines = split_lines(out ? out->text : "");
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (std::regex_search(strip(lines[i]), gtest_skip)) {
      for (std::size_t j = i + 1; j < lines.size(); ++j) {
        if (!strip(lines[j]).empty()) return strip(lines[j]);
      }
    }
    if (std::smatch match; std::regex_match(lines[i], match, script_skip)) return strip(match.str(1));
  }
  const Element* skipped = testcase.child("skipped");
  const std::string message = skipped ? skipped->attribute("message") : "";
  return message.empty() ? "no reason printed" : message;
}

int run(int argc, char** argv) {
  CLI::App app("Prints how many tests passed, were skipped (by reason) and failed, from ctest's JUnit file",
               "course_test_summary");
  std::string path;
  app.add_option("junit", path, "the file written by ctest --output-junit")->required();
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    std::cout << app.help();
    return course::kExitOk;
  } catch (const CLI::ParseError& error) {
    throw course::UsageError(error.what());
  }

  std::unique_ptr<Element> root;
  try {
    if (std::filesystem::is_directory(path)) throw course::Error("it is a folder");
    std::ifstream file(path, std::ios::binary);
    if (!file) throw course::Error("no such file, or not readable");
    root = Scanner(std::string(std::istreambuf_iterator<char>(file), {})).document();
  } catch (const course::Error& error) {
    throw course::Error("cannot read " + path + ": " + error.what());
  }

  std::vector<const Element*> testcases;
  collect(*root, "testcase", testcases);
  int passed = 0, skipped = 0, failed = 0, disabled = 0;
  std::vector<std::pair<std::string, std::vector<std::string>>> reasons;  // in order first seen
  std::vector<std::string> failed_names;
  for (const Element* testcase : testcases) {
    const std::string status = testcase->attribute("status");
    const std::string name = testcase->attribute("name", "?");
    if (status == "run") {
      ++passed;
    } else if (status == "fail") {
      ++failed;
      failed_names.push_back(name);
    } else if (status == "disabled") {
      ++disabled;
    } else {  // "notrun": skipped, or not run at all (a missing binary)
      ++skipped;
      const std::string reason = skip_reason(*testcase);
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
  return course::kExitOk;
}

}  // namespace

int main(int argc, char** argv) { return course::run_lesson(argc, argv, run); }
