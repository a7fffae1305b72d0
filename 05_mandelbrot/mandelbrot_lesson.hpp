// Lesson 05, the pieces main.cpp puts together, so that main.cpp reads like the lesson: the
// command line and its checks, the reference counts of each precision and how a kernel's counts
// are checked against them (lesson_setup.cpp), the FMA ceilings, the rates table and the JSON's
// extra fields (lesson_report.cpp), the block-shape sweep (block_sweep.cpp).
// Only main.cpp includes this header (it carries CLI11 and the harness); the tests use mandelbrot.hpp.
#pragma once

#include <cstdint>
#include <deque>
#include <span>
#include <string>
#include <vector>

#include "course/harness.hpp"
#include "histogram.hpp"
#include "mandelbrot.hpp"

namespace mandelbrot {

// ---- The command line (lesson_setup.cpp) ------------------------------------------------------
struct Options {
  int iters = kClassicIters;
  View view;
  std::vector<double> centre;
  double zoom = 0;
  std::string block = "32x8";
  std::string grid = "auto";
  std::string precision = "both";
  std::string image_path;
  bool gray = false;
  std::string colour = "log";  // --colour: log (the counts on a log scale) or equalised (by their histogram)
  bool histogram = false;      // --histogram: the histogram and CDF rows (deep dive)
  bool skip_serial = false;
};
void add_options(CLI::App& app, Options& options);

// What the options ask for, checked: one-line errors (exit 2) for anything that cannot be drawn.
struct Problem {
  int width = 0, height = 0;
  int iters = 0;
  View view;
  course::LaunchShape launch;     // as asked for (--block, --grid)
  course::Precisions precisions;  // --precision
  std::size_t pixels() const { return static_cast<std::size_t>(width) * static_cast<std::size_t>(height); }
};
Problem check_options(Options& options, const CLI::App& app, int width, int height);

// ---- One precision's reference (lesson_setup.cpp) ---------------------------------------------
struct PrecisionRun {
  course::Precision precision = course::Precision::fp32;
  Frame<float> f32;
  Frame<double> f64;
  std::vector<std::uint32_t> reference;  // the definition, fused arithmetic (CPU, OpenMP)
  std::vector<std::uint32_t> natural;    // natural arithmetic (CPU), computed when a kernel first needs it
  CountStats stats;
  double reference_ms = 0;

  std::string group() const { return std::string(course::precision_name(precision)); }
  template <class T>
  const Frame<T>& frame() const {
    if constexpr (sizeof(T) == sizeof(float)) {
      return f32;
    } else {
      return f64;
    }
  }
  // render_cpu in this precision.
  void render(int max_iters, Arithmetic arithmetic, CpuMethod method, std::span<std::uint32_t> counts) const;
};
// How a kernel's counts (in `d_counts`, copied into `host`) are checked, by its facts: fused
// arithmetic exactly against the reference, natural arithmetic against the CPU's natural
// arithmetic with a bounded fraction of pixels allowed to differ. check_note says so in words.
course::Check check_kernel(const KernelFacts& facts, PrecisionRun& run, int max_iters,
                           course::DeviceBuffer<std::uint32_t>& d_counts, std::span<std::uint32_t> host);
std::string check_note(const KernelFacts& facts, course::Precision precision, int max_iters);

// The GPU rows' rates after the table: megapixels, pixel-iterations and FP instructions per second.
struct Rate {
  std::string variant;
  double fp_per_iteration = 0;
};

// ---- What the rows refer to (lesson_setup.cpp) ------------------------------------------------
struct LessonData {
  Problem problem;
  std::deque<PrecisionRun> runs;                 // one per precision asked for, FP32 first
  std::vector<KernelEntry> table;                // the registry, in the precisions asked for
  course::DeviceBuffer<std::uint32_t> d_counts;  // allocated by the GPU rows' setup step, `on_device`
  course::SetupStep* on_device = nullptr;        // the step every GPU row and sweep point names
  std::vector<std::uint32_t> counts;             // each row's counts on the host
  std::vector<Rate> rates;                       // the kernel rows, for the rates table

  PrecisionRun& run_of(course::Precision precision);
  std::span<const KernelEntry> kernels() const { return table; }
};
// The references of every precision asked for (a line each), the registry in those precisions,
// the host's counts.
void prepare(LessonData& data);

// The image (--image): the last precision's counts, from its end-to-end row (the last row to
// write `counts`) when a GPU ran it, else the CPU reference.
void write_image(const Options& options, const LessonData& data, bool from_gpu);

// ---- The report (lesson_report.cpp) -----------------------------------------------------------
// The FMA ceilings in pixel-iterations per second: the measured FMA rate (GFLOP/s / 2 = FP
// instructions per second) divided by a kernel's FP instructions per iteration. A row's "of
// ceil" is then the fraction of the FP pipes' measured rate its FP instructions use. One per
// kernel that runs (the chosen ones and the headline), named fma_ceiling_name.
std::string fma_ceiling_name(course::Precision precision, const KernelEntry& kernel);  // "fp32_fma_mandel_fast"
void add_fma_ceilings(course::Lesson& lesson, course::Precision precision, std::span<const KernelEntry> table,
                      const std::vector<const KernelEntry*>& chosen);
void print_rates(const course::Report& report, const LessonData& data);
// The JSON's extra fields: per precision the iterations and the reference's time, the view.
void record_extras(course::Lesson& lesson, const LessonData& data);

// ---- The block sweep (block_sweep.cpp, --sweep blocks) ----------------------------------------
course::Sweep block_sweep(LessonData& data);

}  // namespace mandelbrot

// ---- The histogram of the counts (histogram_rows.cpp, --histogram) ----------------------------
namespace mandelbrot {

// The histogram and CDF rows' data: the input (the last precision's reference counts), the CPU's
// histogram and prefix sum every row is checked against exactly, and the device buffers.
struct HistogramData {
  int num_bins = 0;                                // max_iters + 1
  std::span<const std::uint32_t> input;            // the counts whose histogram is taken
  std::vector<std::uint32_t> reference_bins, reference_cdf, bins, cdf;
  course::DeviceBuffer<std::uint32_t> d_input, d_bins, d_bins_in, d_cdf;
};
// Two groups of rows, "histogram" (CPU one thread and OpenMP, every kernel of
// kernels/histogram_registry.inc, the headline held against the library) and "CDF" (CPU, the
// block scan, the library's scan), each GPU row held against the device copy counting the bytes
// it reads (the histogram: 4 per count) or reads and writes (the CDF: 8 per bin).
// `exercises`: the histogram exercise methods --kernel named (exercises/registry.inc); they get a
// row after the steps. The steps always do.
void add_histogram_rows(course::Lesson& lesson, const LessonData& data, HistogramData& h,
                        const std::vector<std::string>& exercises = {});
// --kernel with the registry's kernels and the histogram exercise's methods (exercises/registry.inc,
// run only by name), each group listed in --help.
void add_kernel_option_with_histogram_exercises(course::Lesson& lesson, std::vector<std::string>& selected);
// Removes the histogram exercise methods from what --kernel selected and returns them.
std::vector<std::string> take_histogram_exercises(std::vector<std::string>& selected);

}  // namespace mandelbrot
