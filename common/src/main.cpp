// Maps the outcome of a lesson to the course's exit codes, with one-line errors.
#include "course/main.hpp"

#include <filesystem>
#include <iostream>
#include <new>
#include <string>

#include "course/cli.hpp"
#include "course/errors.hpp"
#include "course/report.hpp"
#include "course/watchdog.hpp"

namespace course {

namespace {
std::string one_line(std::string text) {
  for (char& c : text) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  return text;
}
}  // namespace

int run_lesson(int argc, char** argv, const std::function<int(int, char**)>& body) {
  const std::string program = argc > 0 ? std::filesystem::path(argv[0]).filename().string() : "lesson";
  set_watchdog_program(program);
  auto fail = [&](int code, const std::string& message) {
    std::cout.flush();
    std::cerr << program << ": error: " << one_line(message) << std::endl;
    record_failure_in_json(code, one_line(message));  // a JSON written before the failure says so
    return code;
  };
  try {
    return body(argc, argv);
  } catch (const HelpRequested& help) {
    std::cout << help.what() << std::flush;
    return kExitOk;
  } catch (const UsageError& error) {
    return fail(kExitBadCommandLine, std::string(error.what()) + " (see --help)");
  } catch (const Error& error) {
    return fail(kExitRuntimeError, error.what());
  } catch (const std::bad_alloc&) {
    return fail(kExitRuntimeError, "out of host memory (std::bad_alloc)");
  } catch (const std::exception& error) {
    return fail(kExitRuntimeError, std::string("unexpected error: ") + error.what());
  }
}

}  // namespace course
