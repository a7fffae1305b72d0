// How many CPU threads the course lets OpenMP start, decided in one place.
//
// Teaches: a thread count is input like any other. OMP_NUM_THREADS=100000 makes libgomp try to
// start 100,000 threads at the first parallel loop: thread creation fails or the process
// crashes, long after the value was read. The course checks the count before any work and
// refuses (exit 2, one line) more than kThreadsPerCpu threads per logical CPU: enough to show
// what oversubscribing the cores does, far below what breaks a machine.
#pragma once

#include <cstddef>

namespace course {

inline constexpr int kThreadsPerCpu = 4;

int logical_cpus();     // of this machine, at least 1
int max_cpu_threads();  // kThreadsPerCpu * logical_cpus()

// Sets the OpenMP thread count for the run: `requested` (--threads) when above 0, otherwise what
// OpenMP would use (OMP_NUM_THREADS, or all cores). Throws UsageError naming --threads or
// OMP_NUM_THREADS when the count is above max_cpu_threads(). Every program of the course calls
// it before its first parallel loop (LessonCli::parse does for the lessons).
void apply_cpu_threads(int requested = 0);

// The threads a parallel loop over `work_items` items may use, capped by max_cpu_threads():
// for library code (the random fills) that may run before apply_cpu_threads, e.g. in tests.
int loop_threads(std::size_t work_items);

}  // namespace course
