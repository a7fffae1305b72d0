// 01_vector_exp: y = exp(x) for a vector of floats, on the CPU and on the GPU.
//
// Usage: 01_vector_exp [-l N] [--kernel NAME ...] [--block T] [--grid B] [--ilp K] [--tile F] [--show K] [shared flags: --help]
//   01_vector_exp                        10,000,000 elements (the default), every kernel
//   01_vector_exp -l 67108864            2^26 elements: 512 MiB of traffic, far beyond the L2 cache
//   01_vector_exp --kernel grid_stride   one kernel of the progression (kernels/registry.inc)
//   01_vector_exp --op softmax           part two: sum, max or softmax instead (softmax_rows.cpp)
// Beside the kernels, the same exp through Thrust and CUB (library.cu): the "vs lib" column.
// The harness (course/harness.hpp) verifies, times and reports every row declared here; the
// copies, end to end and what follows the table are in vector_exp_rows.cpp.
#include <memory>
#include <string>
#include <vector>

#include "course/check.hpp"
#include "course/format.hpp"
#include "course/harness.hpp"
#include "course/main.hpp"
#include "course/random.hpp"
#include "vector_exp.hpp"
#include "softmax_rows.hpp"
#include "vector_exp_rows.hpp"

namespace {

using course::Role;
using course::Target;

using Data = vector_exp::RowData;  // x, y, their reference and GPU copies, --block/--grid/--ilp/--tile

// The scalar loops and the SIMD loop without software prefetch are teaching rows; the SIMD rows
// with it (glibc's vector expf, cache lines requested ahead) are what the GPU's speedups are quoted
// against, all held against a host copy of the same traffic. glibc: expf < 1 ulp, libmvec 4 ulp.
void add_cpu_rows(course::Lesson& lesson, Data& d) {
  using vector_exp::Prefetch;
  const std::string threads = std::to_string(lesson.options().cpu_threads()) + " threads";
  auto row = [&](std::string name, Role role, double ulp, auto compute, std::string note = "") {
    lesson.add({.name = std::move(name), .role = role, .work = d.bytes, .ceiling = "host_copy",
                .run = [&d, compute](cudaStream_t) { compute(std::span<const float>(d.x), std::span<float>(d.y)); },
                .check = d.host_check(ulp), .note = std::move(note)});
  };
  lesson.add_host_copy_ceiling(d.bytes);
  row("CPU std::exp, 1 thread, scalar (teaching)", Role::detail, 1, vector_exp::exp_serial);
  row("CPU std::exp, " + threads + ", scalar (teaching)", Role::detail, 1, vector_exp::exp_parallel);
  row("CPU libmvec expf, 1 thread, no prefetch (teaching)", Role::detail, 4,
      [](auto x, auto y) { vector_exp::exp_simd_serial(x, y, Prefetch::hardware_only); },
      std::string(vector_exp::simd_width_name()) +
          " (the widest this CPU has); the + prefetch rows also request each array's cache lines 2 KiB ahead");
  row("CPU libmvec expf + prefetch, 1 thread", Role::cpu_serial, 4, [](auto x, auto y) { vector_exp::exp_simd_serial(x, y); });
  row("CPU libmvec expf + prefetch, " + threads, Role::cpu_parallel, 4,
      [](auto x, auto y) { vector_exp::exp_simd_parallel(x, y); });
}

// One row per selected kernel, held to the accuracy its registry line promises. The first launch
// also loads the kernels' code onto the GPU: a setup step, timed apart. The verified run picks
// the grid (an occupancy query); the timed runs reuse it, so no query sits between the events.
void add_kernel_rows(course::Lesson& lesson, Data& d, const std::vector<std::string>& selected) {
  auto& first_launch = lesson.add_setup(vector_exp::kFirstLaunchStep, [&] {
    vector_exp::launch_one_per_element(d.d_x.data(), d.d_y.data(), d.x.size(), d.launch, lesson.stream());
    CUDA_CHECK(cudaStreamSynchronize(lesson.stream()));
  });
  // [docs:kernel_rows]
  const double largest = vector_exp::max_abs(d.x);
  lesson.add_kernels(vector_exp::kernels(), selected, [&](const auto& kernel, course::Precision) {
    const course::Tolerance promise = course::Tolerance::ulps(vector_exp::promised_ulp(kernel.traits, largest));
    auto shape = std::make_shared<course::LaunchShape>();
    return course::Variant{.name = "GPU " + std::string(kernel.name), .target = Target::gpu, .work = d.bytes,
                           .ceiling = "d2d_copy", .setup = {*d.inputs, first_launch},
                           .run = [&d, launcher = kernel.launch, shape](cudaStream_t s) {
                             vector_exp::LaunchConfig config = d.launch;
                             if (shape->blocks > 0) config.grid_size = static_cast<int>(shape->blocks);
                             *shape = launcher(d.d_x.data(), d.d_y.data(), d.x.size(), config, s);
                           },
                           .check = course::check_device<float>(d.d_y, d.y, d.reference, promise),
                           .note_after_run = [shape] { return shape->describe(); }};
  });
  // [docs:end kernel_rows]
}

// The same work through the libraries a C++ programmer would call instead (library.cu), held
// against the same copy and the same 2 ulp; the "vs lib" column is each kernel over Thrust's row.
void add_library_rows(course::Lesson& lesson, Data& d) {
  const course::Tolerance expf_ulp = course::Tolerance::ulps(vector_exp::kDefaultUlp);
  auto row = [&](std::string name, Role role, void (*call)(const float*, float*, std::size_t, cudaStream_t)) {
    lesson.add({.name = std::move(name), .target = Target::gpu, .role = role, .work = d.bytes, .ceiling = "d2d_copy",
                .setup = {*d.inputs},
                .run = [&d, call](cudaStream_t s) { call(d.d_x.data(), d.d_y.data(), d.x.size(), s); },
                .check = course::check_device<float>(d.d_y, d.y, d.reference, expf_ulp)});
  };
  row("GPU library: thrust::transform, expf", Role::gpu_library, vector_exp::thrust_exp);
  row("GPU library: cub::DeviceTransform, expf", Role::detail, vector_exp::cub_exp);
}

int run(int argc, char** argv) {
  course::Lesson lesson("01_vector_exp", "y = exp(x) for a vector of floats: CPU (1 thread, all cores) against GPU",
                        {"-l,--length", "number of elements", 10'000'000, std::int64_t{1} << 36});
  Data d;
  std::vector<std::string> selected;
  int show = 6;
  std::string op = "exp";
  vector_exp::add_op_and_kernel_options(lesson, selected, op);  // --op, and --kernel for every part
  vector_exp::add_launch_options(lesson.cli(), d.launch, show);
  const course::CommonOptions& options = lesson.parse(argc, argv);
  if (op != "exp") return vector_exp::run_reduction_part(lesson, op, selected, d.launch);  // part two
  const std::size_t n = static_cast<std::size_t>(options.size);
  lesson.set_title("y = exp(x) over " + course::format_count(n) + " floats");
  // Before the host allocates gigabytes it would not need: do x and y fit in the GPU?
  lesson.require_device_memory(2 * n * sizeof(float), "x and y (2 x " + course::format_bytes(4.0 * n) + ")");
  course::require_host_memory(2 * n * sizeof(float), "x and y on the host");
  d.x.resize(n), d.y.resize(n), d.bytes = 2.0 * sizeof(float) * static_cast<double>(n);
  course::fill_normal(d.x, options.seed);  // mean 0, standard deviation 1
  d.reference = vector_exp::exp_reference(d.x);
  add_cpu_rows(lesson, d);
  d.inputs = &lesson.add_setup("x and y on the GPU, x copied in", [&] {  // the first step of every GPU row
    d.d_x = course::DeviceBuffer<float>(n, "x"), d.d_y = course::DeviceBuffer<float>(n, "y");
    d.d_x.copy_from_host(d.x);
  });
  lesson.add_device_copy_ceiling(d.bytes, /*also_warm_l2=*/options.flush_l2);
  add_kernel_rows(lesson, d, selected);
  add_library_rows(lesson, d);
  vector_exp::add_transfer_rows(lesson, d);  // L2 left warm, the copies, end to end

  lesson.run_variants();
  vector_exp::report_after_table(lesson, d, show);  // the first values, start-up times, launch in the JSON
  return lesson.finish();
}

}  // namespace

int main(int argc, char** argv) { return course::run_lesson(argc, argv, run); }
