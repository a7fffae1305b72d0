// Lesson 05, deep dive: the histogram of the escape counts, its cumulative sum (CDF), and the image
// coloured by it (histogram equalisation). Shared by main.cpp (histogram_rows.cpp) and the tests;
// light, so the kernel files include it.
//
//   histogram_cpu.cpp              the CPU histogram (one thread, OpenMP), prefix sum, equalisation
//   kernels/04_hist_global_atomic.cu   step 1: one global atomicAdd per pixel (contention)
//   kernels/05_hist_private_shared.cu  step 2: a private histogram per block in shared memory
//   kernels/06_hist_warp_aggregated.cu step 3: equal counts in a warp combined (__match_any_sync)
//   kernels/07_hist_warp_uniform.cu    step 4: a warp of one count adds once (shuffle + vote)
//   kernels/08_hist_private_streamed.cu step 5: step 2 with 4 loads in flight, one block per SM
//   kernels/12_hist_runs.cu            step 6: 16 neighbouring counts per thread, one atomic per run
//   kernels/13_hist_one_launch.cu      step 7: step 6 zeroing the histogram itself (one launch)
//   kernels/14_hist_streamed_lean.cu   step 8: step 5 with one test for a load's four counts
//   kernels/15_hist_streamed_one_launch.cu step 9: step 8 in one launch that waits for nothing
//   kernels/09_hist_cub.cu             the library row: cub::DeviceHistogram::HistogramEven
//   kernels/10_cdf_block_scan.cu       the CDF by one block's scan
//   kernels/11_cdf_cub.cu              the library row: cub::DeviceScan::InclusiveSum
//   kernels/histogram_registry.inc     the histogram steps, one line each (main and the tests read it)
//
// One bin per iteration count: a count c (0 <= c <= max_iters) goes to bin c, so there are
// max_iters + 1 bins, the last one the set's interior. Bins hold uint32: the lesson allows at most
// 2^30 pixels, so no bin and no prefix sum can overflow.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "course/image.hpp"

namespace mandelbrot::histogram {

// ---- CPU (histogram_cpu.cpp) ------------------------------------------------------------------
enum class CpuHistogram {
  serial,  // one thread: ++bins[count] per pixel
  openmp,  // every thread counts into its own histogram, then the histograms are added up
};
// bins[c] = the number of pixels whose count is c. Counts >= bins.size() are not counted (the
// GPU kernels and cub::DeviceHistogram::HistogramEven skip them too).
void histogram_cpu(std::span<const std::uint32_t> counts, std::span<std::uint32_t> bins, CpuHistogram method);
std::vector<std::uint32_t> histogram_of(std::span<const std::uint32_t> counts, int num_bins);
// cdf[i] = bins[0] + ... + bins[i] (an inclusive prefix sum).
void inclusive_sum_cpu(std::span<const std::uint32_t> bins, std::span<std::uint32_t> cdf);

// Histogram equalisation: a pixel outside the set with count c gets the grey level
//   1 + floor(254 * cdf[c] / cdf[max_iters - 1])
// (cdf[c] / cdf[max_iters - 1] is the share of the pixels outside the set whose count is at most
// c); the interior (c == max_iters) gets 0. Levels spread evenly over the pixels, not over the
// counts: a deep zoom whose counts all lie between 2,000 and 2,300 still uses every level.
// `cdf` has max_iters + 1 entries.
// [docs:equalised_level]
inline std::uint8_t equalised_level(std::uint32_t count, std::span<const std::uint32_t> cdf, int max_iters) {
  const auto interior = static_cast<std::uint32_t>(max_iters);
  if (count >= interior) return 0;
  const std::uint64_t outside = cdf[interior - 1];  // every pixel outside the set
  if (outside == 0) return 0;
  return static_cast<std::uint8_t>(1 + 254 * static_cast<std::uint64_t>(cdf[count]) / outside);
}
// [docs:end equalised_level]
// The counts as grey levels, equalised (the image --colour equalised writes).
course::Image equalise(std::span<const std::uint32_t> counts, int width, int height, int max_iters,
                       std::span<const std::uint32_t> cdf);

// ---- GPU: the histogram steps (kernels/NN_hist_*.cu) -------------------------------------------
// What every histogram launcher receives: n counts in device memory, the histogram (num_bins
// uint32 in device memory, which the launcher fills completely: no need to zero it first), and
// the temporary storage its setup allocated (temp_bytes, below; only the library row needs any).
struct HistogramArgs {
  const std::uint32_t* counts = nullptr;
  std::size_t n = 0;
  std::uint32_t* bins = nullptr;
  int num_bins = 0;
  void* temp = nullptr;
  std::size_t temp_bytes = 0;
};
using HistogramFn = void (*)(const HistogramArgs& args, cudaStream_t stream);
// The temporary storage a launcher needs for n counts and num_bins bins (an untimed setup step).
using TempBytesFn = std::size_t (*)(std::size_t n, int num_bins);

struct HistogramKernel {
  const char* name;
  const char* summary;
  bool best;      // the lesson's headline histogram kernel (the row held against the library)
  bool library;   // the library row
  HistogramFn launch;
  TempBytesFn temp_bytes;  // nullptr: needs none
  bool on_request;         // a "make it fast" exercise's (exercises/registry.inc): a row only when --kernel names it
};

// The shared-memory histograms hold at most this many bins (48 KB of uint32, the most a block may
// have without opting in); counts at or above it go straight to the global histogram.
inline constexpr int kSharedBins = 12288;

#define COURSE_HISTOGRAM(name, summary, best, library, temp) \
  void launch_##name(const HistogramArgs& args, cudaStream_t stream);
#include "kernels/histogram_registry.inc"
#undef COURSE_HISTOGRAM
// The exercise's lines are written as the other lessons' exercises/registry.inc (COURSE_KERNEL,
// .on_request = true): each is a histogram method run only by name.
#define COURSE_KERNEL(name, summary, ...) void launch_##name(const HistogramArgs& args, cudaStream_t stream);
#include "exercises/registry.inc"
#undef COURSE_KERNEL
std::size_t hist_cub_temp_bytes(std::size_t n, int num_bins);

// The steps, then the exercise's methods (on_request).
inline constexpr HistogramKernel kHistogramKernels[] = {
#define COURSE_HISTOGRAM(name, summary, best, library, temp) {#name, summary, best, library, &launch_##name, temp, false},
#include "kernels/histogram_registry.inc"
#undef COURSE_HISTOGRAM
#define COURSE_KERNEL(name, summary, ...) {#name, summary, false, false, &launch_##name, nullptr, true},
#include "exercises/registry.inc"
#undef COURSE_KERNEL
};

// ---- GPU: the CDF (kernels/10_cdf_block_scan.cu, kernels/11_cdf_cub.cu) ------------------------
// cdf[i] = bins[0] + ... + bins[i] for i < num_bins, in device memory.
struct ScanArgs {
  const std::uint32_t* bins = nullptr;
  std::uint32_t* cdf = nullptr;
  int num_bins = 0;
  void* temp = nullptr;
  std::size_t temp_bytes = 0;
};
void launch_cdf_block_scan(const ScanArgs& args, cudaStream_t stream);
void launch_cdf_cub(const ScanArgs& args, cudaStream_t stream);
std::size_t cdf_cub_temp_bytes(int num_bins);

// The SM count of the current device (asked once per device).
int current_sm_count();

}  // namespace mandelbrot::histogram
