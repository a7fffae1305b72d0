// Progress lines for long work: delayed, rate-limited (also across reporters), with an estimate of the time left.
#include "course/progress.hpp"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <utility>

#include "course/format.hpp"

namespace course {

std::string format_duration(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0) return "?";
  const auto total = static_cast<long long>(std::llround(seconds));
  char text[48];
  if (total < 60) {
    std::snprintf(text, sizeof text, "%lld s", total);
  } else if (total < 3600) {
    std::snprintf(text, sizeof text, "%lld min %lld s", total / 60, total % 60);
  } else {
    std::snprintf(text, sizeof text, "%lld h %02lld min", total / 3600, (total % 3600) / 60);
  }
  return text;
}

Progress::Progress(std::string what, std::uint64_t total, std::string unit)
    : Progress(std::move(what), total, std::move(unit), Options{}) {}

Progress::Progress(std::string what, std::uint64_t total, std::string unit, Options options)
    : what_(std::move(what)), unit_(std::move(unit)), total_(total), options_(std::move(options)) {
  start_s_ = now();
  next_line_s_.store(start_s_ + options_.delay_s);
}

Progress::~Progress() = default;

namespace {
// When any Progress on the real clock last printed: successive or nested ones (each repetition
// of a timed row, a loop inside a row) share one budget of a line per interval.
std::atomic<double> g_last_line_s{-1e300};
}  // namespace

double Progress::now() const {
  if (options_.now_s) return options_.now_s();
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

void Progress::advance(std::uint64_t amount) {
  const std::uint64_t done = done_.fetch_add(amount, std::memory_order_relaxed) + amount;
  if (total_ > 0 && done >= total_) return;  // finished: nothing left to announce
  const double time = now();
  if (time < next_line_s_.load(std::memory_order_relaxed)) return;
  std::unique_lock<std::mutex> lock(printing_, std::try_to_lock);
  if (!lock.owns_lock() || time < next_line_s_.load(std::memory_order_relaxed)) return;  // another thread prints
  const bool real_clock = !options_.now_s;
  if (real_clock && time < g_last_line_s.load() + options_.interval_s) return;
  next_line_s_.store(time + options_.interval_s, std::memory_order_relaxed);
  if (real_clock) g_last_line_s.store(time);
  print(done, time - start_s_);
}

void Progress::print(std::uint64_t done, double elapsed) {
  std::ostream& out = options_.out ? *options_.out : std::cout;
  out << "  ... " << what_ << ": ";
  if (total_ > 0) {
    const std::uint64_t shown = done < total_ ? done : total_;
    const double fraction = static_cast<double>(shown) / static_cast<double>(total_);
    out << static_cast<int>(100 * fraction) << "% (" << format_count(shown) << " of " << format_count(total_) << " "
        << unit_ << "), " << format_duration(elapsed) << " so far";
    if (shown > 0 && shown < total_) out << ", about " << format_duration(elapsed * (1 - fraction) / fraction) << " left";
  } else {
    out << format_count(done) << " " << unit_ << ", " << format_duration(elapsed) << " so far";
  }
  out << std::endl;
  ++lines_;
}

}  // namespace course
