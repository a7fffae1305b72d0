// The watchdog thread: sleeps until the earliest armed deadline, then ends the process.
#include "course/watchdog.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <thread>
#include <vector>

#include "course/errors.hpp"

namespace course {

namespace {
using Clock = std::chrono::steady_clock;

struct Armed {
  std::uint64_t id;
  std::string what;
  double seconds;
  Clock::time_point deadline;
};

struct State {
  std::mutex mutex;
  std::condition_variable changed;
  std::vector<Armed> armed;
  std::uint64_t next_id = 1;
  bool started = false;
  bool stopping = false;  // the program is ending normally: the thread returns
  std::string program = "course";
  double limit = kDefaultTimeoutSeconds;
};

State& state() {
  static State* s = new State;  // never destroyed: the thread may outlive static destruction
  return *s;
}

[[noreturn]] void expire(const std::string& program, const Armed& armed) {
  const std::string line = program + ": error: " + watchdog_message(armed.what, armed.seconds) + "\n";
  // write(2), not iostreams: the main thread may be inside them.
  std::size_t done = 0;
  while (done < line.size()) {
    const ssize_t n = ::write(STDERR_FILENO, line.data() + done, line.size() - done);
    if (n <= 0) break;
    done += static_cast<std::size_t>(n);
  }
  std::_Exit(kExitRuntimeError);
}

void watch() {
  State& s = state();
  std::unique_lock lock(s.mutex);
  for (;;) {
    if (s.stopping) return;
    if (s.armed.empty()) {
      s.changed.wait(lock);
      continue;
    }
    const Armed* first = &s.armed.front();
    for (const Armed& armed : s.armed) {
      if (armed.deadline < first->deadline) first = &armed;
    }
    if (Clock::now() >= first->deadline) expire(s.program, *first);
    s.changed.wait_until(lock, first->deadline);
  }
}
// The thread, joined when the program ends normally (static destruction): a thread left running
// at exit would show as memory possibly lost under valgrind.
struct WatchThread {
  std::thread thread;
  ~WatchThread() {
    if (!thread.joinable()) return;
    {
      std::lock_guard lock(state().mutex);
      state().stopping = true;
    }
    state().changed.notify_all();
    thread.join();
  }
};

WatchThread& watch_thread() {
  static WatchThread owner;
  return owner;
}
}  // namespace

double watchdog_limit() {
  std::lock_guard lock(state().mutex);
  return state().limit;
}

void set_watchdog_limit(double seconds) {
  std::lock_guard lock(state().mutex);
  state().limit = seconds;
}

void set_watchdog_program(const std::string& name) {
  std::lock_guard lock(state().mutex);
  state().program = name;
}

std::string watchdog_message(const std::string& what, double seconds) {
  char text[32];
  std::snprintf(text, sizeof text, "%g s", seconds);
  return what + " ran past its time limit of " + text +
         " (--timeout); stopped (the process ends, which stops its GPU work)";
}

WatchdogScope::WatchdogScope(std::string what, double seconds) {
  if (!(seconds > 0)) return;
  State& s = state();
  std::lock_guard lock(s.mutex);
  id_ = s.next_id++;
  // Beyond a year is no limit (and keeps the time point from overflowing).
  const double capped = std::min(seconds, 365.0 * 24 * 3600);
  s.armed.push_back({id_, std::move(what), seconds,
                     Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(capped))});
  if (!s.started) {
    s.started = true;
    watch_thread().thread = std::thread(watch);
  }
  s.changed.notify_all();
}

WatchdogScope::~WatchdogScope() {
  if (id_ == 0) return;
  State& s = state();
  std::lock_guard lock(s.mutex);
  std::erase_if(s.armed, [this](const Armed& armed) { return armed.id == id_; });
  s.changed.notify_all();
}

}  // namespace course
