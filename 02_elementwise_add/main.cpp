// 02_elementwise_add: c = a + b for vectors of floats, the classic first kernels.
//
// Usage: 02_elementwise_add [-l N] [--kernel NAME ...] [--block T] [--grid B] [--ilp K] [--tile F] [--sweep launch]
//                           [shared flags: --help]
//   02_elementwise_add                      1,048,576 elements (the default), every kernel
//   02_elementwise_add -l 67108864          2^26 elements: 768 MiB of traffic, far beyond the L2 cache
//   02_elementwise_add --kernel add_float4  one kernel of the progression (kernels/registry.inc)
//   02_elementwise_add --sweep launch       add_grid_stride at every block size and grid size, with occupancy
// Beside the kernels, the same add through Thrust and CUB (library.cu): the "vs lib" column.
// The harness (course/harness.hpp) verifies, times and reports every row and sweep point declared
// here; part 1 (the PyCUDA demo) and part 2 (the block-size limit) are in demos.cpp, the launch
// flags and the end-to-end row in elementwise_add_rows.cpp.
#include <memory>
#include <string>
#include <vector>

#include "course/format.hpp"
#include "course/harness.hpp"
#include "course/main.hpp"
#include "course/random.hpp"
#include "demos.hpp"
#include "elementwise_add.hpp"
#include "elementwise_add_rows.hpp"
#include "launch_sweep.hpp"

namespace {

using Data = elementwise_add::RowData;  // a, b, c, their reference and GPU copies, the launch flags

// One core and all cores, held against a host copy of the same traffic. The plain loops are
// teaching rows; the speedups are quoted against the prefetching ones.
void add_cpu_rows(course::Lesson& lesson, Data& d) {
  const std::string threads = std::to_string(lesson.options().cpu_threads()) + " threads";
  auto row = [&](std::string name, course::Role role, auto add) {
    lesson.add({.name = std::move(name), .role = role, .work = d.bytes, .ceiling = "host_copy",
                .run = [&d, add](cudaStream_t) { add(d.a, d.b, d.c); }, .check = d.host_check()});
  };
  lesson.add_host_copy_ceiling(d.bytes);
  row("CPU a + b, 1 thread (teaching)", course::Role::detail, elementwise_add::add_serial);
  row("CPU a + b, " + threads + " (OpenMP, teaching)", course::Role::detail, elementwise_add::add_parallel);
  row("CPU a + b + prefetch, 1 thread", course::Role::cpu_serial, elementwise_add::add_prefetch_serial);
  row("CPU a + b + prefetch, " + threads + " (OpenMP)", course::Role::cpu_parallel, elementwise_add::add_prefetch_parallel);
}

// The kernels --kernel selects. Each one's grid is chosen at the verified launch and reused by the
// timed ones, so no occupancy query sits between the events. One IEEE add: exact results.
void add_kernel_rows(course::Lesson& lesson, Data& d, const std::vector<std::string>& selected) {
  lesson.add_kernels(elementwise_add::kernels(), selected, [&](const auto& kernel, course::Precision) {
    const bool headline = kernel.traits.headline;
    auto config = headline ? d.headline : std::make_shared<elementwise_add::LaunchConfig>(d.launch);
    auto shape = std::make_shared<course::LaunchShape>();
    return course::Variant{
        .name = "GPU " + std::string(kernel.name), .target = course::Target::gpu, .work = d.bytes, .ceiling = "d2d_copy",
        .setup = {*d.inputs},
        .run = [&d, go = kernel.launch, config, shape](cudaStream_t s) {
          *shape = go(d.d_a.data(), d.d_b.data(), d.d_c.data(), d.a.size(), *config, s);
        },
        .check = course::check_device<float>(d.d_c, d.c, d.reference, course::Tolerance::exact()),
        .note_after_run = [config, shape, headline] {
          config->grid_size = static_cast<int>(shape->blocks);
          return shape->describe() +
                 (headline ? ", " + std::to_string(config->ilp) + " float4 of a and of b loaded per thread at once" : "");
        }};
  });
}

// The same add through the libraries a C++ programmer would call instead (library.cu), held
// against the same copy, exact like the kernels; the "vs lib" column is each kernel over Thrust's.
void add_library_rows(course::Lesson& lesson, Data& d) {
  auto row = [&](std::string name, course::Role role, auto call) {
    lesson.add({.name = std::move(name), .target = course::Target::gpu, .role = role, .work = d.bytes,
                .ceiling = "d2d_copy", .setup = {*d.inputs},
                .run = [&d, call](cudaStream_t s) { call(d.d_a.data(), d.d_b.data(), d.d_c.data(), d.a.size(), s); },
                .check = course::check_device<float>(d.d_c, d.c, d.reference, course::Tolerance::exact())});
  };
  row("GPU library: thrust::transform, thrust::plus", course::Role::gpu_library, elementwise_add::thrust_add);
  row("GPU library: cub::DeviceTransform, a + b", course::Role::detail, elementwise_add::cub_add);
}

int run(int argc, char** argv) {
  course::Lesson lesson("02_elementwise_add",
                        "c = a + b for vectors of floats, the first kernels: CPU (1 thread, all cores) against GPU",
                        {"-l,--length", "number of elements", 1 << 20, std::int64_t{1} << 34});
  Data d;
  std::vector<std::string> selected;
  bool skip_limit_demo = false;
  lesson.add_kernel_option(selected, elementwise_add::kernels());
  elementwise_add::add_launch_options(lesson.cli(), d.launch);  // --block, --grid, --ilp, --tile
  lesson.declare_sweep("launch", "add_grid_stride at every block size (32 to 1024) and grid size, with its occupancy");
  lesson.cli().add_flag("--skip-limit-demo", skip_limit_demo,
                        "skip part 2, the launch of 2048 threads per block that is refused on purpose "
                        "(compute-sanitizer counts the refusal as an API error)");
  const course::CommonOptions& options = lesson.parse(argc, argv);
  const std::size_t n = static_cast<std::size_t>(options.size);
  if (!options.skip_gpu) elementwise_add::check_grid_limit(n, d.launch.block_size);  // exit 2, before any work
  lesson.set_title("c = a + b over " + course::format_count(n) + " floats");
  // Before the host allocates gigabytes it would not need: do a, b and c fit in the GPU?
  const std::string array_bytes = course::format_bytes(4.0 * static_cast<double>(n));
  lesson.require_device_memory(3 * n * sizeof(float), "a, b and c (3 x " + array_bytes + ")");
  course::require_host_memory(3 * n * sizeof(float), "a, b and c on the host (3 x " + array_bytes + ")");
  d.a.resize(n), d.b.resize(n), d.c.resize(n), d.bytes = 3.0 * sizeof(float) * static_cast<double>(n);
  course::fill_normal(d.a, options.seed);  // mean 0, standard deviation 1
  course::fill_normal(d.b, options.seed + 1);
  d.reference = elementwise_add::add_reference(d.a, d.b);
  *d.headline = d.launch;
  add_cpu_rows(lesson, d);
  d.inputs = &lesson.add_setup("a, b and c on the GPU, a and b copied in", [&] {
    d.d_a = course::DeviceBuffer<float>(n, "a"), d.d_b = course::DeviceBuffer<float>(n, "b");
    d.d_c = course::DeviceBuffer<float>(n, "c");
    d.d_a.copy_from_host(d.a);
    d.d_b.copy_from_host(d.b);
  });
  // The ceiling: a device-to-device copy of the same 12 bytes per element, with the kernels' L2 policy.
  lesson.add_device_copy_ceiling(d.bytes);
  elementwise_add::add_part1(lesson, options.seed);
  add_kernel_rows(lesson, d, selected);
  add_library_rows(lesson, d);
  elementwise_add::add_end_to_end(lesson, d);
  lesson.add_sweep(elementwise_add::launch_sweep(lesson, {*d.inputs, d.d_a, d.d_b, d.d_c, d.c, d.reference}));

  lesson.run_variants();
  if (!skip_limit_demo) elementwise_add::run_part2(lesson);
  if (lesson.has_gpu()) lesson.record("context_creation_ms", lesson.gpu().context_creation_ms);
  lesson.record("launch", {{"block", d.launch.block_size}, {"grid", d.launch.grid_size}, {"ilp", d.launch.ilp}, {"tile", d.launch.tile}});
  return lesson.finish();
}

}  // namespace

int main(int argc, char** argv) { return course::run_lesson(argc, argv, run); }
