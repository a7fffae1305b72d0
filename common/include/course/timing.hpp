// Timing CPU and GPU work honestly: warm-up, repetitions, min/median/max, optional L2 flush.
//
// Teaches: the first run of anything is slow (page faults, context creation, module loading),
// one sample is noise, and GPU work is asynchronous, so GPU time is measured with events
// recorded in the stream, not with a host clock around a launch that returns at once.
// A vector that fits in L2 (50 MiB on an H100) is served from the cache when the same kernel
// runs again; L2Flusher fills the cache with other, clean data between repetitions, so each one
// starts from DRAM and pays for no one else's writes.
#pragma once

#include <cuda_runtime_api.h>

#include <chrono>
#include <cstddef>
#include <functional>
#include <vector>

#include "course/device_buffer.hpp"

namespace course {

struct TimingStats {
  double min_ms = 0, median_ms = 0, max_ms = 0, mean_ms = 0;
  int reps = 0;
  std::vector<double> samples_ms;

  static TimingStats from_samples(std::vector<double> samples_ms);
};

struct RepeatOptions {
  int warmup = 3;  // untimed runs first
  int reps = 20;   // timed runs; the median is the headline number
};

class HostTimer {
 public:
  HostTimer() : start_(std::chrono::steady_clock::now()) {}
  double elapsed_ms() const {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start_).count();
  }

 private:
  std::chrono::steady_clock::time_point start_;
};

// Runs `work` warmup + reps times and times each timed run with the host's steady clock.
// Use it for CPU code and for GPU sequences that end in a synchronization (end-to-end times).
TimingStats time_host(const RepeatOptions& options, const std::function<void()>& work);

// Evicts the GPU's L2 by writing a scratch buffer twice its size.
// Reads a scratch buffer twice the L2's size (common/src/l2_flush.cu says why reads, not writes).
class L2Flusher {
 public:
  L2Flusher();  // sized from the current device's L2
  void flush(cudaStream_t stream) const;
  std::size_t bytes() const { return scratch_.bytes(); }

 private:
  DeviceBuffer<unsigned char> scratch_;
  DeviceBuffer<unsigned> sink_;  // written only if the impossible happens: keeps the reads alive
  unsigned blocks_ = 0;
};

// Times `enqueue` (which issues GPU work into `stream` and checks its launches) with events.
// With a flusher, L2 is flushed before every run, outside the timed region.
TimingStats time_device(const RepeatOptions& options, cudaStream_t stream,
                        const std::function<void()>& enqueue, const L2Flusher* flusher = nullptr);

}  // namespace course
