// The rows of lesson 06's table, its crossover sweep and its pictures (see lesson_rows.hpp).
#include "lesson_rows.hpp"

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <utility>

#include "course/check.hpp"
#include "course/errors.hpp"
#include "course/random.hpp"
#include "kernels/fft_steps.cuh"

namespace fft_convolve {

namespace {

using course::Role;
using course::Target;

course::ThroughputUnit pixel_rate() { return course::units::items("Gpixel/s", "pixels"); }

std::string threads_text(int threads) { return threads == 1 ? "1 thread" : std::to_string(threads) + " threads"; }

// The image and its border, each checked against the reference (the border only where the
// filter reaches past the edge, K > 1).
std::vector<course::OutputCheck> host_checks(std::span<float> y, const Problem& p) {
  std::vector<course::OutputCheck> checks{
      {"image", course::check_host<float>(y, course::reference_of(p.reference), p.tolerance)}};
  if (p.filter.size > 1) {
    checks.push_back({"border", {nullptr, [y, &p] {
                                   return verify_border(y, p.reference, p.image.height, p.image.width, p.filter, p.tolerance);
                                 }}});
  }
  return checks;
}

std::vector<course::OutputCheck> device_checks(course::DeviceBuffer<float>& d_y, std::span<float> y, const Problem& p) {
  std::vector<course::OutputCheck> checks{
      {"image", course::check_device<float>(d_y, y, course::reference_of(p.reference), p.tolerance)}};
  if (p.filter.size > 1) {
    checks.push_back({"border", {nullptr, [&d_y, y, &p] {
                                   d_y.copy_to_host(y);
                                   return verify_border(y, p.reference, p.image.height, p.image.width, p.filter, p.tolerance);
                                 }}});
  }
  return checks;
}

// A slow CPU row (over 2e10 multiply-adds, tens of seconds on one core) is timed once.
std::optional<course::RepeatOptions> slow_cpu(double multiply_adds) {
  return multiply_adds > 2e10 ? std::optional(course::RepeatOptions{0, 1}) : std::nullopt;
}

// Why the naive FFT has nothing to show for this problem, or "".
std::string naive_skip(const Problem& p) {
  if (p.filter.size == 1) return "a 1 x 1 filter neither spreads nor shifts: the naive way is exact, nothing to show";
  if (p.filter.size > p.image.height || p.filter.size > p.image.width) return "the filter does not fit in the image";
  if (std::all_of(p.image.pixels.begin(), p.image.pixels.end(), [](float v) { return v == 0.0f; })) {
    return "a black image: every method gives 0, the wrap cannot show";
  }
  return "";
}

// Flops per byte above which a direct method is held against the FMA ceiling rather than the
// copy: 2 K^2 flops per 8 bytes passes 24 at K = 11. Any GPU of the course's time has its ridge
// point (FMA ceiling / copy bandwidth, an H100's near 20 flop/B) well below K = 15's 56, and
// near it either ceiling says about the same.
constexpr double kComputeBoundIntensity = 24;

// The row's unit, work and ceiling: memory-bound methods in GB/s against the device copy,
// compute-bound direct methods (large K) in GFLOP/s against the FP32 FMA ceiling, FFT methods in
// pixels per second against one cuFFT R2C + C2R pair.
void set_throughput(course::Variant& v, const GpuConvolver& method, double pixels) {
  const double bytes_per_pixel = method.bytes_per_pixel(), flops_per_pixel = method.flops_per_pixel();
  if (bytes_per_pixel > 0 && flops_per_pixel >= kComputeBoundIntensity * bytes_per_pixel) {
    v.unit = course::units::gflops();
    v.work = flops_per_pixel * pixels;
    v.ceiling = "fp32_fma";
  } else if (bytes_per_pixel > 0) {
    v.unit = course::units::bandwidth();
    v.work = bytes_per_pixel * pixels;
    v.ceiling = "d2d_copy";
  } else {
    v.unit = pixel_rate();
    v.work = pixels;
    v.ceiling = "cufft_pair";
  }
}

}  // namespace

void add_lesson_options(course::Lesson& lesson, LessonOptions& options) {
  CLI::App& app = lesson.cli();
  app.add_option("--image", options.image_path,
                 "a grey image to filter: PNG, PGM (8 or 16 bits) or PPM (as grey); default: a generated test image");
  app.add_option("--filter", options.filter_name, "classic (the 5 x 5 of the classic, default), gaussian or box");
  app.add_option("--filter-size", options.filter_size, "K for gaussian and box: odd, 1 to 255 (default 5)");
  app.add_option("--filter-file", options.filter_file, "a K x K text matrix instead (one row per line, '#' comments)");
  app.add_option("--out-dir", options.out_dir, "write the input, results and differences as PNG into this folder");
  app.add_option("--fftw-planner", options.fftw_planner, "FFTW's planner: estimate, measure (default) or patient");
  lesson.add_kernel_option(options.kernels, kernels());
  lesson.declare_sweep("filter-size", "time direct and FFT convolution for Gaussian filters K = 3 to 63");
}

FftwPlanner planner_from_name(const std::string& name) {
  if (name == "estimate") return FftwPlanner::estimate;
  if (name == "measure") return FftwPlanner::measure;
  if (name == "patient") return FftwPlanner::patient;
  throw course::UsageError("--fftw-planner " + name + ": choose estimate, measure or patient");
}

Problem make_problem(Image image, Filter filter) {
  Problem p{std::move(image), std::move(filter), {}, {}, {}};
  p.reference = convolve_reference(p.image, p.filter);
  // The bound's log2(N) for the largest FFT a method may pick (gpu::choose_padding's candidates).
  for (const PaddedShape& shape : padding_candidates(p.image.height, p.image.width, p.filter.size, 3)) {
    if (shape.real_count() > p.tolerance_shape.real_count()) p.tolerance_shape = shape;
  }
  p.tolerance = convolution_tolerance(p.image, p.filter, p.tolerance_shape, p.reference);
  return p;
}

Problem make_problem(course::Lesson& lesson, const LessonOptions& options) {
  const course::CommonOptions& common = lesson.options();
  CLI::App& app = lesson.cli();
  const bool size_given = app.count("--width") + app.count("--height") + app.count("--size") > 0;
  Image image;
  if (!options.image_path.empty()) {
    if (size_given) throw course::UsageError("--image: the image's own size is used; leave out --width, --height and --size");
    image = load_image(options.image_path);
    if (image.width > kMaxSide || image.height > kMaxSide) {
      throw course::UsageError("--image: " + options.image_path + " is " + std::to_string(image.width) + " x " +
                               std::to_string(image.height) + ": at most " + std::to_string(kMaxSide) + " per side");
    }
  } else {
    const std::int64_t width = common.dim("width"), height = common.dim("height");
    if (width * height > kMaxPixels) {
      throw course::UsageError("--width/--height: " + std::to_string(width) + " x " + std::to_string(height) +
                               " is over 2^28 pixels");
    }
    image = test_image(static_cast<int>(width), static_cast<int>(height), common.seed);
  }
  Filter filter;
  const bool filter_size_given = app.count("--filter-size") > 0;
  if (filter_size_given && (options.filter_size < 1 || options.filter_size > 255 || options.filter_size % 2 == 0)) {
    throw course::UsageError("--filter-size " + std::to_string(options.filter_size) + ": give an odd size from 1 to 255");
  }
  std::string flag = filter_size_given ? "--filter-size " + std::to_string(options.filter_size) : "--filter " + options.filter_name;
  if (!options.filter_file.empty()) {
    if (app.count("--filter") + app.count("--filter-size") > 0) {
      throw course::UsageError("--filter-file: give either --filter-file or --filter/--filter-size, not both");
    }
    filter = read_filter_file(options.filter_file);
    flag = "--filter-file " + options.filter_file;
  } else {
    filter = make_filter(options.filter_name, options.filter_size);
  }
  if (filter.size > std::min(image.width, image.height)) {
    throw course::UsageError(flag + ": the filter (" + std::to_string(filter.size) + " x " + std::to_string(filter.size) +
                             ") is larger than the image (" + std::to_string(image.width) + " x " +
                             std::to_string(image.height) + ")");
  }
  return make_problem(std::move(image), std::move(filter));
}

void add_cpu_rows(course::Lesson& lesson, const Problem& problem, HostResults& results, FftwPlanner planner) {
  const int threads = lesson.options().cpu_threads();
  const double pixels = static_cast<double>(problem.image.size());
  const double multiply_adds = pixels * problem.filter.size * problem.filter.size;
  const std::string all = threads_text(threads);
  auto direct = [&](int n) {
    return [&problem, &results, n](cudaStream_t) { convolve_direct(problem.image, problem.filter, results.direct, n); };
  };
  lesson.add({.name = "CPU direct, 1 thread", .unit = pixel_rate(), .work = pixels, .run = direct(1),
              .checks = host_checks(results.direct, problem), .repeat = slow_cpu(multiply_adds)});
  lesson.add({.name = "CPU direct, OpenMP + SIMD, " + all, .unit = pixel_rate(), .work = pixels, .run = direct(threads),
              .checks = host_checks(results.direct, problem), .repeat = slow_cpu(multiply_adds / threads)});
  // The same filter in two 1-D passes where it is separable: 2K multiply-adds a pixel, not K^2
  // (exercise 2 of the page writes its column pass; these rows answer its timing question).
  const std::string not_separable = problem.filter.separable_problem();
  auto separable = [&](int n) {
    return [&problem, &results, n](cudaStream_t) { convolve_separable(problem.image, problem.filter, results.separable, n); };
  };
  lesson.add({.name = "CPU separable, 1 thread", .unit = pixel_rate(), .work = pixels, .run = separable(1),
              .checks = host_checks(results.separable, problem), .skip = not_separable});
  lesson.add({.name = "CPU separable, OpenMP + SIMD, " + all, .unit = pixel_rate(), .work = pixels,
              .run = separable(threads), .checks = host_checks(results.separable, problem), .skip = not_separable});
  // FFTW: plans in the untimed setup (FFTW_MEASURE times algorithms: seconds for large sizes).
  // One thread (the single-core baseline), then all (the multi-core one; also with --threads 1).
  for (const bool serial : {true, false}) {
    const int n = serial ? 1 : threads;
    auto& fftw = lesson.add_setup("", [&problem, n, planner] { return FftwConvolver(problem.image, problem.filter, n, planner); });
    lesson.add({.name = serial ? "CPU FFTW r2c/c2r, 1 thread" : "CPU FFTW r2c/c2r, OpenMP, " + all,
                .role = serial ? Role::cpu_serial : Role::cpu_parallel, .unit = pixel_rate(), .work = pixels,
                .setup = {fftw},
                .run = [&fftw, &results](cudaStream_t) { fftw->run(results.fftw); },
                .checks = host_checks(results.fftw, problem),
                .note_after_run = [&fftw] { return "FFT " + fftw->shape().text() + ", planned in " +
                                                   std::to_string(static_cast<int>(fftw->plan_ms())) + " ms"; }});
  }
  lesson.add({.name = "CPU naive C2C FFT (FFTW), the classic's way", .unit = pixel_rate(), .work = pixels,
              .run = [&problem, &results](cudaStream_t) { convolve_naive_c2c_fftw(problem.image, problem.filter, results.naive); },
              .checks = host_checks(results.naive, problem), .timed = false, .expected_to_fail = true,
              .skip = naive_skip(problem),
              .note = "teaching row, not timed: no padding, filter in the corner: the result wraps around (expected to fail)"});
}

// ---- GPU ------------------------------------------------------------------------------------

GpuRows::GpuRows(course::Lesson& lesson, const Problem& problem, HostResults& results)
    : lesson_(lesson), problem_(problem), results_(results), inputs_(lesson.add_setup("the image to the GPU", [this] {
    d_input_ = course::DeviceBuffer<float>(problem_.image.size(), "the image");
    d_output_ = course::DeviceBuffer<float>(problem_.image.size(), "the result");
    d_input_.copy_from_host(problem_.image.pixels);
    CUDA_CHECK(cudaDeviceSynchronize());  // a pageable copy may still be in flight when it returns
  })) {
  const double pixels = static_cast<double>(problem.image.size());
  lesson.add_device_copy_ceiling(2 * sizeof(float) * pixels);
  lesson.add_fma_ceiling(course::Precision::fp32);  // the large-K direct rows (and the sweep's)
  // The product kernel's own traffic (two complex numbers read, one written per element), copied:
  // the ceiling of a row that moves more bytes than the image's read and write.
  const double product_bytes = 3.0 * sizeof(cufftComplex) *
                               static_cast<double>(linear_padding(problem.image.height, problem.image.width,
                                                                  problem.filter.size).complex_count());
  lesson.add_ceiling(Target::gpu, [this, product_bytes] {
    course::Ceiling copy = course::measure_device_copy(static_cast<std::size_t>(product_bytes),
                                                       lesson_.options().gpu_repeat(), lesson_.options().flush_l2);
    copy.name = "d2d_copy_product";
    copy.description += " (the product kernel's bytes)";
    return copy;
  });
  // The FFT ceiling: the fastest R2C + C2R pair among the candidate sizes, which is also the size
  // every FFT method then uses.
  lesson.add_ceiling(Target::gpu, [this, pixels] {
    const Image& image = problem_.image;
    const gpu::PaddingChoice choice = gpu::choose_padding(image.height, image.width, problem_.filter.size, lesson_.stream(), 5);
    chosen_ = choice.shape;
    const double ms = gpu::time_fft_pair(chosen_, lesson_.stream(), lesson_.options().reps);
    return course::Ceiling{"cufft_pair",
                           "one cuFFT R2C + C2R pair at " + chosen_.text() + ", the fastest of the sizes " + choice.measured,
                           pixels / (ms * 1e6), "Gpixel/s"};
  });
}

GpuConvolver& GpuRows::make(const course::KernelEntry<Launcher>& kernel) {
  const GpuProblem gpu_problem{problem_.image.width, problem_.image.height, &problem_.filter, &d_input_, &d_output_,
                               &chosen_, true};
  methods_.push_back(kernel.launch(gpu_problem));
  return *methods_.back();
}

course::Variant GpuRows::method_row(const course::KernelEntry<Launcher>& kernel) {
  GpuConvolver& method = make(kernel);
  course::Variant v{.name = "GPU " + std::string(kernel.name), .target = Target::gpu,
                    .checks = device_checks(d_output_, results_.gpu, problem_), .note = std::string(kernel.summary)};
  set_throughput(v, method, static_cast<double>(problem_.image.size()));
  v.skip = method.unsupported();
  if (kernel.traits.expected_to_fail && v.skip.empty()) v.skip = naive_skip(problem_);
  v.setup = {inputs_, lesson_.add_setup("", [&method, this] {  // the row's own step: the method's plans and buffers
                method.setup(lesson_.stream());
                ready_.insert(&method);
              })};
  v.run = [&method](cudaStream_t stream) { method.run(stream); };
  v.note_after_run = [&method] { return method.note(); };
  return v;
}

// The product step of fft_r2c alone, on random spectra of the smallest fast FFT size:
// memory-bound (reads two complex numbers, writes one), held against the device copy, checked
// against the product in double.
course::Variant GpuRows::product_row() {
  struct Arrays {
    std::vector<float> data, filter, result;
    course::DeviceBuffer<cufftComplex> d_data, d_filter;
    float scale = 1;
  };
  const std::size_t count =
      linear_padding(problem_.image.height, problem_.image.width, problem_.filter.size).complex_count();
  auto& arrays = lesson_.add_setup("", [this, count] {
    Arrays a;
    a.data.resize(2 * count);
    a.filter.resize(2 * count);
    a.result.resize(2 * count);
    course::fill_normal(a.data, lesson_.options().seed + 1);
    course::fill_normal(a.filter, lesson_.options().seed + 2);
    a.scale = 1.0f / static_cast<float>(count);
    a.d_data = course::DeviceBuffer<cufftComplex>(count, "product row: data");
    a.d_filter = course::DeviceBuffer<cufftComplex>(count, "product row: filter spectrum");
    a.d_filter.copy_from_host({reinterpret_cast<const cufftComplex*>(a.filter.data()), count});
    CUDA_CHECK(cudaDeviceSynchronize());  // a pageable copy may still be in flight when it returns
    return a;
  });
  course::Check check;
  check.poison = [&arrays] {  // in place: fresh input, so an element the kernel skips keeps a wrong value
    arrays->d_data.copy_from_host({reinterpret_cast<const cufftComplex*>(arrays->data.data()), arrays->d_data.size()});
  };
  check.verify = [&arrays] {
    Arrays& a = arrays.get();
    a.d_data.copy_to_host({reinterpret_cast<cufftComplex*>(a.result.data()), a.d_data.size()});
    std::vector<double> expected(a.data.size());
    double largest = 0;
    for (std::size_t k = 0; k < a.data.size(); k += 2) {
      const double ar = a.data[k], ai = a.data[k + 1], br = a.filter[k], bi = a.filter[k + 1];
      expected[k] = (ar * br - ai * bi) * a.scale;
      expected[k + 1] = (ar * bi + ai * br) * a.scale;
      largest = std::max(largest, std::hypot(ar, ai) * std::hypot(br, bi) * a.scale);
    }
    // Each component: two products, a sum and a scaling in float: within 4 u of |a| |b| scale.
    return course::verify(std::span<const float>(a.result), std::span<const double>(expected),
                          course::Tolerance::relative(0, 4 * 0x1.0p-24 * largest));
  };
  return {.name = "GPU multiply-and-scale kernel alone (fft_r2c's product)", .target = Target::gpu,
          .unit = course::units::bandwidth(), .work = 3.0 * sizeof(cufftComplex) * static_cast<double>(count),
          .ceiling = "d2d_copy_product", .setup = {arrays},
          .run = [&arrays](cudaStream_t stream) {
            detail::enqueue_multiply_and_scale(arrays->d_data.data(), arrays->d_filter.data(), arrays->d_data.size(),
                                               arrays->scale, stream);
          },
          .check = check,
          .note = std::to_string(count) + " complex elements: reads 2 and writes 1 per element"};
}

// Copy the image in, the headline method, copy the result out: what a caller with the image in
// host memory waits for (pageable memory, host clock).
course::Variant GpuRows::end_to_end_row() {
  const course::KernelEntry<Launcher>& headline = course::headline_kernel(kernels());
  GpuConvolver& method = make(headline);
  course::Check check = course::check_host<float>(results_.gpu, course::reference_of(problem_.reference), problem_.tolerance);
  check.poison = [this] {
    course::poison(std::span<float>(results_.gpu));
    d_output_.poison();  // so a method that wrote nothing cannot pass with an earlier row's result
  };
  course::Variant v{.name = "GPU end-to-end: copy in, " + std::string(headline.name) + ", copy out",
                    .target = Target::gpu, .role = Role::gpu_end_to_end, .unit = pixel_rate(),
                    .work = static_cast<double>(problem_.image.size()),
                    .setup = {inputs_, lesson_.add_setup("", [&method, this] { method.setup(lesson_.stream()); })},
                    .run = [&method, this](cudaStream_t stream) {
                      d_input_.copy_from_host_async(problem_.image.pixels, stream);
                      method.run(stream);
                      d_output_.copy_to_host_async(results_.gpu, stream);  // the harness synchronizes before reading
                    },
                    .check = check, .timing = course::Timing::host};
  v.skip = method.unsupported();
  return v;
}

void GpuRows::add(const std::vector<std::string>& selected) {
  lesson_.add_kernels(kernels(), selected, [this](const course::KernelEntry<Launcher>& kernel, course::Precision) {
    course::Variant v = method_row(kernel);
    by_kernel_[&kernel] = methods_.back().get();
    return v;
  });
  lesson_.add(product_row());
  lesson_.add(end_to_end_row());
}

std::vector<NamedResult> GpuRows::pictures() {
  std::vector<NamedResult> named;
  if (!lesson_.has_gpu()) return named;
  const cudaStream_t stream = lesson_.stream();
  // Each method's last output, run once more now (rows share one output buffer).
  auto rerun = [&](const course::KernelEntry<Launcher>& kernel, std::vector<float>& into) {
    const auto found = by_kernel_.find(&kernel);
    if (found == by_kernel_.end() || !ready_.contains(found->second)) return false;  // not selected, or skipped
    found->second->run(stream);
    CUDA_CHECK(cudaStreamSynchronize(stream));
    d_output_.copy_to_host(into);
    return true;
  };
  for (const auto& kernel : kernels()) {
    if (kernel.traits.headline && rerun(kernel, results_.gpu)) {
      named.push_back({"gpu", results_.gpu, {}, std::string(kernel.name)});
    }
    if (kernel.traits.expected_to_fail && naive_skip(problem_).empty()) {
      naive_gpu_.resize(problem_.image.size());
      if (rerun(kernel, naive_gpu_)) named.push_back({"gpu_naive", naive_gpu_, {}, std::string(kernel.name)});
    }
  }
  return named;
}

// ---- The crossover sweep --------------------------------------------------------------------

namespace {

// What one sweep value needs, replaced at the next value (so only one value's plans and
// buffers exist at a time); held by the sweep's points, so released before the lesson's stream.
struct SweepState {
  std::optional<Problem> problem;
  std::vector<float> cpu_direct, cpu_fftw, gpu;
  std::optional<FftwConvolver> fftw;
  course::DeviceBuffer<float> d_input, d_output;
  std::vector<std::unique_ptr<GpuConvolver>> methods;
};

}  // namespace

course::Sweep filter_size_sweep(course::Lesson& lesson, const Image& image, FftwPlanner planner,
                                const std::vector<std::string>& selected, bool box) {
  const auto chosen = course::select_kernels(kernels(), selected);  // what --kernel selected (every one by default)
  std::vector<std::int64_t> values;
  for (const int k : {3, 5, 7, 9, 11, 15, 19, 23, 27, 31, 39, 47, 55, 63}) {
    if (k <= std::min(image.width, image.height)) values.push_back(k);
  }
  auto state = std::make_shared<SweepState>();
  auto points = [&lesson, &image, planner, state, box, chosen](std::int64_t k) {
    SweepState& s = *state;
    s.methods.clear();
    s.fftw.reset();
    s.problem.emplace(make_problem(image, box ? box_filter(static_cast<int>(k)) : gaussian_filter(static_cast<int>(k))));
    const Problem& p = *s.problem;
    const double pixels = static_cast<double>(image.size());
    const int threads = lesson.options().cpu_threads();
    const std::string all = threads_text(threads);
    s.cpu_direct.resize(image.size());
    s.cpu_fftw.resize(image.size());
    s.gpu.resize(image.size());
    std::vector<course::Variant> variants;
    variants.push_back({.name = "CPU direct, " + all, .unit = pixel_rate(), .work = pixels,
                        .run = [&s, threads](cudaStream_t) {
                          convolve_direct(s.problem->image, s.problem->filter, s.cpu_direct, threads);
                        },
                        .checks = host_checks(s.cpu_direct, p), .repeat = slow_cpu(pixels * k * k / threads)});
    variants.push_back({.name = "CPU FFTW, " + all, .unit = pixel_rate(), .work = pixels,
                        .setup = {lesson.add_setup("", [&s, threads, planner] {
                          s.fftw.emplace(s.problem->image, s.problem->filter, threads, planner);
                        })},
                        .run = [&s](cudaStream_t) { s.fftw->run(s.cpu_fftw); },
                        .checks = host_checks(s.cpu_fftw, p)});
    if (lesson.has_gpu() && s.d_input.size() != image.size()) {
      s.d_input = course::DeviceBuffer<float>(image.size(), "sweep: the image");
      s.d_output = course::DeviceBuffer<float>(image.size(), "sweep: the result");
      s.d_input.copy_from_host(image.pixels);
      CUDA_CHECK(cudaDeviceSynchronize());  // a pageable copy may still be in flight when it returns
    }
    for (const auto* entry : chosen) {
      const auto& kernel = *entry;
      if (kernel.traits.expected_to_fail) continue;  // the crossover compares methods that are right
      if (kernel.traits.on_request) continue;        // an exercise's method, not a step of the lesson
      s.methods.push_back(kernel.launch({image.width, image.height, &p.filter, &s.d_input, &s.d_output, nullptr, true}));
      GpuConvolver& method = *s.methods.back();
      course::Variant v{.name = "GPU " + std::string(kernel.name), .target = Target::gpu,
                        .setup = {lesson.add_setup("", [&method, &lesson] { method.setup(lesson.stream()); })},
                        .run = [&method](cudaStream_t stream) { method.run(stream); },
                        .checks = device_checks(s.d_output, s.gpu, p), .skip = method.unsupported()};
      set_throughput(v, method, pixels);
      v.ceiling = v.ceiling == "cufft_pair" ? "" : v.ceiling;  // the FFT pair was measured at the table's K
      variants.push_back(std::move(v));
    }
    return variants;
  };
  // The sweep needs the CPU, or with --skip-cpu the GPU: each point says why if it cannot run.
  const Target target = lesson.options().skip_cpu ? Target::gpu : Target::cpu;
  return {.name = "filter-size", .axis = "K", .values = values, .points = points, .target = target,
          .title = box ? "Box K x K filters: direct, FFT and the summed-area table"
                       : "Gaussian K x K filters: direct against FFT"};
}

// ---- Pictures -------------------------------------------------------------------------------

void prepare_output_folder(const std::string& folder) {
  if (folder.empty()) return;
  namespace fs = std::filesystem;
  std::error_code error;
  if (fs::exists(folder, error) && !fs::is_directory(folder, error)) {
    throw course::UsageError("--out-dir " + folder + ": exists and is not a folder");
  }
  fs::create_directories(folder, error);
  if (error) throw course::UsageError("--out-dir " + folder + ": cannot create the folder (" + error.message() + ")");
}

nlohmann::json write_pictures(const std::string& folder, const Problem& problem, std::vector<NamedResult> gpu_results) {
  const Image& image = problem.image;
  std::vector<float> cpu(image.size()), naive(image.size());
  FftwConvolver fftw(image, problem.filter, 1, FftwPlanner::estimate);
  fftw.run(cpu);
  std::vector<NamedResult> results{{"cpu", cpu, {}, "FFTW"}};
  if (naive_skip(problem).empty()) {
    convolve_naive_c2c_fftw(image, problem.filter, naive);
    results.push_back({"naive", naive, {}, "FFTW"});
  }
  std::string gpu_method;
  for (NamedResult& result : gpu_results) {
    if (result.name == "gpu") {
      gpu_method = result.against_name;
      result.against = cpu;  // |GPU - CPU|
      result.against_name = "cpu";
    } else {
      result.against_name.clear();  // against the reference
    }
    results.push_back(result);
  }
  const ImageFiles files = write_result_images(folder, image, problem.reference, results);
  nlohmann::json list = nlohmann::json::array();
  for (const ImageFile& file : files.images) {
    list.push_back({{"name", file.name}, {"file", file.file}, {"low", file.low}, {"high", file.high}, {"against", file.against}});
  }
  return {{"folder", files.folder}, {"width", image.width}, {"height", image.height}, {"gpu_method", gpu_method},
          {"files", list}};
}

}  // namespace fft_convolve
