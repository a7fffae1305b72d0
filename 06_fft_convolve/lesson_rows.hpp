// The rows of lesson 06's table, its crossover sweep and its pictures, as main.cpp declares them.
//
// main.cpp says what the lesson runs; this file says how each row is built on the harness
// (course/harness.hpp): its name, unit, ceiling, setup (plans: untimed, reported), run and
// checks (the whole image and its border, each against the double reference).
#pragma once

#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <optional>
#include <string>
#include <vector>

#include "course/harness.hpp"
#include "fft_convolve.hpp"

namespace fft_convolve {

// The lesson's own flags.
struct LessonOptions {
  std::string image_path;
  std::string filter_name = "classic";
  int filter_size = 0;
  std::string filter_file;
  std::string out_dir;
  std::string fftw_planner = "measure";
  std::vector<std::string> kernels;
};
void add_lesson_options(course::Lesson& lesson, LessonOptions& options);

// What one convolution is checked against: the double reference and the tolerance derived for it.
struct Problem {
  Image image;
  Filter filter;
  std::vector<double> reference;
  course::Tolerance tolerance;
  PaddedShape tolerance_shape;  // the largest FFT any method may use: the bound's log2(N)
};
// The image and filter the flags ask for (every bad value a UsageError naming its flag), and
// their reference.
Problem make_problem(course::Lesson& lesson, const LessonOptions& options);
Problem make_problem(Image image, Filter filter);
FftwPlanner planner_from_name(const std::string& name);

// Host buffers the rows write into, one per kind of method.
struct HostResults {
  std::vector<float> direct, separable, fftw, naive, gpu;
  explicit HostResults(std::size_t pixels) : direct(pixels), separable(pixels), fftw(pixels), naive(pixels), gpu(pixels) {}
};

// The CPU rows: direct (1 thread, all threads), separable in two passes (1 thread, all threads;
// separable filters only), FFTW (1 thread: cpu_serial, all: cpu_parallel), and the classic's
// naive FFT (a teaching row expected to fail).
void add_cpu_rows(course::Lesson& lesson, const Problem& problem, HostResults& results, FftwPlanner planner);

// The GPU side: device buffers, ceilings (device copy; one cuFFT pair at the measured FFT size),
// one row per selected registry method, the product kernel alone, and end to end.
class GpuRows {
 public:
  GpuRows(course::Lesson& lesson, const Problem& problem, HostResults& results);
  void add(const std::vector<std::string>& selected);
  // After the rows ran, with a GPU: the headline's output ("gpu") and the naive method's
  // ("gpu_naive"), each run once more; `against_name` holds the method's name.
  std::vector<NamedResult> pictures();

 private:
  GpuConvolver& make(const course::KernelEntry<Launcher>& kernel);
  course::Variant method_row(const course::KernelEntry<Launcher>& kernel);
  course::Variant product_row();
  course::Variant end_to_end_row();

  course::Lesson& lesson_;
  const Problem& problem_;
  HostResults& results_;
  course::DeviceBuffer<float> d_input_, d_output_;
  course::SetupStep& inputs_;  // every GPU row's first step: d_input_ and d_output_ allocated, the image copied in
  PaddedShape chosen_;         // the measured FFT size (set by the cufft_pair ceiling)
  std::vector<std::unique_ptr<GpuConvolver>> methods_;  // main.cpp declares GpuRows after the lesson: freed before it
  std::map<const course::KernelEntry<Launcher>*, GpuConvolver*> by_kernel_;  // the rows' methods
  std::set<const GpuConvolver*> ready_;                                       // set up (their rows ran)
  std::vector<float> naive_gpu_;
};

// --sweep filter-size: Gaussian K x K filters, K = 3 ... 63 (those that fit the image), timed
// directly and by FFT on the CPU (all threads) and on the GPU (the methods --kernel selected,
// every one by default, of those that apply). With box = true (--filter box), box filters
// instead: the summed-area-table methods join in.
course::Sweep filter_size_sweep(course::Lesson& lesson, const Image& image, FftwPlanner planner,
                                const std::vector<std::string>& selected, bool box = false);

// --out-dir: made now if missing, so a folder that cannot be made stops the run before the work.
void prepare_output_folder(const std::string& folder);
// Writes the pictures into `folder` (the CPU's FFTW and naive results computed for them, the GPU
// results given) and describes them for the JSON (extra.images).
nlohmann::json write_pictures(const std::string& folder, const Problem& problem, std::vector<NamedResult> gpu_results);

}  // namespace fft_convolve
