// 02_elementwise_add: c = a + b for vectors of floats, the classic first kernels.
//
// Usage: 02_elementwise_add [-l N] [--kernel NAME ...] [--block T] [--grid B] [--ilp K] [--sweep-launch]
//                           [shared flags: --help]
//   02_elementwise_add                      1,048,576 elements (the default), every kernel
//   02_elementwise_add -l 67108864          2^26 elements: 768 MiB of traffic, far beyond the L2 cache
//   02_elementwise_add --kernel add_float4  one kernel of the progression (kernels/registry.inc)
//   02_elementwise_add --block 1024         threads per block of every kernel
//   02_elementwise_add --sweep-launch       add_grid_stride at every block size and grid size, with occupancy
//
// The lesson declares its data and variants; the harness (course/harness.hpp) verifies, times
// and reports each one: the CPU versions, part 1 (multiply_them, the PyCUDA demo, verified
// only), every selected kernel, and end to end with copies. Then part 2 (the block-size limit)
// and the launch sweep (--sweep-launch), which are demonstrations rather than variants.
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "course/check.hpp"
#include "course/format.hpp"
#include "course/harness.hpp"
#include "course/main.hpp"
#include "course/random.hpp"
#include "elementwise_add.hpp"
#include "launch_sweep.hpp"

namespace {

using course::Role;
using course::Target;

constexpr std::int64_t kDefaultLength = 1 << 20;  // 1,048,576
constexpr std::int64_t kMaxLength = std::int64_t{1} << 34;
constexpr std::string_view kHeadline = "add_one_pass";  // the kernel the summary quotes: the fastest step
constexpr int kTooManyThreads = 2048;                 // part 2: twice the 1024 every current GPU allows
const std::string kSweepRow = "GPU add_grid_stride, fastest of the launch sweep";

// Part 2: add_one_block, indexed by threadIdx.x alone, as one block of 2048 threads. The launch
// is refused; CUDA_CHECK_LAUNCH turns the refusal into a course::ApiError, which is the
// expected outcome here, not a failure of the run.
nlohmann::json run_part2(const course::DeviceInfo& device, cudaStream_t stream) {
  const std::size_t n = kTooManyThreads;
  course::DeviceBuffer<float> d_a(n, "part 2: a"), d_b(n, "part 2: b"), d_c(n, "part 2: c");
  d_a.zero(stream);
  d_b.zero(stream);
  std::printf("Part 2, the block-size limit: add_one_block (i = threadIdx.x) as 1 block of %d threads:\n",
              kTooManyThreads);
  try {
    elementwise_add::launch_add_one_block(d_a.data(), d_b.data(), d_c.data(), n, stream);
    CUDA_CHECK(cudaStreamSynchronize(stream));
    std::printf("  launched: this GPU allows %d threads per block (maxThreadsPerBlock)\n",
                device.max_threads_per_block);
    return {{"threads", kTooManyThreads}, {"refused", false}, {"max_threads_per_block", device.max_threads_per_block}};
  } catch (const course::ApiError& error) {
    if (!elementwise_add::is_block_size_refusal(error)) throw;  // anything else is a real error
    std::printf("  refused, as expected: %s\n  This GPU allows at most %d threads per block (maxThreadsPerBlock): "
                "a kernel indexed by threadIdx.x alone stops there; add_indexed adds blockIdx.x * blockDim.x.\n",
                error.what(), device.max_threads_per_block);
    return {{"threads", kTooManyThreads},
            {"refused", true},
            {"error", error.code_name()},
            {"max_threads_per_block", device.max_threads_per_block}};
  }
}

int run(int argc, char** argv) {
  course::Lesson lesson("02_elementwise_add",
                        "c = a + b for vectors of floats, the first kernels: CPU (1 thread, all cores) against GPU",
                        {"-l,--length", "number of elements", kDefaultLength, kMaxLength});
  elementwise_add::LaunchConfig launch;
  std::vector<std::string> kernel_names;
  bool sweep_launch = false, skip_limit_demo = false;
  lesson.add_kernel_option(kernel_names, course::kernel_names(elementwise_add::kernels()));
  lesson.cli().add_option("--block", launch.block_size, "threads per block of every kernel")
      ->check(CLI::Range(1, 1024))->capture_default_str();
  lesson.cli().add_option("--grid", launch.grid_size,
                          "blocks of add_grid_stride and add_float4 (0 = as many as fit on the GPU at once; add_indexed and add_one_pass cover the array once)")
      ->check(CLI::Range(0, std::numeric_limits<int>::max()))->capture_default_str();
  lesson.cli().add_option("--ilp", launch.ilp, "float4 groups of a and of b each thread of add_float4 and add_one_pass loads before adding: 1, 2 or 4")
      ->check(CLI::IsMember({1, 2, 4}))->capture_default_str();
  lesson.cli().add_flag("--sweep-launch", sweep_launch,
                        "also run add_grid_stride at every block size (32 to 1024) and grid size, with its occupancy");
  lesson.cli().add_flag("--skip-limit-demo", skip_limit_demo,
                        "skip part 2, the launch of 2048 threads per block that is refused on purpose "
                        "(compute-sanitizer counts the refusal as an API error)");
  const course::CommonOptions& options = lesson.parse(argc, argv);
  const auto selected = course::select_kernels(elementwise_add::kernels(), kernel_names);

  const std::size_t n = static_cast<std::size_t>(options.size);
  // add_indexed gives every element its own thread: ceil(n / block) blocks must fit in a grid.
  const std::size_t indexed_blocks = course::blocks_to_cover(n, launch.block_size);
  const bool indexed_selected =
      std::any_of(selected.begin(), selected.end(), [](const auto* kernel) { return kernel->name == "add_indexed"; });
  if (!options.skip_gpu && indexed_selected && indexed_blocks > static_cast<std::size_t>(elementwise_add::kMaxGridBlocks)) {
    throw course::UsageError("--block " + std::to_string(launch.block_size) + ": add_indexed would need " +
                             course::format_count(indexed_blocks) + " blocks (one thread per element at --length " +
                             std::to_string(n) + "), more than the 2,147,483,647 a grid may have; use a larger --block");
  }
  const double bytes = 3.0 * sizeof(float) * static_cast<double>(n);  // a and b read once, c written once
  lesson.set_title("c = a + b over " + course::format_count(n) + " floats");
  // Before the host allocates gigabytes it would not need: do a, b and c fit in the GPU?
  const std::string array_bytes = course::format_bytes(4.0 * static_cast<double>(n));
  lesson.require_device_memory(3 * n * sizeof(float), "a, b and c (3 x " + array_bytes + ")");
  course::require_host_memory(3 * n * sizeof(float), "a, b and c on the host (3 x " + array_bytes + ")");

  std::vector<float> a(n), b(n), c(n);
  course::fill_normal(a, options.seed);  // mean 0, standard deviation 1
  course::fill_normal(b, options.seed + 1);
  const course::ReferenceBlock reference = elementwise_add::add_reference(a, b);
  // One IEEE add per element: every correct version matches the reference bit for bit.
  const course::Tolerance exact = course::Tolerance::exact();

  // ---- CPU: one core and all cores, held against a host copy of the same traffic ----
  // The plain loops are teaching rows; the speedups are quoted against the prefetching ones.
  const std::string threads = std::to_string(options.cpu_threads()) + " threads";
  lesson.add_host_copy_ceiling(bytes);
  lesson.add({.name = "CPU a + b, 1 thread (teaching)", .work = bytes, .ceiling = "host_copy",
              .run = [&](cudaStream_t) { elementwise_add::add_serial(a, b, c); },
              .check = course::check_host<float>(c, reference, exact)});
  lesson.add({.name = "CPU a + b, " + threads + " (OpenMP, teaching)", .work = bytes, .ceiling = "host_copy",
              .run = [&](cudaStream_t) { elementwise_add::add_parallel(a, b, c); },
              .check = course::check_host<float>(c, reference, exact)});
  lesson.add({.name = "CPU a + b + prefetch, 1 thread", .role = Role::cpu_serial, .work = bytes,
              .ceiling = "host_copy", .run = [&](cudaStream_t) { elementwise_add::add_prefetch_serial(a, b, c); },
              .check = course::check_host<float>(c, reference, exact)});
  lesson.add({.name = "CPU a + b + prefetch, " + threads + " (OpenMP)", .role = Role::cpu_parallel, .work = bytes,
              .ceiling = "host_copy", .run = [&](cudaStream_t) { elementwise_add::add_prefetch_parallel(a, b, c); },
              .check = course::check_host<float>(c, reference, exact)});

  // ---- GPU ----
  // Part 1's 400 random pairs and their products on the CPU: the classic demo's check.
  const std::size_t part1_n = elementwise_add::kMultiplyLength;
  std::vector<float> part1_a(part1_n), part1_b(part1_n), part1_dest(part1_n), part1_expected(part1_n);
  course::fill_normal(part1_a, options.seed);
  course::fill_normal(part1_b, options.seed + 1);
  elementwise_add::multiply_serial(part1_a, part1_b, part1_expected);

  course::DeviceBuffer<float> d_a, d_b, d_c, d_part1_a, d_part1_b, d_part1_dest;  // only when a GPU is usable
  lesson.on_gpu([&] {
    d_a = course::DeviceBuffer<float>(n, "a");
    d_b = course::DeviceBuffer<float>(n, "b");
    d_c = course::DeviceBuffer<float>(n, "c");
    d_a.copy_from_host(a);
    d_b.copy_from_host(b);
    d_part1_a = course::DeviceBuffer<float>(part1_n, "part 1: a");
    d_part1_b = course::DeviceBuffer<float>(part1_n, "part 1: b");
    d_part1_dest = course::DeviceBuffer<float>(part1_n, "part 1: dest");
    d_part1_a.copy_from_host(part1_a);
    d_part1_b.copy_from_host(part1_b);
  });
  // The ceiling: a device-to-device copy of the same traffic (2 reads + 1 write = 12 bytes per
  // element), measured in this run, with the same L2 policy as the kernels.
  lesson.add_device_copy_ceiling(bytes);

  // Part 1, the classic PyCUDA demo: one block of 400 threads, checked exactly against the
  // CPU's products. It joins the verdict without a timing: 400 elements say nothing about speed.
  course::Check part1_check = course::check_device<float>(d_part1_dest, part1_dest,
                                                          course::reference_of(std::span<const float>(part1_expected)), exact);
  part1_check.verify = [verify = part1_check.verify, &part1_dest, &part1_a, &part1_b] {
    const course::VerifyResult check = verify();
    std::printf("\nPart 1, the classic demo: multiply_them, dest[i] = a[i] * b[i] with i = threadIdx.x, 1 block of "
                "%d threads:\n  %s against the CPU's a * b (dest[0] = %.9g = %.9g x %.9g)\n",
                elementwise_add::kMultiplyLength, check.summary().c_str(), part1_dest[0], part1_a[0], part1_b[0]);
    return check;
  };
  lesson.add({.name = "GPU multiply_them, part 1 (400 elements, 1 block)", .target = Target::gpu,
              .run = [&](cudaStream_t s) {
                elementwise_add::launch_multiply_them(d_part1_dest.data(), d_part1_a.data(), d_part1_b.data(),
                                                      elementwise_add::kMultiplyLength, s);
              },
              .check = part1_check, .timed = false});

  // The kernels of the progression that --kernel selects. Each one's grid is chosen at the
  // verified launch; the timed launches reuse it, so no host-side work (the occupancy query)
  // sits between the start event and the kernel. The end-to-end row shares the headline's.
  auto headline_config = std::make_shared<elementwise_add::LaunchConfig>(launch);
  for (const auto* kernel : selected) {
    const bool headline = kernel->name == kHeadline;
    auto config = headline ? headline_config : std::make_shared<elementwise_add::LaunchConfig>(launch);
    auto shape = std::make_shared<course::LaunchShape>();
    lesson.add({.name = "GPU " + std::string(kernel->name), .target = Target::gpu,
                .role = headline ? Role::gpu_kernel : Role::detail, .work = bytes, .ceiling = "d2d_copy",
                .run = [&, kernel, config, shape](cudaStream_t s) {
                  *shape = kernel->launch(d_a.data(), d_b.data(), d_c.data(), n, *config, s);
                },
                .check = course::check_device<float>(d_c, c, reference, exact),
                .note_after_run = [config, shape, headline, ilp = launch.ilp] {
                  config->grid_size = static_cast<int>(shape->blocks);
                  return shape->describe() +
                         (headline ? ", " + std::to_string(ilp) + " float4 of a and of b loaded per thread at once" : "");
                }});
  }

  // End to end: what a program that starts and ends with host data waits for. The copies are
  // issued in order on the stream, from and to ordinary (pageable) host memory, so they are
  // staged through a driver buffer and do not overlap anything; lesson 03 does better.
  course::Check end_to_end_check = course::check_host<float>(c, reference, exact);
  end_to_end_check.poison = [poison_host = end_to_end_check.poison, &d_c] {
    poison_host();
    d_c.poison();  // and the device's c, so a kernel that skips an element cannot pass on an old result
  };
  lesson.add({.name = "GPU end-to-end: copy a, b in, " + std::string(kHeadline) + ", copy c out", .target = Target::gpu,
              .role = Role::gpu_end_to_end, .work = bytes,
              .run = [&](cudaStream_t s) {
                d_a.copy_from_host_async(a, s);
                d_b.copy_from_host_async(b, s);
                elementwise_add::kernel(kHeadline).launch(d_a.data(), d_b.data(), d_c.data(), n, *headline_config, s);
                d_c.copy_to_host_async(c, s);  // the harness synchronizes before c is read
              },
              .check = end_to_end_check, .timing = course::Timing::host,
              .repeat = course::RepeatOptions{1, std::min(options.reps, 10)}});

  lesson.run_variants();

  if (lesson.has_gpu()) {
    const course::DeviceInfo& device = *lesson.gpu().device;
    if (!skip_limit_demo) lesson.report().extra()["part2_block_limit"] = run_part2(device, lesson.stream());
    if (sweep_launch) {
      std::optional<course::L2Flusher> flusher;
      if (options.flush_l2) flusher.emplace();
      const auto plan = elementwise_add::plan_launch_sweep(n, {device.sm_count, device.max_threads_per_sm},
                                                           elementwise_add::grid_stride_blocks_per_sm);
      const auto points = elementwise_add::run_launch_sweep(
          plan, {d_a, d_b, d_c, c, reference, options.gpu_repeat(), lesson.stream(), flusher ? &*flusher : nullptr});
      const course::Ceiling* ceiling = lesson.report().find_ceiling("d2d_copy");
      elementwise_add::print_launch_sweep(std::cout, plan, points, ceiling ? ceiling->value : 0);
      lesson.report().extra()["launch_sweep"] = elementwise_add::launch_sweep_json(points);
      if (!points.empty()) lesson.report().add(elementwise_add::launch_sweep_row(points, kSweepRow));
    }
    lesson.report().extra()["context_creation_ms"] = lesson.gpu().context_creation_ms;
  } else {
    std::printf("\nPart 2 (the block-size limit) skipped: %s\n", lesson.gpu().reason.c_str());
    if (sweep_launch) lesson.report().add_skipped(kSweepRow, Target::gpu, Role::detail, lesson.gpu().reason);
  }
  lesson.report().extra()["launch"] = {{"block", launch.block_size}, {"grid", launch.grid_size}, {"ilp", launch.ilp}};
  return lesson.finish();
}

}  // namespace

int main(int argc, char** argv) { return course::run_lesson(argc, argv, run); }
