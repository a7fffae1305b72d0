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
  // libgomp warns about a value it cannot read and goes on with its default: the course refuses it.
  // OMP_NUM_THREADS is one positive whole number, or a comma-separated list of them (nesting levels).
  if (const char* variable = std::getenv("OMP_NUM_THREADS"); variable != nullptr && requested == 0) {
    const std::string text = variable;
    bool valid = !text.empty();
    std::size_t start = 0;
    while (valid && start <= text.size()) {
      const std::size_t comma = std::min(text.find(',', start), text.size());
      const std::string part = text.substr(start, comma - start);
      valid = !part.empty() && part.size() <= 9 && part.find_first_not_of("0123456789") == std::string::npos &&
              std::stol(part) >= 1;
      start = comma + 1;
    }
    if (!valid) {
      throw UsageError("OMP_NUM_THREADS=" + text + ": not a positive whole number of CPU threads; set it to one, or unset it");
    }
  }
  // A stack per thread beyond what any machine gives: libgomp would fail its first thread (exit 1,
  // read as "verification failed"). OMP_STACKSIZE is a size with an optional B, K, M or G.
  if (const char* variable = std::getenv("OMP_STACKSIZE"); variable != nullptr) {
    const std::string text = variable;
    std::size_t digits = 0;
    while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9') ++digits;
    const std::string unit = text.substr(digits);
    const double scale = unit.empty() || unit == "K" || unit == "k" ? 1024.0
                         : unit == "B" || unit == "b"                ? 1.0
                         : unit == "M" || unit == "m"                ? 1024.0 * 1024
                         : unit == "G" || unit == "g"                ? 1024.0 * 1024 * 1024
                                                                     : -1;
    const double bytes = digits == 0 || digits > 15 || scale < 0 ? -1 : std::stod(text.substr(0, digits)) * scale;
    if (bytes <= 0 || bytes > 4.0 * 1024 * 1024 * 1024) {
      throw UsageError("OMP_STACKSIZE=" + text + ": give a stack size per CPU thread up to 4G (e.g. 64M), or unset it");
    }
  }
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
