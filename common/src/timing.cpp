// Repetition and statistics; the GPU timer (the L2 flush is in l2_flush.cu).
#include "course/timing.hpp"

#include <algorithm>
#include <numeric>
#include <stdexcept>

#include "course/check.hpp"
#include "course/stream.hpp"

namespace course {

TimingStats TimingStats::from_samples(std::vector<double> samples_ms) {
  if (samples_ms.empty()) throw std::invalid_argument("TimingStats::from_samples: no samples");
  TimingStats stats;
  stats.samples_ms = samples_ms;
  std::sort(samples_ms.begin(), samples_ms.end());
  const std::size_t n = samples_ms.size();
  stats.reps = static_cast<int>(n);
  stats.min_ms = samples_ms.front();
  stats.max_ms = samples_ms.back();
  stats.median_ms = n % 2 ? samples_ms[n / 2] : 0.5 * (samples_ms[n / 2 - 1] + samples_ms[n / 2]);
  stats.mean_ms = std::accumulate(samples_ms.begin(), samples_ms.end(), 0.0) / static_cast<double>(n);
  return stats;
}

TimingStats time_host(const RepeatOptions& options, const std::function<void()>& work) {
  for (int i = 0; i < options.warmup; ++i) work();
  std::vector<double> samples;
  samples.reserve(static_cast<std::size_t>(options.reps));
  for (int i = 0; i < options.reps; ++i) {
    HostTimer timer;
    work();
    samples.push_back(timer.elapsed_ms());
  }
  return TimingStats::from_samples(std::move(samples));
}

TimingStats time_device(const RepeatOptions& options, cudaStream_t stream, const std::function<void()>& enqueue,
                        const L2Flusher* flusher) {
  for (int i = 0; i < options.warmup; ++i) enqueue();
  CUDA_CHECK(cudaStreamSynchronize(stream));

  Event start, stop;
  std::vector<double> samples;
  samples.reserve(static_cast<std::size_t>(options.reps));
  for (int i = 0; i < options.reps; ++i) {
    if (flusher) flusher->flush(stream);
    start.record(stream);
    enqueue();
    stop.record(stream);
    stop.synchronize();
    samples.push_back(elapsed_ms(start, stop));
  }
  return TimingStats::from_samples(std::move(samples));
}

}  // namespace course
