// 07_black_scholes: European calls and puts priced with the Black-Scholes formula, in float and
// double, on the CPU and on the GPU.
//
// Usage: 07_black_scholes [-n N] [--rate R] [--volatility V] [--precision float|double|both]
//                         [--iterations N] [--kernel NAME ...] [--block T] [--classic] [shared flags: --help]
//   07_black_scholes                     2^24 options (320 MiB in float, 640 MiB in double: far beyond L2)
//   07_black_scholes --classic           the classic: 4,000,000 options, double, blocks of 1024, 10 iterations
//   07_black_scholes --precision float --kernel shared_exp --kernel fast_math
//
// The lesson declares its data and variants; the harness (course/harness.hpp) verifies, times and
// reports each one, in two groups (FP32, FP64): per group the CPU rows, one row per kernel of
// kernels/registry.inc, and end to end. Every row's call AND put are checked against the same
// formula in long double; the model error (polynomial against exact CND) is reported apart.
// The flags are in lesson_options.cpp, what follows the table in lesson_report.cpp.
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "black_scholes.hpp"
#include "course/format.hpp"
#include "course/harness.hpp"
#include "course/main.hpp"
#include "lesson_options.hpp"
#include "lesson_report.hpp"
#include "precision_run.hpp"

namespace {

using namespace black_scholes;
using course::Role;
using course::Target;

constexpr std::int64_t kDefaultOptions = std::int64_t{1} << 24;
constexpr std::int64_t kMaxOptions = std::int64_t{1} << 32;

// The CPU rows of one precision: the classic loop (teaching), then glibc's vector math on SIMD
// lanes, one thread and all threads, with and without software prefetch.
template <class T>
void add_cpu_rows(course::Lesson& lesson, PrecisionRun<T>& run, const Settings& s, int threads) {
  const auto repeat = s.repeat(lesson.options().cpu_repeat());
  const std::string all = std::to_string(threads) + " threads";
  auto row = [&](std::string name, Role role, auto price) {
    lesson.add({.name = "CPU " + name, .role = role, .group = run.group(), .work = run.bytes(), .ceiling = "host_copy",
                .run = [&run, price, market = s.market](cudaStream_t) { price(run.inputs(), run.outputs(), market); },
                .checks = run.host_checks(kAccurateFactor), .repeat = repeat});
  };
  row("1 thread, scalar, the classic's formula (teaching)", Role::detail, &price_serial<T>);
  row("libmvec SIMD, 1 thread", Role::cpu_serial,
      [](Inputs<T> in, Outputs<T> out, Market m) { price_simd_serial<T>(in, out, m); });
  row("libmvec SIMD, " + all + ", no prefetch (teaching)", Role::detail,
      [](Inputs<T> in, Outputs<T> out, Market m) { price_simd_parallel<T>(in, out, m, Prefetch::hardware_only); });
  row("libmvec SIMD + prefetch, " + all, Role::cpu_parallel,
      [](Inputs<T> in, Outputs<T> out, Market m) { price_simd_parallel<T>(in, out, m); });
}

// One GPU row per kernel and precision (the harness sets the group and the headline's role).
template <class T>
course::Variant gpu_row(course::Lesson& lesson, PrecisionRun<T>& run, const course::KernelEntry<Launcher>& kernel,
                        const Settings& s, course::SetupStep& upload) {
  const PriceFn<T> launch = kernel.launch.template get<T>();
  return {.name = "GPU " + std::string(kernel.name), .target = Target::gpu, .work = run.bytes(), .ceiling = "d2d_copy",
          .setup = {upload},
          .run = [&run, launch, block = s.block](cudaStream_t stream) { launch(run.device_args(block), stream); },
          .checks = run.device_checks(error_factor(kernel.traits)),
          .repeat = s.repeat(lesson.options().gpu_repeat())};
}

// The same pricing through Thrust (library.cu): the headline's formula, held against the same copy
// and the same bound as the accurate kernels; the "vs lib" column is each kernel over it.
template <class T>
void add_library_row(course::Lesson& lesson, PrecisionRun<T>& run, const Settings& s, course::SetupStep& upload) {
  lesson.add({.name = "GPU library: thrust::transform over zip iterators", .target = Target::gpu,
              .role = Role::gpu_library, .group = run.group(), .work = run.bytes(), .ceiling = "d2d_copy",
              .setup = {upload},
              .run = [&run](cudaStream_t stream) { thrust_price<T>(run.device_args(0), stream); },
              .checks = run.device_checks(kAccurateFactor), .repeat = s.repeat(lesson.options().gpu_repeat())});
}

// End to end, as the classic timed its GPU: copy the inputs in, price, copy the prices out
// (ordinary pageable host memory; lesson 03 shows pinned memory and overlap).
template <class T>
void add_end_to_end(course::Lesson& lesson, PrecisionRun<T>& run, const Settings& s, course::SetupStep& upload) {
  const auto& headline = course::headline_kernel(kernels(), course::precision_of<T>);
  const PriceFn<T> launch = headline.launch.template get<T>();
  const int reps = s.iterations > 0 ? s.iterations : std::min(lesson.options().reps, 10);
  lesson.add({.name = "GPU end to end: copy in, " + std::string(headline.name) + ", copy out", .target = Target::gpu,
              .role = Role::gpu_end_to_end, .group = run.group(), .work = run.bytes(), .setup = {upload},
              .run = [&run, launch, block = s.block](cudaStream_t stream) {
                run.copy_in(stream);
                launch(run.device_args(block), stream);
                run.copy_out(stream);  // the harness synchronizes before the outputs are read
              },
              .checks = run.end_to_end_checks(error_factor(headline.traits)), .timing = course::Timing::host,
              .repeat = course::RepeatOptions{1, reps}});
}

int run(int argc, char** argv) {
  course::Lesson lesson("07_black_scholes", "European calls and puts (Black-Scholes), float and double: CPU and GPU",
                        {"-n,--options", "number of options", kDefaultOptions, kMaxOptions});
  Settings s;
  add_flags(lesson, s);  // lesson_options.cpp
  const course::CommonOptions& options = lesson.parse(argc, argv);
  apply_classic(s);
  const std::size_t n = s.classic ? kClassicOptions : static_cast<std::size_t>(options.size);
  const bool f32 = s.precision != "double", f64 = s.precision != "float";
  const double bytes = (f32 ? bytes_per_option<float>() : 0) + (f64 ? bytes_per_option<double>() : 0);
  lesson.set_title("Black-Scholes: " + course::format_count(n) + " calls and puts" +
                   (f32 && f64 ? ", float and double" : f32 ? ", float" : ", double"));
  lesson.require_device_memory(static_cast<std::size_t>(bytes * static_cast<double>(n)), "5 arrays per precision");
  course::require_host_memory(static_cast<std::size_t>((2 * bytes + 64) * static_cast<double>(n)),
                              "options, prices and long double references");

  const OptionSet<double> book = make_options(n, options.seed);
  std::unique_ptr<PrecisionRun<float>> single = f32 ? std::make_unique<PrecisionRun<float>>(book, s.market) : nullptr;
  std::unique_ptr<PrecisionRun<double>> twice = f64 ? std::make_unique<PrecisionRun<double>>(book, s.market) : nullptr;
  const double largest = f64 ? twice->bytes() : single->bytes();
  lesson.add_host_copy_ceiling(largest);
  lesson.add_device_copy_ceiling(largest);
  auto& upload = lesson.add_setup("the options to the GPU (five arrays per precision)", [&] {
    if (single) single->upload();
    if (twice) twice->upload();
  });
  if (single) add_cpu_rows(lesson, *single, s, options.cpu_threads());
  if (twice) add_cpu_rows(lesson, *twice, s, options.cpu_threads());

  const auto kept = restrict_precisions(kernels(), f32, f64);
  const std::span<const course::KernelEntry<Launcher>> table(kept);
  lesson.add_kernels(table, s.kernels, [&](const auto& kernel, course::Precision precision) {
    return precision == course::Precision::fp32 ? gpu_row(lesson, *single, kernel, s, upload)
                                                : gpu_row(lesson, *twice, kernel, s, upload);
  });
  if (single) add_library_row(lesson, *single, s, upload);
  if (twice) add_library_row(lesson, *twice, s, upload);
  if (single) add_end_to_end(lesson, *single, s, upload);
  if (twice) add_end_to_end(lesson, *twice, s, upload);

  lesson.run_variants();
  std::vector<GroupSummary> groups;
  if (single) groups.push_back(summary_of(*single, table));
  if (twice) groups.push_back(summary_of(*twice, table));
  return finish_with_accuracy(lesson, groups, s.market);  // the model error and each row's errors, after the table
}

}  // namespace

int main(int argc, char** argv) { return course::run_lesson(argc, argv, run); }
