// 05_mandelbrot: the Mandelbrot set, a compute-bound 2-D kernel, in FP32 and FP64.
//
// Usage: 05_mandelbrot [--width W] [--height H] [--iters N] [view] [--block WxH] [--grid WxH|auto]
//                      [--precision float|double|both] [--image PATH [--gray]] [--sweep-blocks] [shared flags: --help]
//   05_mandelbrot                                     the classic: 1536 x 1024, re [-2, 1] x im [-1, 1], 20 iterations
//   05_mandelbrot --width 4096 --height 4096 --iters 1000 --skip-serial     the performance benchmark
//   05_mandelbrot --centre -0.743643887037151 0.131825904205330 --zoom 2e8 --iters 8000 --precision double
//   05_mandelbrot --image set.png                    the escape counts as a colour image (--gray: grey)
//
// The lesson declares its data and variants; the harness (course/harness.hpp) verifies, times
// and reports each one. Per precision: the reference counts (CPU, OpenMP, the definition) ->
// CPU rows (one thread, OpenMP, OpenMP + SIMD; exact) -> GPU rows (classic kernel, a bounded
// fraction of pixels may differ; fast kernel, exact; end-to-end). Then the block sweep, the
// rates against the FMA ceilings, the image.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <deque>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "course/ceilings.hpp"
#include "course/check.hpp"
#include "course/errors.hpp"
#include "course/format.hpp"
#include "course/harness.hpp"
#include "course/main.hpp"
#include "mandelbrot.hpp"

namespace {

using course::Role;
using course::Target;
using mandelbrot::Arithmetic;
using mandelbrot::CpuMethod;
using mandelbrot::Kernel;
using mandelbrot::Precision;

constexpr int kMaxSide = 65536;
constexpr int kMaxIters = 100000000;
constexpr std::size_t kMaxPixels = std::size_t{1} << 30;

// FP arithmetic instructions per iteration, read from the SASS of each kernel's loop on sm_90
// (docs/05_mandelbrot.md shows it): the fast kernel's step is 3 FMAs and 1 add, plus a multiply
// and an FMA for the |z|^2 check once per block of 8; the classic loop is 2 multiplies, 4 adds
// and 1 FMA (nvcc contracted only 2xy + cy). Compares, branches and the counter come on top.
constexpr double kFastFpPerIteration = 4.0 + 2.0 / mandelbrot::kFastBlock;
constexpr double kClassicFpPerIteration = 7.0;

struct LessonOptions {
  int iters = mandelbrot::kClassicIters;
  mandelbrot::View view;
  std::vector<double> centre;
  double zoom = 0;
  std::string block = "32x8";
  std::string grid = "auto";
  std::string precision = "both";
  std::string image_path;
  bool gray = false;
  bool sweep_blocks = false;
  bool skip_serial = false;
};

// One precision's data: everything the variants' lambdas refer to, alive until the end.
struct PrecisionRun {
  Precision precision;
  mandelbrot::Frame<float> f32;
  mandelbrot::Frame<double> f64;
  std::vector<std::uint32_t> reference;  // the definition, fused arithmetic (CPU, OpenMP)
  std::vector<std::uint32_t> natural;    // natural arithmetic on the CPU, computed when first needed
  mandelbrot::CountStats stats;
  double reference_ms = 0;
  std::size_t classic_mismatches = 0;
  bool classic_checked = false;
};

// The kernel each GPU row ran, for the rates table (FP instructions per iteration).
struct Rate {
  std::string variant;
  double fp_per_iteration;
  Precision precision;
};

// The view from the command line, checked: one-line errors (exit 2) for anything that cannot be drawn.
mandelbrot::View checked_view(LessonOptions& lesson, CLI::App& app, int width, int height) {
  mandelbrot::View view = lesson.view;
  const bool edges_given = app.count("--x-min") + app.count("--x-max") + app.count("--y-min") + app.count("--y-max") > 0;
  if (!lesson.centre.empty() || app.count("--zoom")) {
    if (edges_given) throw course::UsageError("--centre/--zoom: give the view as edges or as centre and zoom, not both");
    if (lesson.centre.size() != 2) throw course::UsageError("--centre: needs two numbers, RE IM");
    if (!app.count("--zoom")) lesson.zoom = 1;
    if (!std::isfinite(lesson.zoom) || lesson.zoom <= 0 || lesson.zoom > 1e300) {
      throw course::UsageError("--zoom: must be a positive number, not " + std::to_string(lesson.zoom));
    }
    view = mandelbrot::view_from_centre(lesson.centre[0], lesson.centre[1], lesson.zoom, width, height);
  }
  for (const double edge : {view.x_min, view.x_max, view.y_min, view.y_max}) {
    if (!std::isfinite(edge) || std::fabs(edge) > 1e6) {
      throw course::UsageError("--x-min/--x-max/--y-min/--y-max: the view must lie within +-1e6, got " + view.describe());
    }
  }
  if (!(view.x_min < view.x_max)) throw course::UsageError("--x-min/--x-max: empty or inverted range (" + view.describe() + ")");
  if (!(view.y_min < view.y_max)) throw course::UsageError("--y-min/--y-max: empty or inverted range (" + view.describe() + ")");
  return view;
}

template <class T>
const mandelbrot::Frame<T>& frame_of(const PrecisionRun& run) {
  if constexpr (sizeof(T) == 4) {
    return run.f32;
  } else {
    return run.f64;
  }
}

// Declares one precision's variants. `d_counts` and `counts` are shared by all GPU rows.
template <class T>
void add_precision(course::Lesson& lesson, PrecisionRun& run, bool primary, const LessonOptions& options,
                   const mandelbrot::LaunchShape& shape, course::DeviceBuffer<std::uint32_t>& d_counts,
                   std::vector<std::uint32_t>& counts, std::vector<Rate>& rates) {
  const mandelbrot::Frame<T>& frame = frame_of<T>(run);
  const int iters = options.iters;
  const char* name = precision_name(run.precision);
  const auto work = static_cast<double>(run.stats.iterations);
  const int threads = lesson.options().cpu_threads();
  const std::string threads_text = std::to_string(threads) + (threads == 1 ? " thread" : " threads");
  auto exact_host = [&run, &counts, iters] {
    return course::check_host_integers<std::uint32_t>(counts, run.reference, mandelbrot::count_tolerance(0, iters));
  };

  // ---- CPU: all fused arithmetic, all exactly equal to the reference ----
  auto cpu = [&frame, &counts, iters](CpuMethod method) {
    return [&frame, &counts, iters, method](cudaStream_t) {
      mandelbrot::render_cpu(frame, iters, Arithmetic::fused, method, counts);
    };
  };
  if (!options.skip_serial) {
    lesson.add({.name = std::string("CPU ") + name + ", 1 thread, one pixel at a time (teaching row)",
                .role = primary ? Role::cpu_serial : Role::detail, .work = work, .run = cpu(CpuMethod::serial),
                .check = exact_host()});
  }
  lesson.add({.name = std::string("CPU ") + name + ", " + threads_text + " (OpenMP, dynamic), one pixel at a time",
              .work = work, .run = cpu(CpuMethod::openmp), .check = exact_host(),
              .note = "the reference's own code: its check shows determinism only"});
  lesson.add({.name = std::string("CPU ") + name + ", " + threads_text + " (OpenMP) + SIMD (" +
                      mandelbrot::cpu_simd_description() + ")",
              .role = primary ? Role::cpu_parallel : Role::detail, .work = work, .run = cpu(CpuMethod::openmp_simd),
              .check = exact_host()});

  // ---- GPU ----
  const std::string fast_ceiling = std::string(run.precision == Precision::f32 ? "fp32" : "fp64") + "_fma_fast";
  const std::string classic_ceiling = std::string(run.precision == Precision::f32 ? "fp32" : "fp64") + "_fma_classic";
  auto launch = [&frame, &d_counts, iters, shape](Kernel kernel) {
    return [&frame, &d_counts, iters, shape, kernel](cudaStream_t s) {
      mandelbrot::launch_mandelbrot(kernel, d_counts.data(), frame, iters, shape, s);
    };
  };

  // The classic kernel against the CPU's natural arithmetic: the same source, contracted into
  // FMAs by nvcc and not by g++, so a bounded fraction of boundary pixels may differ.
  const double bound = mandelbrot::natural_mismatch_bound(run.precision, iters);
  course::Check classic_check;
  classic_check.poison = [&d_counts] { d_counts.poison(); };
  classic_check.verify = [&run, &frame, &d_counts, &counts, iters, bound] {
    d_counts.copy_to_host(counts);
    if (run.natural.empty()) {  // computed here, untimed, and only when a GPU runs
      run.natural.resize(counts.size());
      mandelbrot::render_cpu(frame, iters, Arithmetic::natural, CpuMethod::openmp_simd, run.natural);
    }
    const course::VerifyResult result = mandelbrot::check_counts(counts, run.natural, iters, bound);
    run.classic_mismatches = result.mismatches;
    run.classic_checked = true;
    return result;
  };
  const std::string classic_row = std::string("GPU ") + name + " mandel_classic (natural arithmetic, nvcc's FMAs)";
  lesson.add({.name = classic_row, .target = Target::gpu, .work = work, .ceiling = classic_ceiling,
              .run = launch(Kernel::classic), .check = classic_check,
              .note = "checked against the CPU's natural arithmetic: at most " + course::format_fixed(100 * bound, 2) +
                      "% of the pixels may differ (rounding flips boundary pixels)"});
  rates.push_back({classic_row, kClassicFpPerIteration, run.precision});

  const std::string fast_row = std::string("GPU ") + name + " mandel_fast (fused arithmetic, checks every 8 iterations)";
  const mandelbrot::Launch planned = mandelbrot::plan_launch(shape, frame.width, frame.height);
  lesson.add({.name = fast_row, .target = Target::gpu, .role = primary ? Role::gpu_kernel : Role::detail, .work = work,
              .ceiling = fast_ceiling, .run = launch(Kernel::fast),
              .check = course::check_device_integers<std::uint32_t>(d_counts, counts, run.reference,
                                                                     mandelbrot::count_tolerance(0, iters)),
              .note = planned.describe()});
  rates.push_back({fast_row, kFastFpPerIteration, run.precision});

  // End to end: the counts are needed on the host (an image, a file): 4 bytes per pixel, copied
  // to pageable memory. Both copies of the output are poisoned, so a stale result cannot pass.
  course::Check end_to_end_check = exact_host();
  end_to_end_check.poison = [&d_counts, &counts] {
    course::poison(std::span<std::uint32_t>(counts));
    d_counts.poison();
  };
  lesson.add({.name = std::string("GPU ") + name + " end-to-end: mandel_fast + copy the counts to the host",
              .target = Target::gpu, .role = primary ? Role::gpu_end_to_end : Role::detail, .work = work,
              .run = [&frame, &d_counts, &counts, iters, shape](cudaStream_t s) {
                mandelbrot::launch_mandelbrot(Kernel::fast, d_counts.data(), frame, iters, shape, s);
                d_counts.copy_to_host_async(counts, s);  // the harness synchronizes before counts is read
              },
              .check = end_to_end_check, .timing = course::Timing::host,
              .repeat = course::RepeatOptions{1, std::min(lesson.options().reps, 10)}});
}

// The FMA ceilings in pixel-iterations per second: the measured FMA rate (GFLOP/s / 2 = FP
// instructions per second) divided by each kernel's FP instructions per iteration. A row's
// "of ceil" is then the fraction of the FP pipes' measured rate its FP instructions use.
void add_fma_ceilings(course::Lesson& lesson, Precision precision) {
  const course::Precision fma_precision = precision == Precision::f32 ? course::Precision::fp32 : course::Precision::fp64;
  auto measured = std::make_shared<std::optional<course::Ceiling>>();
  auto measure = [&lesson, measured, fma_precision] {
    if (!*measured) *measured = course::measure_fma_throughput(fma_precision, lesson.options().gpu_repeat());
    return **measured;
  };
  const std::string prefix = precision == Precision::f32 ? "fp32" : "fp64";
  lesson.add_ceiling(Target::gpu, measure);  // the raw ceiling, in GFLOP/s, for the record
  for (const auto& [suffix, per_iteration] :
       std::vector<std::pair<std::string, double>>{{"_fma_fast", kFastFpPerIteration}, {"_fma_classic", kClassicFpPerIteration}}) {
    lesson.add_ceiling(Target::gpu, [measure, prefix, suffix, per_iteration] {
      const course::Ceiling fma = measure();
      course::Ceiling ceiling;
      ceiling.name = prefix + suffix;
      ceiling.unit = "Giter/s";
      ceiling.value = fma.value / 2 / per_iteration;
      ceiling.description = fma.name + " (" + course::format_fixed(fma.value / 1000, 1) + " TFLOP/s) / 2 / " +
                            course::format_fixed(per_iteration, 2) + " FP instructions per iteration";
      return ceiling;
    });
  }
}

void print_rates(const course::Report& report, const std::vector<Rate>& rates, double pixels, bool gpu) {
  if (!gpu) return;
  std::printf("\nRates (pixel-iterations = the sum of all escape counts: the iterations really executed)\n");
  std::printf("  %-72s %10s %14s %12s %9s\n", "variant", "MP/s", "Gpixel-iter/s", "FP instr/s", "FP/iter");
  for (const Rate& rate : rates) {
    for (const course::Row& row : report.rows()) {
      if (row.variant != rate.variant || !row.time) continue;
      const double seconds = row.time->median_ms * 1e-3;
      const double per_s = row.work / seconds;
      std::printf("  %-72s %10.0f %14.1f %11.1fT %9.2f\n", rate.variant.c_str(), pixels / seconds / 1e6, per_s / 1e9,
                  per_s * rate.fp_per_iteration / 1e12, rate.fp_per_iteration);
    }
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
  LessonOptions lesson_options;
  LessonOptions& o = lesson_options;
  CLI::App& app = lesson.cli();
  app.add_option("--iters", o.iters, "maximum iterations per pixel")->check(CLI::Range(1, kMaxIters))->capture_default_str();
  app.add_option("--x-min", o.view.x_min, "left edge of the view (real part)")->capture_default_str();
  app.add_option("--x-max", o.view.x_max, "right edge of the view (real part)")->capture_default_str();
  app.add_option("--y-min", o.view.y_min, "bottom edge of the view (imaginary part)")->capture_default_str();
  app.add_option("--y-max", o.view.y_max, "top edge of the view (imaginary part)")->capture_default_str();
  app.add_option("--centre,--center", o.centre, "centre of the view: RE IM (with --zoom, instead of the edges)")->expected(2);
  app.add_option("--zoom", o.zoom, "magnification around --centre: 1 shows 3 units of the real axis");
  app.add_option("--block", o.block, "threads per block, WxH (at most 1024 in all)")->capture_default_str();
  app.add_option("--grid", o.grid, "blocks per grid, WxH, or auto (one thread per pixel); the classic is 32x16")
      ->capture_default_str();
  app.add_option("--precision", o.precision, "float, double or both")
      ->check(CLI::IsMember({"float", "double", "both"}))
      ->capture_default_str();
  app.add_option("--image", o.image_path,
                 "write the escape counts as an image: NAME.png (colour), NAME.pgm (grey) or NAME.ppm (colour)");
  app.add_flag("--gray", o.gray, "a .png image in grey levels (for plot_mandelbrot.py), not the colour map");
  app.add_flag("--sweep-blocks", o.sweep_blocks, "also time the fast kernel at many block shapes");
  app.add_flag("--skip-serial", o.skip_serial, "skip the one-thread CPU rows (minutes on large images)");
  const course::CommonOptions& options = lesson.parse(argc, argv);

  const int width = static_cast<int>(options.dim("width"));
  const int height = static_cast<int>(options.dim("height"));
  const std::size_t pixels = static_cast<std::size_t>(width) * static_cast<std::size_t>(height);
  if (pixels > kMaxPixels) {
    throw course::UsageError("--width/--height: " + course::format_count(pixels) + " pixels, more than the " +
                             course::format_count(kMaxPixels) + " the lesson allows");
  }
  const mandelbrot::View view = checked_view(o, app, width, height);
  std::vector<Precision> precisions;
  if (o.precision != "double") precisions.push_back(Precision::f32);
  if (o.precision != "float") precisions.push_back(Precision::f64);
  for (const Precision p : precisions) {
    const std::string problem = mandelbrot::precision_problem(view, width, height, p);
    if (!problem.empty()) {
      throw course::UsageError("--precision " + o.precision + ": " + problem +
                               (p == Precision::f32 ? "; use --precision double" : "; zoom out"));
    }
  }
  mandelbrot::LaunchShape shape;
  shape.block = mandelbrot::parse_shape(o.block, "--block");
  if (o.grid != "auto") shape.grid = mandelbrot::parse_shape(o.grid, "--grid");
  const mandelbrot::Launch planned = mandelbrot::plan_launch(shape, width, height);  // throws on a bad shape
  if (!o.image_path.empty()) mandelbrot::check_image_path(o.image_path, o.gray);
  if (o.gray && o.image_path.empty()) throw course::UsageError("--gray: there is no --image to write");

  lesson.set_title("Mandelbrot set, " + std::to_string(width) + " x " + std::to_string(height) + " pixels, " +
                   view.describe() + ", " + std::to_string(o.iters) + " iterations");
  const std::string count_bytes = course::format_bytes(4.0 * static_cast<double>(pixels));
  lesson.require_device_memory(pixels * sizeof(std::uint32_t), "the escape counts (" + count_bytes + ")");
  course::require_host_memory((2 * precisions.size() + 1) * pixels * sizeof(std::uint32_t),
                              "the escape counts and their references (" + count_bytes + " each)");

  // The references, before any variant: the definition, fused arithmetic, OpenMP over rows.
  std::printf("%s, %d iterations at most; GPU launch: %s\n", view.describe().c_str(), o.iters, planned.describe().c_str());
  std::deque<PrecisionRun> runs;
  for (const Precision p : precisions) {
    PrecisionRun& run = runs.emplace_back();
    run.precision = p;
    run.f32 = mandelbrot::make_frame<float>(view, width, height);
    run.f64 = mandelbrot::make_frame<double>(view, width, height);
    run.reference.resize(pixels);
    course::HostTimer timer;
    if (p == Precision::f32) {
      mandelbrot::render_cpu(run.f32, o.iters, Arithmetic::fused, CpuMethod::openmp, run.reference);
    } else {
      mandelbrot::render_cpu(run.f64, o.iters, Arithmetic::fused, CpuMethod::openmp, run.reference);
    }
    run.reference_ms = timer.elapsed_ms();
    run.stats = mandelbrot::count_stats(run.reference, o.iters);
    std::printf("%s: %s pixel-iterations (%.1f per pixel); the set's interior is %.1f%% of the pixels and %.1f%% of "
                "the iterations\n",
                precision_name(p), course::format_count(run.stats.iterations).c_str(),
                static_cast<double>(run.stats.iterations) / static_cast<double>(pixels),
                100.0 * run.stats.interior_pixel_fraction(), 100.0 * run.stats.interior_iteration_fraction());
  }

  course::DeviceBuffer<std::uint32_t> d_counts;  // allocated only when a GPU is usable
  lesson.on_gpu([&] { d_counts = course::DeviceBuffer<std::uint32_t>(pixels, "escape counts"); });
  std::vector<std::uint32_t> counts(pixels);
  std::vector<Rate> rates;
  for (PrecisionRun& run : runs) {
    add_fma_ceilings(lesson, run.precision);
    if (run.precision == Precision::f32) {
      add_precision<float>(lesson, run, &run == &runs.front(), o, shape, d_counts, counts, rates);
    } else {
      add_precision<double>(lesson, run, &run == &runs.front(), o, shape, d_counts, counts, rates);
    }
  }
  lesson.run_variants();

  // ---- The block sweep: each shape verified exactly, then timed ----
  nlohmann::json& extra = lesson.report().extra();
  if (o.sweep_blocks && lesson.has_gpu()) {
    for (const PrecisionRun& run : runs) {
      const auto points = run.precision == Precision::f32
                              ? mandelbrot::run_block_sweep(run.f32, o.iters, run.reference, options.gpu_repeat(), lesson.stream())
                              : mandelbrot::run_block_sweep(run.f64, o.iters, run.reference, options.gpu_repeat(), lesson.stream());
      const char* name = precision_name(run.precision);
      std::printf("\nBlock-shape sweep, %s mandel_fast, %d x %d, %d iterations (each verified exactly):\n", name, width,
                  height, o.iters);
      std::printf("  %-8s %-22s %12s %14s  %s\n", "block", "grid", "median ms", "Gpixel-iter/s", "check");
      nlohmann::json sweep = nlohmann::json::array();
      for (const mandelbrot::SweepPoint& point : points) {
        const double rate = static_cast<double>(run.stats.iterations) / (point.time.median_ms * 1e-3);
        const std::string grid = point.launch.grid.describe() + (point.shape.grid.x ? " (fixed)" : "");
        std::printf("  %-8s %-22s %12s %14.1f  %s\n", point.launch.block.describe().c_str(), grid.c_str(),
                    course::format_ms(point.time.median_ms).c_str(), rate / 1e9,
                    point.check.passed ? "exact" : point.check.summary().c_str());
        sweep.push_back({{"block", point.launch.block.describe()}, {"grid", point.launch.grid.describe()},
                         {"fixed_grid", point.shape.grid.x != 0}, {"median_ms", point.time.median_ms},
                         {"pixel_iterations_per_s", rate}, {"passed", point.check.passed}});
        if (!point.check.passed) {
          lesson.report().add_check(std::string("GPU ") + name + " block sweep, " + point.launch.block.describe(),
                                    Target::gpu, point.check);
        }
      }
      extra["block_sweep"][name] = sweep;
    }
  }

  for (const PrecisionRun& run : runs) {
    nlohmann::json& entry = extra["precisions"][precision_name(run.precision)];
    entry = {{"iterations", run.stats.iterations},
             {"interior_pixels", run.stats.interior_pixels},
             {"interior_iterations", run.stats.interior_iterations},
             {"reference_ms", run.reference_ms}};
    if (run.classic_checked) {
      entry["classic_vs_natural_cpu"] = {
          {"mismatches", run.classic_mismatches},
          {"fraction", static_cast<double>(run.classic_mismatches) / static_cast<double>(pixels)},
          {"bound", mandelbrot::natural_mismatch_bound(run.precision, o.iters)}};
    }
  }
  extra["view"] = {{"x_min", view.x_min}, {"x_max", view.x_max}, {"y_min", view.y_min}, {"y_max", view.y_max}};
  extra["iters"] = o.iters;
  extra["launch"] = planned.describe();
  extra["cpu_simd"] = mandelbrot::cpu_simd_description();
  if (lesson.has_gpu()) extra["context_creation_ms"] = lesson.gpu().context_creation_ms;

  const int exit_code = lesson.finish();
  print_rates(lesson.report(), rates, static_cast<double>(pixels), lesson.has_gpu());

  // The image: the highest precision's counts, from the GPU's fast kernel when it ran (what the
  // last GPU row left in `counts` is its end-to-end copy), else the CPU reference.
  if (!o.image_path.empty()) {
    const PrecisionRun& last = runs.back();
    const bool from_gpu = lesson.has_gpu();
    const std::vector<std::uint32_t>& image_counts = from_gpu ? counts : last.reference;
    const std::string source = std::string(from_gpu ? "the GPU's mandel_fast (" : "the CPU reference (") +
                               precision_name(last.precision) + ")";
    mandelbrot::write_counts_image(o.image_path, image_counts, width, height, o.iters,
                                   mandelbrot::image_comment(view, o.iters, last.precision,
                                                             mandelbrot::shade_range(image_counts, o.iters), source),
                                   o.gray);
    std::printf("\nImage: %s (%s)\n", o.image_path.c_str(), source.c_str());
  }
  return exit_code;
}

}  // namespace

int main(int argc, char** argv) { return course::run_lesson(argc, argv, run); }
