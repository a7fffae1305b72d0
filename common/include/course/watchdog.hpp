// The watchdog: a GPU row, a compile or a plan that runs past its time limit ends the program.
//
// Teaches: a kernel that never ends (a student's edit: `while (i < n)` without `++i`) does not
// return an error; cudaStreamSynchronize just waits, and the GPU stays busy for everyone who
// shares it. Nothing inside the process can stop a running kernel, but ending the process can:
// the driver then tears the context down, which stops the kernel and frees the GPU.
//
//   course::WatchdogScope scope("GPU expf", 60.0);   // armed until the end of the block
//   launch(...); stream.synchronize();
//
// On expiry one line goes to stderr, "<program>: error: <what> ran past its time limit of 60 s
// (--timeout); stopped", and the process ends at once with exit code 3 (std::_Exit: no
// destructor runs, since the thread that would run them is the one stuck in the wait).
// Scopes nest: each has its own deadline, and the first deadline to pass names its scope.
// A limit of 0 (or less) arms nothing: --timeout 0 turns the watchdog off.
#pragma once

#include <cstdint>
#include <string>

namespace course {

// The limit every lesson applies to a GPU row's run and to compiles and plans (--timeout),
// in seconds; 0 = none. Set by LessonCli::parse; the default is kDefaultTimeoutSeconds.
inline constexpr double kDefaultTimeoutSeconds = 60.0;
double watchdog_limit();
void set_watchdog_limit(double seconds);

// The program's name in the watchdog's line (run_lesson sets it from argv[0]).
void set_watchdog_program(const std::string& name);

class WatchdogScope {
 public:
  WatchdogScope(std::string what, double seconds);
  ~WatchdogScope();
  WatchdogScope(const WatchdogScope&) = delete;
  WatchdogScope& operator=(const WatchdogScope&) = delete;

 private:
  std::uint64_t id_ = 0;  // 0: nothing armed
};

// The line printed on expiry (without the program's name), for tests and messages.
std::string watchdog_message(const std::string& what, double seconds);

}  // namespace course
