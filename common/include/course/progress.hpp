// Progress of long work: a short line at most every few seconds, and none for work that ends soon.
//
// Teaches: a program that computes for minutes must say that it is working, how far it is and
// about how long is left; one that finishes within a few seconds stays quiet. The first line
// comes only after `delay_s` (3 s), the next ones at most every `interval_s` (5 s):
//   "  ... CPU reference, FP32: 41% (420 of 1,024 rows), 12 s so far, about 17 s left"
// Reporters one after another (each repetition of a timed row) or one inside another share the
// interval: the program as a whole prints at most one such line per interval.
// advance() may be called from every OpenMP thread at once: the count is atomic, and one thread
// prints while the others go on (a try-lock: nobody waits for the terminal).
//
//   course::Progress progress("CPU reference, FP32", rows, "rows");
//   #pragma omp parallel for
//   for (int row = 0; row < rows; ++row) { ...; progress.advance(); }
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <mutex>
#include <string>

namespace course {

// "45 s", "3 min 20 s", "2 h 05 min": a duration as people read it.
std::string format_duration(double seconds);

class Progress {
 public:
  struct Options {
    double delay_s = 3;               // quiet before this
    double interval_s = 5;            // then a line at most this often
    std::ostream* out = nullptr;      // nullptr: std::cout
    std::function<double()> now_s;    // the clock in seconds (tests pass their own); empty: steady_clock
  };

  Progress(std::string what, std::uint64_t total, std::string unit);
  Progress(std::string what, std::uint64_t total, std::string unit, Options options);
  ~Progress();
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  void advance(std::uint64_t amount = 1);  // thread-safe; prints when a line is due
  std::uint64_t done() const { return done_.load(std::memory_order_relaxed); }
  int lines_printed() const { return lines_; }

 private:
  double now() const;
  void print(std::uint64_t done, double elapsed);

  std::string what_, unit_;
  std::uint64_t total_;
  Options options_;
  double start_s_;
  std::atomic<std::uint64_t> done_{0};
  std::atomic<double> next_line_s_;
  std::mutex printing_;
  int lines_ = 0;  // written under printing_
};

}  // namespace course
