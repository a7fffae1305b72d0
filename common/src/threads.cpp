// The CPU thread count: checked once, and capped in library loops.
#include "course/threads.hpp"

#include <omp.h>

#include <algorithm>
#include <cstdlib>
#include <string>
#include <thread>

#include "course/errors.hpp"

namespace course {

int logical_cpus() { return std::max(1, static_cast<int>(std::thread::hardware_concurrency())); }

int max_cpu_threads() { return kThreadsPerCpu * logical_cpus(); }

void apply_cpu_threads(int requested) {
  const int limit = max_cpu_threads();
  const std::string why = ": more CPU threads than this machine runs: at most " + std::to_string(limit) + " (" +
                          std::to_string(kThreadsPerCpu) + " per logical CPU, " + std::to_string(logical_cpus()) +
                          " here)";
  if (requested > limit) throw UsageError("--threads " + std::to_string(requested) + why);
  if (requested > 0) {
    omp_set_num_threads(requested);
    return;
  }
  // omp_get_max_threads reads OMP_NUM_THREADS (its first value); no thread is started by asking.
  if (omp_get_max_threads() > limit) {
    const char* variable = std::getenv("OMP_NUM_THREADS");
    throw UsageError("OMP_NUM_THREADS=" + std::string(variable ? variable : std::to_string(omp_get_max_threads())) +
                     why + "; lower or unset it");
  }
}

int loop_threads(std::size_t work_items) {
  const auto items = static_cast<int>(std::min<std::size_t>(std::max<std::size_t>(work_items, 1), 1 << 20));
  return std::min({omp_get_max_threads(), max_cpu_threads(), items});
}

}  // namespace course
