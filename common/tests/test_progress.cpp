// Progress lines: none for short work, then at most one per interval, with an honest estimate;
// safe to advance from many threads at once.
#include <gtest/gtest.h>

#include <omp.h>

#include <atomic>
#include <sstream>
#include <string>

#include "course/progress.hpp"

namespace {

// A clock the test moves by hand.
struct FakeClock {
  double now = 100;
  course::Progress::Options options(std::ostream& out) {
    course::Progress::Options result;
    result.out = &out;
    result.now_s = [this] { return now; };
    return result;
  }
};

TEST(Progress, QuietForShortWork) {
  std::ostringstream out;
  FakeClock clock;
  {
    course::Progress progress("short", 10, "steps", clock.options(out));
    for (int i = 0; i < 10; ++i) {
      clock.now += 0.2;  // 2 s in all: under the 3 s delay
      progress.advance();
    }
    EXPECT_EQ(progress.lines_printed(), 0);
  }
  EXPECT_EQ(out.str(), "");
}

TEST(Progress, LinesAfterTheDelayAtMostOncePerIntervalWithAnEstimate) {
  std::ostringstream out;
  FakeClock clock;
  {
    course::Progress progress("CPU reference, FP32", 1000, "rows", clock.options(out));
    clock.now += 4;
    progress.advance(400);  // 40% after 4 s: 6 s left at this pace
    EXPECT_EQ(out.str(), "  ... CPU reference, FP32: 40% (400 of 1,000 rows), 4 s so far, about 6 s left\n");
    clock.now += 1;
    progress.advance(100);  // 1 s later: within the 5 s interval, no line
    EXPECT_EQ(progress.lines_printed(), 1);
    clock.now += 4.5;
    progress.advance(100);
    EXPECT_EQ(progress.lines_printed(), 2);
    clock.now += 100;
    progress.advance(300);
    clock.now += 100;
    progress.advance(100);  // the last step: finished, no line
    EXPECT_EQ(progress.lines_printed(), 3);
  }
  const std::string text = out.str();
  EXPECT_NE(text.find("60% (600 of 1,000 rows), 10 s so far, about 6 s left"), std::string::npos) << text;
  EXPECT_NE(text.find("90% (900 of 1,000 rows), 1 min 50 s so far, about 12 s left\n"), std::string::npos) << text;
}

TEST(Progress, ManyThreadsAdvanceAtOnce) {
  std::ostringstream out;
  std::atomic<long> ticks{0};
  course::Progress::Options options;
  options.out = &out;
  options.delay_s = 0;
  options.interval_s = 1e9;  // one line at most, whoever gets there first
  options.now_s = [&ticks] { return static_cast<double>(ticks.fetch_add(1)); };
  course::Progress progress("parallel", 100000, "items", options);
#pragma omp parallel for num_threads(4)
  for (int i = 0; i < 100000; ++i) progress.advance();
  EXPECT_EQ(progress.done(), 100000u);
  EXPECT_EQ(progress.lines_printed(), 1);
}

TEST(Progress, DurationsAsPeopleReadThem) {
  EXPECT_EQ(course::format_duration(0.4), "0 s");
  EXPECT_EQ(course::format_duration(59.4), "59 s");
  EXPECT_EQ(course::format_duration(200), "3 min 20 s");
  EXPECT_EQ(course::format_duration(7500), "2 h 05 min");
  EXPECT_EQ(course::format_duration(-1), "?");
}

}  // namespace
