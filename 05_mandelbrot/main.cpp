// 05_mandelbrot: the Mandelbrot set, a compute-bound 2-D kernel, in FP32 and FP64.
//
// Usage: 05_mandelbrot [--width W] [--height H] [--iters N] [view] [--kernel NAME ...] [--block WxH]
//                      [--grid WxH|auto] [--precision float|double|both] [--image PATH [--gray]]
//                      [--sweep blocks] [shared flags: --help]
//   05_mandelbrot                                     the classic: 1536 x 1024, re [-2, 1] x im [-1, 1], 20 iterations
//   05_mandelbrot --width 4096 --height 4096 --iters 1000 --skip-serial     the performance benchmark
//   05_mandelbrot --centre -0.743643887037151 0.131825904205330 --zoom 2e8 --iters 8000 --precision double
//   05_mandelbrot --image set.png                    the escape counts as a colour image (--gray: grey)
//   05_mandelbrot --kernel mandel_fast --sweep blocks   the headline kernel, then at many block shapes
//   05_mandelbrot --histogram                         also the counts' histogram and CDF (deep dive)
//   05_mandelbrot --image deep.png --colour equalised  colours spread by the counts' histogram
//   05_mandelbrot --kernel exercise_privatise ...    the histogram exercise's method (adds --histogram)
//
// The harness (course/harness.hpp) verifies, times and reports every row, in two groups, FP32 and
// FP64: the CPU rows (one thread, OpenMP, OpenMP + SIMD; exact), one GPU row per kernel of
// kernels/registry.inc (checked as its facts say), end to end; then the block sweep and the rates.
#include <algorithm>
#include <string>
#include <vector>

#include "course/format.hpp"
#include "course/harness.hpp"
#include "course/main.hpp"
#include "mandelbrot_lesson.hpp"

namespace {

using course::Precision;
using course::Role;
using course::Target;
using mandelbrot::KernelEntry;
using mandelbrot::PrecisionRun;

constexpr int kMaxSide = 65536;

using Data = mandelbrot::LessonData;  // what every row refers to, alive until the end

// The CPU rows, all in fused arithmetic and all exactly equal to the reference.
void add_cpu_rows(course::Lesson& lesson, Data& d, PrecisionRun& run, bool skip_serial) {
  const int threads = lesson.options().cpu_threads();
  const std::string cores = std::to_string(threads) + (threads == 1 ? " thread" : " threads");
  auto row = [&](const std::string& what, Role role, mandelbrot::CpuMethod method, std::string note = "") {
    lesson.add({.name = "CPU " + run.group() + ", " + what, .role = role, .group = run.group(),
                .work = static_cast<double>(run.stats.iterations),
                .run = [&d, &run, method](cudaStream_t) {
                  run.render(d.problem.iters, mandelbrot::Arithmetic::fused, method, d.counts);
                },
                .check = course::check_host_integers<std::uint32_t>(d.counts, run.reference,
                                                                     mandelbrot::count_tolerance(0, d.problem.iters)),
                .note = std::move(note)});
  };
  if (!skip_serial) row("1 thread, one pixel at a time (teaching row)", Role::cpu_serial, mandelbrot::CpuMethod::serial);
  row(cores + " (OpenMP, dynamic), one pixel at a time", Role::detail, mandelbrot::CpuMethod::openmp,
      "the reference's own code: its check shows determinism only");
  row(cores + " (OpenMP) + SIMD (" + mandelbrot::cpu_simd_description() + ")", Role::cpu_parallel,
      mandelbrot::CpuMethod::openmp_simd);
}

// One kernel in one precision: its counts checked as its facts say, held against its FMA ceiling.
template <class T>
course::Variant kernel_row(Data& d, PrecisionRun& run, const KernelEntry& kernel) {
  const mandelbrot::KernelFacts& facts = *kernel.launch.facts;
  const std::string name = "GPU " + run.group() + " " + std::string(kernel.name);
  d.rates.push_back({name, facts.fp_per_iteration});
  mandelbrot::RenderArgs<T> args{nullptr, run.frame<T>(), d.problem.iters, d.problem.launch};
  return {.name = name, .target = Target::gpu, .group = run.group(), .work = static_cast<double>(run.stats.iterations),
          .ceiling = mandelbrot::fma_ceiling_name(run.precision, kernel), .setup = {*d.on_device},
          .run = [&d, args, go = kernel.launch.get<T>()](cudaStream_t stream) mutable {
            args.counts = d.d_counts.data();
            go(args, stream);
          },
          .check = mandelbrot::check_kernel(facts, run, d.problem.iters, d.d_counts, d.counts),
          .note = mandelbrot::plan_launch(args.shape, args.frame.width, args.frame.height).describe() + "; " +
                  mandelbrot::check_note(facts, run.precision, d.problem.iters)};
}

// End to end: the counts are needed on the host (an image, a file): 4 bytes per pixel, copied to
// pageable memory. Both copies of the output are poisoned, so a stale result cannot pass.
template <class T>
void add_end_to_end(course::Lesson& lesson, Data& d, PrecisionRun& run) {
  const KernelEntry& headline = course::headline_kernel(d.kernels(), run.precision);
  mandelbrot::RenderArgs<T> args{nullptr, run.frame<T>(), d.problem.iters, d.problem.launch};
  course::Check check = course::check_host_integers<std::uint32_t>(d.counts, run.reference,
                                                                   mandelbrot::count_tolerance(0, d.problem.iters));
  check.poison = [&d] {
    course::poison(std::span<std::uint32_t>(d.counts));
    d.d_counts.poison();
  };
  lesson.add({.name = "GPU " + run.group() + " end-to-end: " + std::string(headline.name) + " + copy the counts to the host",
              .target = Target::gpu, .role = Role::gpu_end_to_end, .group = run.group(),
              .work = static_cast<double>(run.stats.iterations), .setup = {*d.on_device},
              .run = [&d, args, go = headline.launch.get<T>()](cudaStream_t stream) mutable {
                args.counts = d.d_counts.data();
                go(args, stream);
                d.d_counts.copy_to_host_async(d.counts, stream);  // the harness synchronizes before counts is read
              },
              .check = check, .timing = course::Timing::host,
              .repeat = course::RepeatOptions{1, std::min(lesson.options().reps, 10)}});
}

// The GPU rows: the kernels --kernel selects, in every precision asked for, then end to end.
void add_gpu_rows(course::Lesson& lesson, Data& d, const std::vector<std::string>& selected) {
  const auto chosen = lesson.add_kernels(d.kernels(), selected, [&d](const KernelEntry& kernel, Precision precision) {
    PrecisionRun& run = d.run_of(precision);
    return precision == Precision::fp32 ? kernel_row<float>(d, run, kernel) : kernel_row<double>(d, run, kernel);
  });
  for (PrecisionRun& run : d.runs) {
    mandelbrot::add_fma_ceilings(lesson, run.precision, d.kernels(), chosen);
    run.precision == Precision::fp32 ? add_end_to_end<float>(lesson, d, run) : add_end_to_end<double>(lesson, d, run);
  }
}

int run(int argc, char** argv) {
  course::Lesson lesson("05_mandelbrot",
                        "The Mandelbrot set: escape counts per pixel, CPU (1 thread, OpenMP, SIMD) against GPU, "
                        "FP32 and FP64",
                        std::vector<course::SizeOption>{{"--width", "image width in pixels", mandelbrot::kClassicWidth, kMaxSide},
                                                        {"--height", "image height in pixels", mandelbrot::kClassicHeight, kMaxSide}},
                        "--size", "width and height at once (a square image)");
  lesson.set_unit(course::units::items("Giter/s", "pixel-iterations"));
  mandelbrot::Options o;
  std::vector<std::string> selected;
  mandelbrot::add_options(lesson.cli(), o);
  // --kernel: the registry's kernels, and the histogram exercise's methods (exercises/registry.inc).
  mandelbrot::add_kernel_option_with_histogram_exercises(lesson, selected);
  lesson.declare_sweep("blocks", "the headline kernel at 11 block shapes and the classic's fixed grid");
  const course::CommonOptions& options = lesson.parse(argc, argv);
  // A histogram exercise named by --kernel runs as a row of --histogram, which it turns on.
  const std::vector<std::string> histogram_exercises = mandelbrot::take_histogram_exercises(selected);
  if (!histogram_exercises.empty()) o.histogram = true;

  Data d;
  d.problem = mandelbrot::check_options(o, lesson.cli(), static_cast<int>(options.dim("width")),
                                        static_cast<int>(options.dim("height")));
  const std::size_t pixels = d.problem.pixels();
  lesson.set_title("Mandelbrot set, " + std::to_string(d.problem.width) + " x " + std::to_string(d.problem.height) +
                   " pixels, " + d.problem.view.describe() + ", " + std::to_string(o.iters) + " iterations");
  lesson.require_device_memory(pixels * sizeof(std::uint32_t),
                               "the escape counts (" + course::format_bytes(4.0 * static_cast<double>(pixels)) + ")");
  mandelbrot::prepare(d);  // the references, before any row: the definition, fused arithmetic, OpenMP
  d.on_device = &lesson.add_setup("the escape counts' buffer on the GPU",
                                  [&] { d.d_counts = course::DeviceBuffer<std::uint32_t>(pixels, "escape counts"); });
  for (PrecisionRun& run : d.runs) add_cpu_rows(lesson, d, run, o.skip_serial);
  add_gpu_rows(lesson, d, selected);
  mandelbrot::HistogramData histogram;  // --histogram: the deep dive's histogram and CDF rows
  if (o.histogram) mandelbrot::add_histogram_rows(lesson, d, histogram, histogram_exercises);
  lesson.add_sweep(mandelbrot::block_sweep(d));

  lesson.run_variants();
  mandelbrot::record_extras(lesson, d);
  const int exit_code = lesson.finish();
  mandelbrot::print_rates(lesson.report(), d);
  if (!o.image_path.empty()) mandelbrot::write_image(o, d, lesson.has_gpu());
  return exit_code;
}

}  // namespace

int main(int argc, char** argv) { return course::run_lesson(argc, argv, run); }
