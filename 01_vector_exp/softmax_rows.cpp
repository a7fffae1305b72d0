// Lesson 01, part two in the program: the rows of --op sum, --op max and --op softmax
// (softmax_rows.hpp says what they are). Read main.cpp first: this file declares rows the same
// way, on other data.
#include "softmax_rows.hpp"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <memory>
#include <set>

#include "course/check.hpp"
#include "course/format.hpp"
#include "course/random.hpp"

namespace vector_exp {

namespace {

using course::Role;
using course::Target;

// What every row of the part refers to, alive until the end.
struct PartData {
  std::vector<float> x, y;
  std::vector<float> result = {0.0f};  // a reduction's one value, on the host
  SumReference reference;               // exact sum, sum |x|, max
  double expected = 0;                  // the exact sum or max the rows are checked against
  course::ReferenceBlock softmax;       // y's reference, in long double
  float x_min = 0;
  double bytes = 0;                     // per row, unless the row says otherwise
  LaunchConfig launch;
  course::DeviceBuffer<float> d_x, d_y, d_result, d_partials, d_scalars;
  course::DeviceBuffer<unsigned> d_counter;
  course::DeviceBuffer<unsigned char> d_temp;  // CUB's temporary storage
  course::SetupStep* inputs = nullptr;  // the step every GPU row names: the device arrays, x copied in
  std::size_t temp_bytes = 0;
  ReduceWorkspace work() const { return {d_partials.data(), d_counter.data(), d_scalars.data()}; }
};

// The error bound of a sum whose order has this depth; a max is exact in any order.
course::Tolerance reduction_tolerance(const PartData& d, Reduction op, double depth) {
  if (op == Reduction::max) return course::Tolerance::exact();
  const double bound = sum_error_bound(depth, static_cast<double>(d.reference.sum_abs));
  return bound > 0 ? course::Tolerance::relative(0, bound) : course::Tolerance::exact();
}

std::string bound_note(const PartData& d, Reduction op, double depth) {
  if (op == Reduction::max) return "exact in any order";
  char text[160];
  std::snprintf(text, sizeof text, "order of depth %.0f: error <= gamma(%.0f) sum|x| = %.3g", depth, depth,
                sum_error_bound(depth, static_cast<double>(d.reference.sum_abs)));
  return text;
}

// A reduction's one value (on the device, or on the host) against the exact one, within the
// tolerance known once the row has run (a kernel's depth depends on the grid it chose).
course::Check value_check(PartData& d, bool on_device, std::function<course::Tolerance()> tolerance) {
  return {[&d, on_device] {
            if (on_device) {
              d.d_result.poison();
            } else {
              course::poison(std::span<float>(d.result));
            }
          },
          [&d, on_device, tolerance] {
            if (on_device) d.d_result.copy_to_host(d.result);
            const double expected = d.expected;
            const course::ReferenceBlock reference = [expected](std::size_t, std::size_t, double* out) { out[0] = expected; };
            return course::verify(std::span<const float>(d.result), reference, tolerance());
          }};
}

// y against softmax's reference, within the tolerance of the order's depth (known after the run).
course::Check softmax_check(PartData& d, bool on_device, std::function<double()> depth) {
  return {[&d, on_device] {
            if (on_device) {
              d.d_y.poison();
            } else {
              course::poison(std::span<float>(d.y));
            }
          },
          [&d, on_device, depth] {
            if (on_device) d.d_y.copy_to_host(d.y);
            const course::Tolerance tolerance =
                course::Tolerance::relative(softmax_tolerance(depth(), d.x_min, d.reference.max));
            return course::verify(std::span<const float>(d.y), d.softmax, tolerance);
          }};
}

// The libraries' summation order is their own: assume no chain longer than one thread's share
// of a grid of 128 threads per SM, plus 64 (CUB's grids are larger, so this is conservative).
double library_depth(std::size_t n) {
  int device = 0, sms = 1;
  if (cudaGetDevice(&device) == cudaSuccess) (void)cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
  return std::ceil(static_cast<double>(n) / (std::max(sms, 1) * 128.0)) + 64;
}

std::string threads_name(const course::Lesson& lesson) { return std::to_string(lesson.options().cpu_threads()) + " threads"; }

// ---- --op sum, --op max ------------------------------------------------------------------------

void add_reduce_cpu_rows(course::Lesson& lesson, PartData& d, Reduction op) {
  const std::size_t n = d.x.size();
  auto row = [&](std::string name, Role role, float (*compute)(std::span<const float>), std::function<double()> depth) {
    lesson.add({.name = std::move(name), .role = role, .work = d.bytes, .ceiling = "host_copy",
                .run = [&d, compute](cudaStream_t) { d.result[0] = compute(d.x); },
                .check = value_check(d, false, [&d, op, depth] { return reduction_tolerance(d, op, depth()); }),
                .note = bound_note(d, op, depth())});
  };
  lesson.add_host_copy_ceiling(2 * d.bytes);
  if (op == Reduction::sum) {
    row("CPU s += x[i], 1 thread (teaching)", Role::detail, sum_naive, [n] { return static_cast<double>(n) - 1; });
    row("CPU pairwise, 16 lanes, 1 thread", Role::cpu_serial, sum_pairwise_simd, [n] { return pairwise_depth(n); });
    row("CPU pairwise, 16 lanes, " + threads_name(lesson), Role::cpu_parallel, sum_pairwise_parallel,
        [n] { return pairwise_parallel_depth(n); });
  } else {
    row("CPU m = std::max(m, x[i]), 1 thread (teaching)", Role::detail, max_naive, [] { return 0.0; });
    row("CPU max, omp simd, 1 thread", Role::cpu_serial, max_simd, [] { return 0.0; });
    row("CPU max, omp simd, " + threads_name(lesson), Role::cpu_parallel, max_parallel, [] { return 0.0; });
  }
}

void add_reduce_gpu_rows(course::Lesson& lesson, PartData& d, Reduction op, const std::vector<std::string>& selected) {
  const std::size_t n = d.x.size();
  auto& first_launch = lesson.add_setup("first launch of a reduction kernel (loads its code)", [&d, op, n, &lesson] {
    (void)launch_reduce_vectorized(d.d_x.data(), n, d.d_result.data(), op, d.work(), d.launch, lesson.stream());
    CUDA_CHECK(cudaStreamSynchronize(lesson.stream()));
  });
  // [docs:reduce_rows]
  lesson.add_kernels(reduce_kernels(), selected, [&](const auto& kernel, course::Precision) {
    auto shape = std::make_shared<ReduceShape>();
    return course::Variant{
        .name = "GPU " + std::string(kernel.name), .target = Target::gpu, .work = d.bytes, .ceiling = "d2d_copy",
        .setup = {*d.inputs, first_launch},
        .run = [&d, op, n, launcher = kernel.launch, shape](cudaStream_t s) {
          LaunchConfig config = d.launch;
          if (shape->launch.blocks > 0) config.grid_size = static_cast<int>(shape->launch.blocks);
          *shape = launcher(d.d_x.data(), n, d.d_result.data(), op, d.work(), config, s);
        },
        .check = value_check(d, true, [&d, op, shape] { return reduction_tolerance(d, op, shape->depth); }),
        .note_after_run = [&d, op, shape] { return shape->launch.describe() + "; " + bound_note(d, op, shape->depth); }};
  });
  // [docs:end reduce_rows]
  const std::string name = op == Reduction::sum ? "Sum" : "Max";
  lesson.add({.name = "GPU library: cub::DeviceReduce::" + name, .target = Target::gpu, .role = Role::gpu_library,
              .work = d.bytes, .ceiling = "d2d_copy",
              .setup = {*d.inputs, lesson.add_setup("", [&d, op, n] {  // how much temporary storage, then allocate it
                          d.temp_bytes = cub_reduce_temp_bytes(n, op);
                          d.d_temp = course::DeviceBuffer<unsigned char>(d.temp_bytes, "CUB's temporary storage");
                        })},
              .run = [&d, op, n](cudaStream_t s) {
                cub_reduce(d.d_x.data(), n, d.d_result.data(), op, d.d_temp.data(), d.temp_bytes, s);
              },
              .check = value_check(d, true, [&d, op, n] { return reduction_tolerance(d, op, library_depth(n)); }),
              .note = "temporary storage sized and allocated in its setup (untimed)"});
  lesson.add({.name = "GPU library: thrust::reduce (returns to the host)", .target = Target::gpu, .work = d.bytes,
              .ceiling = "d2d_copy", .setup = {*d.inputs},
              .run = [&d, op, n](cudaStream_t s) { d.result[0] = thrust_reduce(d.d_x.data(), n, op, s); },
              .check = value_check(d, false, [&d, op, n] { return reduction_tolerance(d, op, library_depth(n)); })});
}

// After the table: the atomic step's result changes from run to run; by how much.
void report_atomic_spread(course::Lesson& lesson, PartData& d, Reduction op, const std::vector<std::string>& selected) {
  const auto chosen = course::select_kernels(reduce_kernels(), selected);
  const bool atomic = std::any_of(chosen.begin(), chosen.end(), [](const auto* k) { return k->name == "reduce_atomic"; });
  if (!lesson.has_gpu() || !atomic || op != Reduction::sum) return;
  std::set<float> seen;
  float low = std::numeric_limits<float>::infinity(), high = -low;
  constexpr int kRuns = 5;
  for (int run = 0; run < kRuns; ++run) {
    (void)launch_reduce_atomic(d.d_x.data(), d.x.size(), d.d_result.data(), op, d.work(), d.launch, lesson.stream());
    CUDA_CHECK(cudaStreamSynchronize(lesson.stream()));
    d.d_result.copy_to_host(d.result);
    seen.insert(d.result[0]), low = std::min(low, d.result[0]), high = std::max(high, d.result[0]);
  }
  const double ulp = std::nextafter(std::max(std::fabs(low), std::fabs(high)), INFINITY) - std::max(std::fabs(low), std::fabs(high));
  std::printf("\nreduce_atomic, %d launches on the same x: %zu different sums, from %.9g to %.9g (%.0f ulp apart; exact: %.9g)\n",
              kRuns, seen.size(), static_cast<double>(low), static_cast<double>(high), (high - low) / ulp, d.expected);
  lesson.record("atomic_spread", {{"launches", kRuns}, {"distinct", seen.size()},
                                 {"min", low}, {"max", high}, {"ulp_apart", (high - low) / ulp}});
}

// ---- --op softmax ------------------------------------------------------------------------------

void add_softmax_cpu_rows(course::Lesson& lesson, PartData& d) {
  const std::size_t n = d.x.size();
  auto row = [&](std::string name, Role role, void (*compute)(std::span<const float>, std::span<float>), double depth) {
    lesson.add({.name = std::move(name), .role = role, .work = d.bytes, .ceiling = "host_copy",
                .run = [&d, compute](cudaStream_t) { compute(d.x, d.y); },
                .check = softmax_check(d, false, [depth] { return depth; })});
  };
  lesson.add_host_copy_ceiling(2 * 4.0 * static_cast<double>(n));
  row("CPU softmax, three loops of std::exp, 1 thread (teaching)", Role::detail, softmax_naive, static_cast<double>(n));
  row("CPU softmax, libmvec expf + pairwise, 1 thread", Role::cpu_serial, softmax_simd, pairwise_depth(n) + 16);
  row("CPU softmax, libmvec expf + pairwise, " + threads_name(lesson), Role::cpu_parallel, softmax_parallel,
      pairwise_parallel_depth(n) + 16);
}

void add_softmax_gpu_rows(course::Lesson& lesson, PartData& d, const std::vector<std::string>& selected) {
  const std::size_t n = d.x.size();
  const double elements = static_cast<double>(n);
  auto& first_launch = lesson.add_setup("first launch of a softmax kernel (loads its code)", [&d, n, &lesson] {
    (void)launch_softmax_online(d.d_x.data(), n, d.d_y.data(), d.work(), d.launch, lesson.stream());
    CUDA_CHECK(cudaStreamSynchronize(lesson.stream()));
  });
  lesson.add_kernels(softmax_kernels(), selected, [&](const auto& kernel, course::Precision) {
    auto shape = std::make_shared<ReduceShape>();
    return course::Variant{
        .name = "GPU " + std::string(kernel.name), .target = Target::gpu,
        .work = softmax_bytes_per_element(kernel.name) * elements, .ceiling = "d2d_copy",
        .setup = {*d.inputs, first_launch},
        .run = [&d, n, launcher = kernel.launch, shape](cudaStream_t s) {
          LaunchConfig config = d.launch;
          if (shape->launch.blocks > 0) config.grid_size = static_cast<int>(shape->launch.blocks);
          *shape = launcher(d.d_x.data(), n, d.d_y.data(), d.work(), config, s);
        },
        .check = softmax_check(d, true, [shape] { return shape->depth; }),
        .note_after_run = [shape, bytes = softmax_bytes_per_element(kernel.name)] {
          return shape->launch.describe() + "; counted as " + std::to_string(bytes) + " bytes per element";
        }};
  });
  lesson.add({.name = "GPU library: softmax from cub::DeviceReduce + DeviceTransform", .target = Target::gpu,
              .role = Role::gpu_library, .work = 16 * elements, .ceiling = "d2d_copy",
              .setup = {*d.inputs, lesson.add_setup("", [&d, n] {  // how much temporary storage, then allocate it
                          d.temp_bytes = cub_softmax_temp_bytes(n);
                          d.d_temp = course::DeviceBuffer<unsigned char>(d.temp_bytes, "CUB's temporary storage");
                        })},
              .run = [&d, n](cudaStream_t s) {
                cub_softmax(d.d_x.data(), n, d.d_y.data(), d.d_scalars.data(), d.d_temp.data(), d.temp_bytes, s);
              },
              .check = softmax_check(d, true, [n] { return library_depth(n); }),
              .note = "Max, TransformReduce, Transform: x read three times, counted as 16 bytes per element"});
}

// After the table: why softmax subtracts the max, on the CPU (float exp overflows past 88.7).
// [docs:overflow_demo]
void show_why_subtract_the_max(course::Lesson& lesson) {
  const float x[3] = {89.0f, 0.0f, -1.0f};
  const float big = std::exp(x[0]);  // 4.5e38 does not fit in a float (max 3.4e38): inf
  const float plain_sum = big + std::exp(x[1]) + std::exp(x[2]);
  std::vector<float> shifted(3);
  softmax_naive(std::span<const float>(x, 3), shifted);
  std::printf("\nWhy subtract the max: x = {89, 0, -1}; expf(89) = %g in float, so exp(x_i) / sum = {%g, %g, %g};\n"
              "  with m = 89 subtracted first: {%.7g, %.7g, %.7g}\n",
              static_cast<double>(big), static_cast<double>(big / plain_sum),
              static_cast<double>(std::exp(x[1]) / plain_sum), static_cast<double>(std::exp(x[2]) / plain_sum),
              static_cast<double>(shifted[0]), static_cast<double>(shifted[1]), static_cast<double>(shifted[2]));
  lesson.record("overflow_demo", {{"expf_89", std::isinf(big) ? "inf" : "finite"}, {"softmax_shifted", shifted}});
}
// [docs:end overflow_demo]

// After the table: each softmax kernel's time against the CUB softmax's (their bytes differ, so
// the "vs lib" column, which compares rows of equal work, leaves them out).
void report_vs_cub_softmax(course::Lesson& lesson) {
  const course::Report& report = lesson.report();
  const course::Row* library = report.find_role(Role::gpu_library);
  if (!library || !library->time) return;
  nlohmann::json ratios = nlohmann::json::object();
  for (const course::Row& row : report.rows()) {
    if (row.target != Target::gpu || &row == library || !row.time || row.variant.rfind("GPU softmax_", 0) != 0) continue;
    const double ratio = library->time->median_ms / row.time->median_ms;
    std::printf("%s: %.2fx the CUB softmax's speed (median %.4f ms against %.4f ms)\n", row.variant.c_str(), ratio,
                row.time->median_ms, library->time->median_ms);
    ratios[row.variant] = ratio;
  }
  if (!ratios.empty()) lesson.record("vs_cub_softmax", ratios);
}

}  // namespace

void add_op_and_kernel_options(course::Lesson& lesson, std::vector<std::string>& selected, std::string& op) {
  std::vector<std::string> names = course::kernel_names(kernels());
  for (const std::string& name : course::kernel_names(reduce_kernels())) names.push_back(name);
  for (const std::string& name : course::kernel_names(softmax_kernels())) names.push_back(name);
  lesson.add_kernel_option(selected, names);
  lesson.append_help(course::kernel_help(kernels()));
  lesson.append_help("With --op sum or --op max:\n" + course::kernel_help(reduce_kernels()));
  lesson.append_help("With --op softmax:\n" + course::kernel_help(softmax_kernels()));
  lesson.cli()
      .add_option("--op", op, "what to compute: exp (the lesson's core, y = exp(x)), sum, max or softmax (part two)")
      ->check(CLI::IsMember({"exp", "sum", "max", "softmax"}))
      ->capture_default_str();
}

int run_reduction_part(course::Lesson& lesson, const std::string& op, const std::vector<std::string>& selected,
                       const LaunchConfig& launch) {
  const bool softmax = op == "softmax";
  const Reduction reduction = op == "max" ? Reduction::max : Reduction::sum;
  const std::size_t n = static_cast<std::size_t>(lesson.options().size);
  lesson.set_title(softmax ? "y = softmax(x) over " + course::format_count(n) + " floats"
                           : std::string(op) + " of " + course::format_count(n) + " floats");
  const std::size_t device_bytes = (softmax ? 2 : 1) * n * sizeof(float);
  lesson.require_device_memory(device_bytes, softmax ? "x and y" : "x");
  course::require_host_memory(device_bytes, softmax ? "x and y on the host" : "x on the host");
  PartData d;
  d.launch = launch;
  if (!softmax && lesson.cli().count("--block") == 0) d.launch.block_size = kReductionBlock;
  d.x.resize(n);
  if (softmax) d.y.resize(n);
  course::fill_normal(d.x, lesson.options().seed);  // the same x as --op exp
  d.reference = sum_reference(d.x);
  d.x_min = *std::min_element(d.x.begin(), d.x.end());
  d.expected = reduction == Reduction::sum ? static_cast<double>(d.reference.sum) : static_cast<double>(d.reference.max);
  if (softmax) d.softmax = softmax_reference(d.x, d.reference);
  d.bytes = 4.0 * static_cast<double>(n);  // a reduction reads x once (softmax rows say their own)
  if (softmax) {
    d.bytes = 12.0 * static_cast<double>(n);
    add_softmax_cpu_rows(lesson, d);
  } else {
    add_reduce_cpu_rows(lesson, d, reduction);
  }
  d.inputs = &lesson.add_setup(softmax ? "x and y on the GPU, x copied in" : "x on the GPU, copied in", [&d, n, softmax] {
    d.d_x = course::DeviceBuffer<float>(n, "x");
    d.d_x.copy_from_host(d.x);
    if (softmax) d.d_y = course::DeviceBuffer<float>(n, "y");
    d.d_result = course::DeviceBuffer<float>(1, "the result");
    d.d_partials = course::DeviceBuffer<float>(2 * kMaxPartials, "the blocks' partial results");
    d.d_scalars = course::DeviceBuffer<float>(2, "softmax's m and S");
    d.d_counter = course::DeviceBuffer<unsigned>(1, "the finished-blocks counter");
    CUDA_CHECK(cudaMemset(d.d_counter.data(), 0, sizeof(unsigned)));
  });
  // The copy moving 8 bytes per element (4 read, 4 written): its GB/s is what the memory gives.
  lesson.add_device_copy_ceiling(8.0 * static_cast<double>(n));
  if (softmax) {
    add_softmax_gpu_rows(lesson, d, selected);
  } else {
    add_reduce_gpu_rows(lesson, d, reduction, selected);
  }
  lesson.run_variants();
  lesson.record("op", op);
  if (softmax) {
    report_vs_cub_softmax(lesson);
    show_why_subtract_the_max(lesson);
  } else {
    report_atomic_spread(lesson, d, reduction, selected);
  }
  lesson.record("launch", {{"block", d.launch.block_size}, {"grid", d.launch.grid_size}, {"ilp", d.launch.ilp}});
  return lesson.finish();
}

}  // namespace vector_exp
