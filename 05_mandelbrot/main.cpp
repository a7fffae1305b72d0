// 05_mandelbrot: the Mandelbrot set, a compute-bound 2-D kernel, in FP32 and FP64.
//
// Usage: 05_mandelbrot [--width W] [--height H] [--iters N] [view] [--block WxH] [--grid WxH|auto]
//                      [--precision float|double|both] [--image PATH] [--sweep-blocks] [shared flags: --help]
//   05_mandelbrot                                     the classic: 1536 x 1024, re [-2, 1] x im [-1, 1], 20 iterations
//   05_mandelbrot --width 4096 --height 4096 --iters 1000     the performance benchmark
//   05_mandelbrot --centre -0.743643887037151 0.131825904205330 --zoom 1e7 --iters 5000 --precision double
//   05_mandelbrot --image set.ppm                    the escape counts as a colour image (.pgm: grey)
//
// Flow: options (a view too deep for a precision is refused) -> GPU -> for each precision: the
// reference counts (CPU, OpenMP) -> CPU rows (one thread, OpenMP, OpenMP + SIMD), each verified
// then timed -> GPU rows (classic kernel, bounded mismatch; fast kernel, exact; end-to-end) ->
// block sweep -> report, rates against the FMA throughput, image, JSON.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "course/check.hpp"
#include "course/cli.hpp"
#include "course/device.hpp"
#include "course/device_buffer.hpp"
#include "course/errors.hpp"
#include "course/format.hpp"
#include "course/main.hpp"
#include "course/report.hpp"
#include "course/stream.hpp"
#include "course/timing.hpp"
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
  int height = mandelbrot::kClassicHeight;
  int iters = mandelbrot::kClassicIters;
  mandelbrot::View view;
  std::vector<double> centre;
  double zoom = 0;
  std::string block = "32x8";
  std::string grid = "auto";
  std::string precision = "both";
  std::string image_path;
  bool sweep_blocks = false;
  bool skip_serial = false;
};

struct Setup {
  const course::CommonOptions& options;
  const LessonOptions& lesson;
  int width, height, iters;
  mandelbrot::View view;
  mandelbrot::LaunchShape shape;
  std::size_t pixels;
  const course::GpuStatus& gpu;
};

// What each timed row did, for the rates table printed after the report.
struct Rate {
  std::string variant;
  double median_ms;
  double pixels, iterations;
  double fp_per_iteration;  // 0: not counted (CPU rows)
  Precision precision;
};

std::string row_name(Precision p, const std::string& what) { return std::string("CPU ") + precision_name(p) + ", " + what; }
std::string gpu_row_name(Precision p, const std::string& what) { return std::string("GPU ") + precision_name(p) + " " + what; }

// The outcome of one precision, for the image and the JSON.
struct PrecisionResult {
  std::vector<std::uint32_t> counts;  // the GPU's fast kernel if it ran, else the CPU reference
  std::string source;
};

template <class T>
PrecisionResult run_precision(Precision precision, bool primary, const Setup& s, course::Report& report,
                              std::vector<Rate>& rates) {
  const mandelbrot::Frame<T> frame = mandelbrot::make_frame<T>(s.view, s.width, s.height);
  const char* name = precision_name(precision);
  const course::CommonOptions& options = s.options;

  // The reference: the definition (fused arithmetic, one check per iteration), OpenMP rows.
  std::vector<std::uint32_t> reference(s.pixels);
  course::HostTimer reference_timer;
  mandelbrot::render_cpu(frame, s.iters, Arithmetic::fused, CpuMethod::openmp, reference);
  const double reference_ms = reference_timer.elapsed_ms();
  const mandelbrot::CountStats stats = mandelbrot::count_stats(reference, s.iters);
  const auto work = static_cast<double>(stats.iterations);
  std::printf("%s: %s pixel-iterations (%.1f per pixel); the set's interior is %.1f%% of the pixels and %.1f%% of "
              "the iterations\n",
              name, course::format_count(stats.iterations).c_str(), work / static_cast<double>(s.pixels),
              100.0 * stats.interior_pixel_fraction(), 100.0 * stats.interior_iteration_fraction());
  nlohmann::json& extra = report.extra()["precisions"][name];
  extra = {{"iterations", stats.iterations},
           {"interior_pixels", stats.interior_pixels},
           {"interior_iterations", stats.interior_iterations},
           {"reference_ms", reference_ms}};

  auto add_rate = [&](const course::Row& row, double fp) {
    if (row.time) rates.push_back({row.variant, row.time->median_ms, static_cast<double>(s.pixels), work, fp, precision});
  };

  std::vector<std::uint32_t> counts(s.pixels);
  if (!options.skip_cpu) {
    struct Version {
      std::string name;
      CpuMethod method;
      Role role;
    };
    std::vector<Version> versions;
    if (!s.lesson.skip_serial) {
      versions.push_back({row_name(precision, "1 thread, one pixel at a time (teaching row)"), CpuMethod::serial,
                          primary ? Role::cpu_serial : Role::detail});
    }
    const std::string threads =
        std::to_string(options.cpu_threads()) + (options.cpu_threads() == 1 ? " thread" : " threads");
    versions.push_back({row_name(precision, threads + " (OpenMP, dynamic), one pixel at a time"), CpuMethod::openmp,
                        Role::detail});
    versions.push_back({row_name(precision, threads + " (OpenMP) + SIMD (" + mandelbrot::cpu_simd_description() + ")"),
                        CpuMethod::openmp_simd, primary ? Role::cpu_parallel : Role::detail});
    for (const Version& version : versions) {
      course::Row row{version.name, Target::cpu, version.role};
      std::fill(counts.begin(), counts.end(), std::numeric_limits<std::uint32_t>::max());  // poison
      mandelbrot::render_cpu(frame, s.iters, Arithmetic::fused, version.method, counts);
      const mandelbrot::CountCheck check = mandelbrot::compare_counts(counts, reference, s.iters, 0.0);
      row.check = check.to_verify_result();
      if (version.method == CpuMethod::openmp) row.note = "the same code as the reference: a check of determinism only";
      row.time = course::time_host(options.cpu_repeat(), [&] {
        mandelbrot::render_cpu(frame, s.iters, Arithmetic::fused, version.method, counts);
      });
      row.work = work;
      add_rate(row, 0);
      report.add(std::move(row));
    }
  }

  const std::string classic_row = gpu_row_name(precision, "mandel_classic (natural arithmetic, nvcc's FMAs)");
  const std::string fast_row = gpu_row_name(precision, "mandel_fast (fused arithmetic, checks every 8 iterations)");
  const std::string end_to_end_row = gpu_row_name(precision, "end-to-end: mandel_fast + copy the counts to the host");
  if (!s.gpu.usable) {
    report.add_skipped(classic_row, Target::gpu, Role::detail, s.gpu.reason);
    report.add_skipped(fast_row, Target::gpu, primary ? Role::gpu_kernel : Role::detail, s.gpu.reason);
    report.add_skipped(end_to_end_row, Target::gpu, primary ? Role::gpu_end_to_end : Role::detail, s.gpu.reason);
    return {std::move(reference), std::string("the CPU reference (") + name + ")"};
  }

  course::Stream stream;
  course::DeviceBuffer<std::uint32_t> d_counts(s.pixels, "escape counts");
  const course::RepeatOptions repeat = options.gpu_repeat();
  // The kernel reads nothing and writes 4 bytes per pixel, so a warm L2 changes little; the
  // flush (outside the timed region) keeps the timing rule the same as every lesson's.
  std::optional<course::L2Flusher> flusher;
  if (options.flush_l2) flusher.emplace();
  const course::L2Flusher* flush = flusher ? &*flusher : nullptr;

  // The classic kernel against the CPU's natural arithmetic: the same source, compiled with
  // contraction on the GPU and without on the CPU, so a few boundary pixels may differ.
  {
    std::vector<std::uint32_t> natural(s.pixels);
    mandelbrot::render_cpu(frame, s.iters, Arithmetic::natural, CpuMethod::openmp_simd, natural);
    const double bound = mandelbrot::natural_mismatch_bound(precision, s.iters);
    course::Row row{classic_row, Target::gpu, Role::detail};
    d_counts.poison(stream.get());  // 0xFFFFFFFF: out of range, so an unwritten pixel fails
    const mandelbrot::Launch launch =
        mandelbrot::launch_mandelbrot(Kernel::classic, d_counts.data(), frame, s.iters, s.shape, stream.get());
    stream.synchronize();
    d_counts.copy_to_host(counts);
    const mandelbrot::CountCheck check = mandelbrot::compare_counts(counts, natural, s.iters, bound);
    row.check = check.to_verify_result();
    row.time = course::time_device(repeat, stream.get(), [&] {
      mandelbrot::launch_mandelbrot(Kernel::classic, d_counts.data(), frame, s.iters, s.shape, stream.get());
    }, flush);
    row.work = work;
    row.note = launch.describe() + "; against the CPU's natural arithmetic: " + check.summary();
    extra["classic_vs_natural_cpu"] = {{"mismatches", check.mismatches},
                                       {"fraction", check.mismatch_fraction()},
                                       {"bound", bound},
                                       {"max_difference", check.max_difference}};
    add_rate(row, kClassicFpPerIteration);
    report.add(std::move(row));
  }

  // The fast kernel: fused arithmetic on both sides, so the counts must match exactly.
  {
    course::Row row{fast_row, Target::gpu, primary ? Role::gpu_kernel : Role::detail};
    d_counts.poison(stream.get());
    const mandelbrot::Launch launch =
        mandelbrot::launch_mandelbrot(Kernel::fast, d_counts.data(), frame, s.iters, s.shape, stream.get());
    stream.synchronize();
    d_counts.copy_to_host(counts);
    const mandelbrot::CountCheck check = mandelbrot::compare_counts(counts, reference, s.iters, 0.0);
    row.check = check.to_verify_result();
    row.time = course::time_device(repeat, stream.get(), [&] {
      mandelbrot::launch_mandelbrot(Kernel::fast, d_counts.data(), frame, s.iters, s.shape, stream.get());
    }, flush);
    row.work = work;
    row.note = launch.describe() + "; " + check.summary();
    add_rate(row, kFastFpPerIteration);
    report.add(std::move(row));
  }

  // End to end: the counts are needed on the host (an image, a file). 4 bytes per pixel.
  {
    course::Row row{end_to_end_row, Target::gpu, primary ? Role::gpu_end_to_end : Role::detail};
    auto end_to_end = [&] {
      mandelbrot::launch_mandelbrot(Kernel::fast, d_counts.data(), frame, s.iters, s.shape, stream.get());
      d_counts.copy_to_host_async(counts, stream.get());
      stream.synchronize();
    };
    std::fill(counts.begin(), counts.end(), std::numeric_limits<std::uint32_t>::max());
    d_counts.poison(stream.get());
    end_to_end();
    const mandelbrot::CountCheck check = mandelbrot::compare_counts(counts, reference, s.iters, 0.0);
    row.check = check.to_verify_result();
    row.time = course::time_host({1, std::min(options.reps, 10)}, end_to_end);
    row.work = work;
    row.note = check.summary();
    report.add(std::move(row));
  }

  if (s.lesson.sweep_blocks) {
    const std::vector<mandelbrot::SweepPoint> points =
        mandelbrot::run_block_sweep(frame, s.iters, reference, repeat, stream.get());
    std::printf("\nBlock-shape sweep, %s mandel_fast, %d x %d, %d iterations (each verified exactly):\n", name,
                s.width, s.height, s.iters);
    std::printf("  %-8s %-22s %12s %12s  %s\n", "block", "grid", "median ms", "Giter/s", "check");
    nlohmann::json sweep = nlohmann::json::array();
    bool all_passed = true;
    for (const mandelbrot::SweepPoint& point : points) {
      const double rate = work / (point.time.median_ms * 1e-3) / 1e9;
      std::printf("  %-8s %-22s %12s %12.1f  %s\n", point.launch.block.describe().c_str(),
                  (point.shape.grid.x ? point.launch.grid.describe() + " (fixed)" : point.launch.grid.describe()).c_str(),
                  course::format_ms(point.time.median_ms).c_str(), rate, point.check.passed ? "exact" : "FAILED");
      all_passed = all_passed && point.check.passed;
      sweep.push_back({{"block", point.launch.block.describe()},
                       {"grid", point.launch.grid.describe()},
                       {"fixed_grid", point.shape.grid.x != 0},
                       {"median_ms", point.time.median_ms},
                       {"pixel_iterations_per_s", rate * 1e9},
                       {"passed", point.check.passed}});
    }
    extra["block_sweep"] = sweep;
    if (!all_passed) {
      course::VerifyResult failed;
      failed.count = s.pixels;
      failed.mismatches = 1;
      report.add_check(gpu_row_name(precision, "block sweep"), Target::gpu, failed, "a sweep point failed");
    }
  }
  return {std::move(counts), std::string("the GPU's mandel_fast (") + name + ")"};
}

void print_rates(const std::vector<Rate>& rates) {
  std::printf("\nRates (pixel-iterations = the sum of all escape counts: the iterations really executed)\n");
  std::printf("  %-78s %10s %12s %11s %15s\n", "variant", "MP/s", "Giter/s", "FP instr/s", "of FMA ceiling");
  for (const Rate& rate : rates) {
    const double seconds = rate.median_ms * 1e-3;
    const double per_s = rate.iterations / seconds;
    char fp[32] = "-";
    if (rate.fp_per_iteration > 0) std::snprintf(fp, sizeof fp, "%.1fT", per_s * rate.fp_per_iteration / 1e12);
    // CEILING(harness): divide the FP instructions per second by the FP32 or FP64 FMA ceiling that
    // common measures in the same run, once it lands; until then the column says so.
    std::printf("  %-78s %10.0f %12.1f %11s %15s\n", rate.variant.c_str(), rate.pixels / seconds / 1e6, per_s / 1e9, fp,
                rate.fp_per_iteration > 0 ? "pending" : "-");
  }
}

int run(int argc, char** argv) {
  course::LessonCli cli("05_mandelbrot",
                        "The Mandelbrot set: escape counts per pixel, CPU (1 thread, OpenMP, SIMD) against GPU, "
                        "FP32 and FP64",
                        {"--width", "image width in pixels", mandelbrot::kClassicWidth, kMaxSide});
  LessonOptions lesson;
  CLI::App& app = cli.app();
  app.add_option("--height", lesson.height, "image height in pixels")->check(CLI::Range(1, kMaxSide))->capture_default_str();
  app.add_option("--iters", lesson.iters, "maximum iterations per pixel")->check(CLI::Range(1, kMaxIters))->capture_default_str();
  app.add_option("--x-min", lesson.view.x_min, "left edge of the view (real part)")->capture_default_str();
  app.add_option("--x-max", lesson.view.x_max, "right edge of the view (real part)")->capture_default_str();
  app.add_option("--y-min", lesson.view.y_min, "bottom edge of the view (imaginary part)")->capture_default_str();
  app.add_option("--y-max", lesson.view.y_max, "top edge of the view (imaginary part)")->capture_default_str();
  app.add_option("--centre,--center", lesson.centre, "centre of the view: RE IM (with --zoom, instead of the edges)")
      ->expected(2);
  app.add_option("--zoom", lesson.zoom, "magnification around --centre: 1 shows 3 units of the real axis");
  app.add_option("--block", lesson.block, "threads per block, WxH (at most 1024 in all)")->capture_default_str();
  app.add_option("--grid", lesson.grid, "blocks per grid, WxH, or auto (one thread per pixel); the classic is 32x16")
      ->capture_default_str();
  app.add_option("--precision", lesson.precision, "float, double or both")
      ->check(CLI::IsMember({"float", "double", "both"}))
      ->capture_default_str();
  app.add_option("--image", lesson.image_path, "write the escape counts as an image: NAME.pgm (grey) or NAME.ppm (colour)");
  app.add_flag("--sweep-blocks", lesson.sweep_blocks, "also time the fast kernel at many block shapes");
  app.add_flag("--skip-serial", lesson.skip_serial, "skip the one-thread CPU rows (minutes on large images)");
  const course::CommonOptions& options = cli.parse(argc, argv);

  const int width = static_cast<int>(options.size);
  const std::size_t pixels = static_cast<std::size_t>(width) * static_cast<std::size_t>(lesson.height);
  if (pixels > kMaxPixels) {
    throw course::UsageError("--width/--height: " + course::format_count(pixels) + " pixels, more than the " +
                             course::format_count(kMaxPixels) + " the lesson allows");
  }
  mandelbrot::View view = lesson.view;
  const bool edges_given = app.count("--x-min") + app.count("--x-max") + app.count("--y-min") + app.count("--y-max") > 0;
  if (!lesson.centre.empty() || app.count("--zoom")) {
    if (edges_given) throw course::UsageError("--centre/--zoom: give the view as edges or as centre and zoom, not both");
    if (lesson.centre.size() != 2) throw course::UsageError("--centre: needs two numbers, RE IM");
    if (!app.count("--zoom")) lesson.zoom = 1;
    if (!std::isfinite(lesson.zoom) || lesson.zoom <= 0 || lesson.zoom > 1e300) {
      throw course::UsageError("--zoom: must be a positive number, not " + std::to_string(lesson.zoom));
    }
    view = mandelbrot::view_from_centre(lesson.centre[0], lesson.centre[1], lesson.zoom, width, lesson.height);
  }
  for (const double edge : {view.x_min, view.x_max, view.y_min, view.y_max}) {
    if (!std::isfinite(edge) || std::fabs(edge) > 1e6) {
      throw course::UsageError("--x-min/--x-max/--y-min/--y-max: the view must lie within +-1e6, got " + view.describe());
    }
  }
  if (!(view.x_min < view.x_max)) {
    throw course::UsageError("--x-min/--x-max: empty or inverted range (" + view.describe() + ")");
  }
  if (!(view.y_min < view.y_max)) {
    throw course::UsageError("--y-min/--y-max: empty or inverted range (" + view.describe() + ")");
  }
  std::vector<Precision> precisions;
  if (lesson.precision != "double") precisions.push_back(Precision::f32);
  if (lesson.precision != "float") precisions.push_back(Precision::f64);
  for (const Precision p : precisions) {
    const std::string problem = mandelbrot::precision_problem(view, width, lesson.height, p);
    if (!problem.empty()) {
      throw course::UsageError("--precision " + lesson.precision + ": " + problem +
                               (p == Precision::f32 ? "; use --precision double" : "; zoom out"));
    }
  }
  mandelbrot::LaunchShape shape;
  shape.block = mandelbrot::parse_shape(lesson.block, "--block");
  if (lesson.grid != "auto") shape.grid = mandelbrot::parse_shape(lesson.grid, "--grid");
  const mandelbrot::Launch planned = mandelbrot::plan_launch(shape, width, lesson.height);  // throws on a bad shape
  if (!lesson.image_path.empty()) mandelbrot::check_image_path(lesson.image_path);

  course::Report report(cli,
                        "Mandelbrot set, " + std::to_string(width) + " x " + std::to_string(lesson.height) + " pixels, " +
                            view.describe() + ", " + std::to_string(lesson.iters) + " iterations",
                        {"Giter/s", 1e9, "pixel-iterations"});
  const course::GpuStatus gpu = course::open_gpu(options);
  report.set_gpu(gpu);
  const std::string count_bytes = course::format_bytes(4.0 * static_cast<double>(pixels));
  if (gpu.usable) course::require_device_memory(pixels * sizeof(std::uint32_t), "the escape counts (" + count_bytes + ")");
  course::require_host_memory(3 * pixels * sizeof(std::uint32_t), "3 arrays of escape counts (3 x " + count_bytes + ")");

  std::printf("%s, %d iterations at most; GPU launch: %s\n", view.describe().c_str(), lesson.iters,
              planned.describe().c_str());
  const Setup setup{options, lesson, width, lesson.height, lesson.iters, view, shape, pixels, gpu};
  std::vector<Rate> rates;
  PrecisionResult last;
  Precision last_precision = precisions.back();
  for (std::size_t i = 0; i < precisions.size(); ++i) {
    last = precisions[i] == Precision::f32 ? run_precision<float>(precisions[i], i == 0, setup, report, rates)
                                           : run_precision<double>(precisions[i], i == 0, setup, report, rates);
  }
  if (gpu.usable) report.extra()["context_creation_ms"] = gpu.context_creation_ms;
  report.extra()["view"] = {{"x_min", view.x_min}, {"x_max", view.x_max}, {"y_min", view.y_min}, {"y_max", view.y_max}};
  report.extra()["width"] = width;
  report.extra()["height"] = lesson.height;
  report.extra()["iters"] = lesson.iters;
  report.extra()["launch"] = planned.describe();
  report.extra()["cpu_simd"] = mandelbrot::cpu_simd_description();

  report.print(std::cout);
  print_rates(rates);
  if (!lesson.image_path.empty()) {
    mandelbrot::write_counts_image(lesson.image_path, last.counts, width, lesson.height, lesson.iters,
                                   mandelbrot::image_comment(view, lesson.iters, last_precision,
                                                             mandelbrot::shade_range(last.counts, lesson.iters),
                                                             last.source));
    std::printf("\nImage: %s (%s)\n", lesson.image_path.c_str(), last.source.c_str());
  }
  if (!options.json_path.empty()) report.write_json(options.json_path);
  return report.exit_code();
}

}  // namespace

int main(int argc, char** argv) { return course::run_lesson(argc, argv, run); }
