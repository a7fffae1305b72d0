// Lesson 05: what the rows need before they run: the command line and its checks, the reference
// counts of each precision, and how a kernel's counts are checked against them.
//
// Teaches: a view is refused, in one line, before any work when its precision cannot resolve it
// (counts.cpp says why); the reference is the definition itself in fused arithmetic, which every
// CPU method and every fused kernel must match exactly; a kernel in natural arithmetic is held
// against the CPU's natural arithmetic instead, with a bound on the pixels that may differ.
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string>

#include "course/device.hpp"
#include "course/errors.hpp"
#include "course/files.hpp"
#include "course/format.hpp"
#include "course/timing.hpp"
#include "mandelbrot_lesson.hpp"

namespace mandelbrot {

namespace {

constexpr int kMaxIters = 100000000;
constexpr std::size_t kMaxPixels = std::size_t{1} << 30;

// The view from the command line: edges, or centre and zoom.
View checked_view(Options& options, const CLI::App& app, int width, int height) {
  View view = options.view;
  const bool edges_given = app.count("--x-min") + app.count("--x-max") + app.count("--y-min") + app.count("--y-max") > 0;
  if (!options.centre.empty() || app.count("--zoom")) {
    if (edges_given) throw course::UsageError("--centre/--zoom: give the view as edges or as centre and zoom, not both");
    if (options.centre.size() != 2) throw course::UsageError("--centre: needs two numbers, RE IM");
    if (!app.count("--zoom")) options.zoom = 1;
    if (!std::isfinite(options.zoom) || options.zoom <= 0 || options.zoom > 1e300) {
      throw course::UsageError("--zoom: must be a positive number, not " + std::to_string(options.zoom));
    }
    view = view_from_centre(options.centre[0], options.centre[1], options.zoom, width, height);
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

course::Precisions checked_precisions(const std::string& precision, const View& view, int width, int height) {
  const course::Precisions set = precision == "float"    ? course::Precisions::f32
                                 : precision == "double" ? course::Precisions::f64
                                                         : course::Precisions::both;
  for (const course::Precision p : course::precisions_in(set)) {
    const std::string problem = precision_problem(view, width, height, p);
    if (!problem.empty()) {
      throw course::UsageError("--precision " + precision + ": " + problem +
                               (p == course::Precision::fp32 ? "; use --precision double" : "; zoom out"));
    }
  }
  return set;
}

// The registry in the precisions --precision asks for (a kernel built for both runs in one).
std::vector<KernelEntry> kernels_in(course::Precisions precisions) {
  std::vector<KernelEntry> table(kernels().begin(), kernels().end());
  for (KernelEntry& kernel : table) {
    kernel.traits.precisions = static_cast<course::Precisions>(static_cast<unsigned>(kernel.traits.precisions) &
                                                               static_cast<unsigned>(precisions));
  }
  return table;
}

// The reference counts of one precision, timed, with a line saying what they hold.
PrecisionRun make_reference(course::Precision precision, const Problem& problem) {
  PrecisionRun run;
  run.precision = precision;
  run.f32 = make_frame<float>(problem.view, problem.width, problem.height);
  run.f64 = make_frame<double>(problem.view, problem.width, problem.height);
  run.reference.resize(problem.pixels());
  const course::HostTimer timer;
  run.render(problem.iters, Arithmetic::fused, CpuMethod::openmp, run.reference);
  run.reference_ms = timer.elapsed_ms();
  run.stats = count_stats(run.reference, problem.iters);
  std::printf("%s: %s pixel-iterations (%.1f per pixel); the set's interior is %.1f%% of the pixels and %.1f%% of "
              "the iterations\n",
              run.group().c_str(), course::format_count(run.stats.iterations).c_str(),
              static_cast<double>(run.stats.iterations) / static_cast<double>(problem.pixels()),
              100.0 * run.stats.interior_pixel_fraction(), 100.0 * run.stats.interior_iteration_fraction());
  return run;
}

}  // namespace

void add_options(CLI::App& app, Options& o) {
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
  app.add_flag("--gray", o.gray, "a .png image in grey levels (for draw_counts.py), not the colour map");
  app.add_option("--colour,--color", o.colour,
                 "the --image's colours: log (the counts on a log scale) or equalised (spread by the counts' "
                 "histogram: every level covers as many pixels)")
      ->check(CLI::IsMember({"log", "equalised", "equalized"}))
      ->capture_default_str();
  app.add_flag("--histogram", o.histogram,
               "also the histogram of the counts and its prefix sum: CPU, the GPU steps, CUB (the deep dive)");
  app.add_flag("--skip-serial", o.skip_serial, "skip the one-thread CPU rows (minutes on large images)");
}

Problem check_options(Options& options, const CLI::App& app, int width, int height) {
  Problem problem{width, height, options.iters, {}, {}, course::Precisions::both};
  if (problem.pixels() > kMaxPixels) {
    throw course::UsageError("--width/--height: " + course::format_count(problem.pixels()) + " pixels, more than the " +
                             course::format_count(kMaxPixels) + " the lesson allows");
  }
  problem.view = checked_view(options, app, width, height);
  problem.precisions = checked_precisions(options.precision, problem.view, width, height);
  problem.launch = launch_of(parse_extent(options.block, "--block"),
                             options.grid == "auto" ? Extent{0, 0} : parse_extent(options.grid, "--grid"));
  (void)plan_launch(problem.launch, width, height);  // throws on a bad shape, before any work
  if (!options.image_path.empty()) check_image_path(options.image_path, options.gray);
  const std::string json = app.count("--json") > 0 ? app.get_option("--json")->results().front() : "";
  course::check_distinct_outputs({{"--json", json}, {"--image", options.image_path}});
  if (options.gray && options.image_path.empty()) throw course::UsageError("--gray: there is no --image to write");
  if (options.colour == "equalized") options.colour = "equalised";
  if (options.colour != "log" && options.image_path.empty()) {
    throw course::UsageError("--colour: there is no --image to colour");
  }
  return problem;
}

void PrecisionRun::render(int max_iters, Arithmetic arithmetic, CpuMethod method, std::span<std::uint32_t> counts) const {
  if (precision == course::Precision::fp32) {
    render_cpu(f32, max_iters, arithmetic, method, counts);
  } else {
    render_cpu(f64, max_iters, arithmetic, method, counts);
  }
}

course::Check check_kernel(const KernelFacts& facts, PrecisionRun& run, int max_iters,
                           course::DeviceBuffer<std::uint32_t>& d_counts, std::span<std::uint32_t> host) {
  if (facts.arithmetic == Arithmetic::fused) {
    return course::check_device_integers<std::uint32_t>(d_counts, host, run.reference, count_tolerance(0, max_iters));
  }
  const double bound = natural_mismatch_bound(run.precision, max_iters);
  return {[&d_counts] { d_counts.poison(); },
          [&run, &d_counts, host, max_iters, bound] {
            d_counts.copy_to_host(host);
            if (run.natural.empty()) {  // computed here, untimed, and only when a GPU runs such a kernel
              run.natural.resize(host.size());
              run.render(max_iters, Arithmetic::natural, CpuMethod::openmp_simd, run.natural);
            }
            return check_counts(host, run.natural, max_iters, bound);
          }};
}

std::string check_note(const KernelFacts& facts, course::Precision precision, int max_iters) {
  if (facts.arithmetic == Arithmetic::fused) return "exactly the reference's counts (fused arithmetic)";
  return "checked against the CPU's natural arithmetic: at most " +
         course::format_fixed(100 * natural_mismatch_bound(precision, max_iters), 2) +
         "% of the pixels may differ (rounding flips boundary pixels)";
}

PrecisionRun& LessonData::run_of(course::Precision precision) {
  for (PrecisionRun& run : runs) {
    if (run.precision == precision) return run;
  }
  throw std::logic_error("05_mandelbrot: no reference in " + std::string(course::precision_name(precision)));
}

void prepare(LessonData& data) {
  const Problem& problem = data.problem;
  const std::size_t precisions = course::precisions_in(problem.precisions).size();
  course::require_host_memory((2 * precisions + 2) * problem.pixels() * sizeof(std::uint32_t),
                              "the escape counts and their references (" +
                                  course::format_bytes(4.0 * static_cast<double>(problem.pixels())) + " each)");
  std::printf("%s, %d iterations at most; GPU launch: %s\n", problem.view.describe().c_str(), problem.iters,
              plan_launch(problem.launch, problem.width, problem.height).describe().c_str());
  for (const course::Precision precision : course::precisions_in(problem.precisions)) {
    data.runs.push_back(make_reference(precision, problem));
  }
  data.table = kernels_in(problem.precisions);
  data.counts.resize(problem.pixels());
}

void write_image(const Options& options, const LessonData& data, bool from_gpu) {
  const Problem& problem = data.problem;
  const PrecisionRun& run = data.runs.back();
  const std::span<const std::uint32_t> counts = from_gpu ? data.counts : run.reference;
  const std::string source =
      (from_gpu ? "the GPU's " + std::string(course::headline_kernel(data.kernels(), run.precision).name)
                : std::string("the CPU reference")) + " (" + run.group() + ")";
  const std::string comment =
      image_comment(problem.view, problem.iters, run.precision, shade_range(counts, problem.iters), source);
  if (options.colour == "equalised") {
    write_equalised_image(options.image_path, counts, problem.width, problem.height, problem.iters, comment, options.gray);
  } else {
    write_counts_image(options.image_path, counts, problem.width, problem.height, problem.iters, comment, options.gray);
  }
  std::printf("\nImage: %s (%s%s)\n", options.image_path.c_str(), source.c_str(),
              options.colour == "equalised" ? ", histogram-equalised" : "");
}

}  // namespace mandelbrot
