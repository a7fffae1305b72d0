// The NVRTC program owner: create, compile, fetch PTX/CUBIN and the log, destroy.
#include "course/nvrtc.hpp"

#include <sstream>

#include "course/check_nvrtc.hpp"
#include "course/watchdog.hpp"

namespace course::nvrtc {

namespace {

// The first line of the log that reports an error, else its first non-empty line: enough for
// a one-line message; the whole log stays available in CompileError::log().
std::string first_error_line(const std::string& log) {
  std::istringstream lines(log);
  std::string line, first_nonempty;
  while (std::getline(lines, line)) {
    if (line.find("error") != std::string::npos) return line;
    if (first_nonempty.empty() && !line.empty()) first_nonempty = line;
  }
  return first_nonempty.empty() ? "the log is empty" : first_nonempty;
}

std::size_t count_lines(const std::string& text) {
  std::size_t lines = 0;
  for (char c : text) lines += c == '\n';
  return lines + (!text.empty() && text.back() != '\n');
}

}  // namespace

Program::Program(std::string_view source, std::string name) : name_(std::move(name)) {
  // NVRTC copies the source; it must be NUL-terminated, so hand it a std::string.
  const std::string text(source);
  NVRTC_CHECK(nvrtcCreateProgram(&program_, text.c_str(), name_.c_str(), 0, nullptr, nullptr));
}

Program::~Program() {
  // nvrtcDestroyProgram only fails for a null handle; a destructor must not throw anyway.
  if (program_) nvrtcDestroyProgram(&program_);
}

Program& Program::operator=(Program&& other) noexcept {
  if (this != &other) {
    if (program_) nvrtcDestroyProgram(&program_);
    program_ = std::exchange(other.program_, nullptr);
    name_ = std::move(other.name_);
  }
  return *this;
}

void Program::add_name_expression(const std::string& expression) {
  NVRTC_CHECK(nvrtcAddNameExpression(program_, expression.c_str()));
}

std::string Program::log() const {
  std::size_t size = 0;
  NVRTC_CHECK(nvrtcGetProgramLogSize(program_, &size));
  std::string text(size, '\0');
  if (size > 0) NVRTC_CHECK(nvrtcGetProgramLog(program_, text.data()));
  while (!text.empty() && text.back() == '\0') text.pop_back();  // the size counts the terminator
  return text;
}

std::string Program::compile(const std::vector<std::string>& options) {
  std::vector<const char*> pointers;
  pointers.reserve(options.size());
  for (const std::string& option : options) pointers.push_back(option.c_str());
  // A source can keep the compiler busy for ever (nested macros that double at every level):
  // the watchdog ends the program past --timeout, naming the compile.
  nvrtcResult status = NVRTC_SUCCESS;
  {
    WatchdogScope watchdog("the NVRTC compile of " + name_, watchdog_limit());
    status = nvrtcCompileProgram(program_, static_cast<int>(pointers.size()), pointers.data());
  }
  std::string text = log();
  if (status != NVRTC_SUCCESS) {
    std::string joined;
    for (const std::string& option : options) joined += (joined.empty() ? "" : " ") + option;
    // The message first: the log is moved into the exception after it has been read.
    const std::string message = "NVRTC error: compiling " + name_ + " (" + joined + ") failed: " +
                                nvrtcGetErrorString(status) + ": " + first_error_line(text) + " (" +
                                std::to_string(count_lines(text)) + " lines of compiler log)";
    throw CompileError(message, std::move(text));
  }
  return text;
}

std::string Program::ptx() const {
  std::size_t size = 0;
  NVRTC_CHECK(nvrtcGetPTXSize(program_, &size));
  std::string text(size, '\0');
  NVRTC_CHECK(nvrtcGetPTX(program_, text.data()));
  while (!text.empty() && text.back() == '\0') text.pop_back();
  return text;
}

std::vector<char> Program::cubin() const {
  std::size_t size = 0;
  // Compiled for a virtual architecture (compute_XX), there is no CUBIN: NVRTC says so here.
  NVRTC_CHECK(nvrtcGetCUBINSize(program_, &size));
  std::vector<char> image(size);
  if (size > 0) NVRTC_CHECK(nvrtcGetCUBIN(program_, image.data()));
  return image;
}

std::string Program::lowered_name(const std::string& expression) const {
  const char* lowered = nullptr;
  NVRTC_CHECK(nvrtcGetLoweredName(program_, expression.c_str(), &lowered));
  return lowered;  // owned by the program: copy it before the program goes away
}

std::string version() {
  int major = 0, minor = 0;
  NVRTC_CHECK(nvrtcVersion(&major, &minor));
  return std::to_string(major) + "." + std::to_string(minor);
}

std::vector<int> supported_architectures() {
  int count = 0;
  NVRTC_CHECK(nvrtcGetNumSupportedArchs(&count));
  std::vector<int> architectures(static_cast<std::size_t>(count));
  if (count > 0) NVRTC_CHECK(nvrtcGetSupportedArchs(architectures.data()));
  return architectures;
}

}  // namespace course::nvrtc
