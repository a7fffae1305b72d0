// Measuring the copy ceilings the lessons are held against.
#include "course/ceilings.hpp"

#include <omp.h>

#include <algorithm>
#include <memory>
#include <vector>
#include <cstring>
#include <optional>
#include <string>

#include "course/check.hpp"
#include "course/device_buffer.hpp"
#include "course/format.hpp"
#include "course/stream.hpp"

namespace course {

Ceiling measure_device_copy(std::size_t bytes_moved, const RepeatOptions& options, bool flush_l2) {
  std::size_t free_bytes = 0, total_bytes = 0;
  CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  // Each buffer holds half the traffic; keep both within half of what is free.
  const std::size_t buffer_bytes = std::max<std::size_t>(4, std::min(bytes_moved / 2, free_bytes / 4));

  DeviceBuffer<unsigned char> source(buffer_bytes, "copy ceiling source");
  DeviceBuffer<unsigned char> destination(buffer_bytes, "copy ceiling destination");
  source.zero();  // copying never-written memory would be flagged by compute-sanitizer initcheck
  std::optional<L2Flusher> flusher;
  if (flush_l2) flusher.emplace();

  Stream stream;
  const TimingStats stats = time_device(
      options, stream.get(),
      [&] {
        CUDA_CHECK(cudaMemcpyAsync(destination.data(), source.data(), buffer_bytes, cudaMemcpyDeviceToDevice,
                                   stream.get()));
      },
      flusher ? &*flusher : nullptr);

  Ceiling ceiling;
  ceiling.name = "d2d_copy";
  ceiling.unit = "GB/s";
  ceiling.value = 2.0 * static_cast<double>(buffer_bytes) / (stats.median_ms * 1e6);
  ceiling.description = "cudaMemcpy device-to-device, 2 x " + format_bytes(static_cast<double>(buffer_bytes)) +
                        " (bytes read + written), " + (flush_l2 ? "L2 flushed" : "L2 warm") + ", median of " +
                        std::to_string(stats.reps);
  return ceiling;
}

Ceiling measure_pinned_copy(std::size_t bytes, cudaMemcpyKind direction, const RepeatOptions& options) {
  const bool to_device = direction == cudaMemcpyHostToDevice;
  PinnedBuffer<unsigned char> host(bytes, "pinned copy ceiling");
  DeviceBuffer<unsigned char> device(bytes, "pinned copy ceiling");
  std::memset(host.data(), 1, bytes);
  device.zero();

  Stream stream;
  const TimingStats stats = time_device(options, stream.get(), [&] {
    if (to_device) {
      CUDA_CHECK(cudaMemcpyAsync(device.data(), host.data(), bytes, direction, stream.get()));
    } else {
      CUDA_CHECK(cudaMemcpyAsync(host.data(), device.data(), bytes, direction, stream.get()));
    }
  });

  Ceiling ceiling;
  ceiling.name = to_device ? "pinned_h2d" : "pinned_d2h";
  ceiling.unit = "GB/s";
  ceiling.value = static_cast<double>(bytes) / (stats.median_ms * 1e6);
  ceiling.description = std::string("cudaMemcpy pinned ") + (to_device ? "host-to-device" : "device-to-host") +
                        ", " + format_bytes(static_cast<double>(bytes)) + ", median of " + std::to_string(stats.reps);
  return ceiling;
}

namespace {
// A plain vectorised loop, kept a loop: GCC would otherwise turn it into calls of memcpy, whose
// large-size path (non-temporal stores) measures something other than the lessons' loops do.
__attribute__((optimize("no-tree-loop-distribute-patterns"))) void parallel_copy(const float* source,
                                                                                  float* destination,
                                                                                  std::int64_t n) {
#pragma omp parallel for simd schedule(static)
  for (std::int64_t i = 0; i < n; ++i) destination[i] = source[i];
}
}  // namespace

Ceiling measure_host_copy(std::size_t bytes_moved, const RepeatOptions& options) {
  const std::size_t count = std::max<std::size_t>(1, bytes_moved / 2 / sizeof(float));
  // Not std::vector: its constructor would write every page from one thread.
  const std::unique_ptr<float[]> source(new float[count]), destination(new float[count]);
  const std::int64_t n = static_cast<std::int64_t>(count);
  // First touch by the threads that will copy, in the same static slices: on a multi-socket
  // host each page then lives next to the core that uses it, as in the lessons' OpenMP loops.
#pragma omp parallel for simd schedule(static)
  for (std::int64_t i = 0; i < n; ++i) {
    source[i] = 1.0f;
    destination[i] = 0.0f;
  }
  const TimingStats stats = time_host(options, [&] { parallel_copy(source.get(), destination.get(), n); });
  Ceiling ceiling;
  ceiling.name = "host_copy";
  ceiling.unit = "GB/s";
  ceiling.value = 2.0 * static_cast<double>(count * sizeof(float)) / (stats.median_ms * 1e6);
  ceiling.description = "host copy, 2 x " + format_bytes(static_cast<double>(count * sizeof(float))) + " over " +
                        std::to_string(omp_get_max_threads()) + " OpenMP threads, median of " +
                        std::to_string(stats.reps);
  return ceiling;
}

}  // namespace course
