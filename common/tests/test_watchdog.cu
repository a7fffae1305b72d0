// The watchdog (course/watchdog.hpp): a scope that ends in time fires nothing; one that runs past
// its limit ends the process with exit 3 and one line naming it; --timeout sets the limit and 0
// turns it off. On a GPU: a row whose kernel never ends is stopped, naming the row.
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "course/check.hpp"
#include "course/device_buffer.hpp"
#include "course/errors.hpp"
#include "course/harness.hpp"
#include "course/watchdog.hpp"
#include "gpu_test.hpp"

namespace {

using namespace std::chrono_literals;

class Watchdog : public ::testing::Test {
 protected:
  void SetUp() override { GTEST_FLAG_SET(death_test_style, "threadsafe"); }
};

TEST_F(Watchdog, AScopeThatEndsInTimeFiresNothing) {
  {
    course::WatchdogScope scope("quick work", 0.5);
    std::this_thread::sleep_for(10ms);
  }
  std::this_thread::sleep_for(800ms);  // past the deadline of the scope that ended
  SUCCEED();
}

TEST_F(Watchdog, PastItsLimitTheProcessEndsWithExit3AndOneLine) {
  EXPECT_EXIT(
      {
        course::set_watchdog_program("sleeper");
        course::WatchdogScope scope("GPU row 'sleeper'", 0.3);
        std::this_thread::sleep_for(30s);
      },
      ::testing::ExitedWithCode(course::kExitRuntimeError),
      "^sleeper: error: GPU row 'sleeper' ran past its time limit of 0.3 s \\(--timeout\\); stopped");
}

TEST_F(Watchdog, NestedScopesTheFirstDeadlineNamesItsScope) {
  EXPECT_EXIT(
      {
        course::WatchdogScope outer("the outer row", 60);
        course::WatchdogScope inner("the inner compile", 0.2);
        std::this_thread::sleep_for(30s);
      },
      ::testing::ExitedWithCode(course::kExitRuntimeError), "the inner compile ran past its time limit of 0.2 s");
}

TEST_F(Watchdog, ZeroArmsNothing) {
  course::WatchdogScope scope("no limit", 0);
  std::this_thread::sleep_for(50ms);
  SUCCEED();
}

TEST_F(Watchdog, TimeoutFlagSetsTheLimitAndIsChecked) {
  course::LessonCli cli("watchdog_test", "t", {"-l,--length", "elements", 100, 1000});
  const std::vector<const char*> argv = {"watchdog_test", "--timeout", "2.5"};
  EXPECT_EQ(cli.parse(static_cast<int>(argv.size()), argv.data()).timeout, 2.5);
  EXPECT_EQ(course::watchdog_limit(), 2.5);
  course::set_watchdog_limit(course::kDefaultTimeoutSeconds);
  for (const char* bad : {"-1", "abc", "1e9"}) {
    course::LessonCli other("watchdog_test", "t", {"-l,--length", "elements", 100, 1000});
    const std::vector<const char*> bad_argv = {"watchdog_test", "--timeout", bad};
    try {
      other.parse(static_cast<int>(bad_argv.size()), bad_argv.data());
      ADD_FAILURE() << "--timeout " << bad << " was accepted";
    } catch (const course::UsageError& error) {
      EXPECT_NE(std::string(error.what()).find("--timeout"), std::string::npos) << error.what();
    }
  }
}

__global__ void endless(const volatile int* flag) {
  while (*flag == 0) {
  }
}

// What an endless edit of a lesson kernel does: the row's verified run never returns.
// A lesson with one GPU row whose kernel never ends, run with --timeout 2.
void run_endless_row() {
  course::set_watchdog_program("watchdog_test");
  course::Lesson lesson("watchdog_test", "an endless kernel", {"-l,--length", "elements", 100, 1000});
  const std::vector<const char*> argv = {"watchdog_test", "--timeout", "2", "--warmup", "0", "--reps", "1"};
  lesson.parse(static_cast<int>(argv.size()), argv.data());
  course::DeviceBuffer<int> flag(1);
  CUDA_CHECK(cudaMemset(flag.data(), 0, sizeof(int)));
  lesson.add({.name = "GPU endless", .target = course::Target::gpu, .run = [&](cudaStream_t stream) {
                endless<<<1, 1, 0, stream>>>(flag.data());
                CUDA_CHECK_LAUNCH("endless");
              }});
  lesson.run_variants();
}

class GpuExclusiveWatchdog : public Watchdog {};

// What an endless edit of a lesson kernel does: the row's verified run never returns.
TEST_F(GpuExclusiveWatchdog, RowWithAnEndlessKernelIsStoppedNamingTheRow) {
  COURSE_REQUIRE_GPU_OR_SKIP();
  EXPECT_EXIT(run_endless_row(), ::testing::ExitedWithCode(course::kExitRuntimeError),
              "^watchdog_test: error: GPU row 'GPU endless' ran past its time limit of 2 s");
}

}  // namespace
