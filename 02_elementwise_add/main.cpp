// 02_elementwise_add: c = a + b for vectors of floats, the classic first kernels.
//
// Usage: 02_elementwise_add [-n N] [--block T] [--grid B] [--ilp K] [--sweep-launch] [shared flags: --help]
//   02_elementwise_add                  1,048,576 elements (the default)
//   02_elementwise_add -n 67108864      2^26 elements: 768 MiB of traffic, far beyond the L2 cache
//   02_elementwise_add --block 1024     threads per block of the indexed, grid-stride and float4 kernels
//   02_elementwise_add --sweep-launch   add_grid_stride at every block size and grid size, with occupancy
//
// Flow: options -> find the GPU and check the run fits -> random a and b -> CPU versions (each
// verified, then timed) -> part 1: multiply_them, the PyCUDA demo -> part 2: the block-size
// limit -> the copy ceiling -> the add kernels (each verified, then timed with events) ->
// end-to-end with copies -> the launch sweep (--sweep-launch) -> report table (and JSON with --json).
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "course/ceilings.hpp"
#include "course/check.hpp"
#include "course/cli.hpp"
#include "course/device.hpp"
#include "course/device_buffer.hpp"
#include "course/errors.hpp"
#include "course/format.hpp"
#include "course/launch.hpp"
#include "course/main.hpp"
#include "course/random.hpp"
#include "course/report.hpp"
#include "course/stream.hpp"
#include "course/timing.hpp"
#include "elementwise_add.hpp"

namespace {

using course::Role;
using course::Target;
using elementwise_add::Kernel;

constexpr std::int64_t kDefaultLength = 1 << 20;  // 1,048,576
constexpr std::int64_t kMaxLength = std::int64_t{1} << 34;
constexpr int kTooManyThreads = 2048;             // part 2: twice the 1024 every current GPU allows

struct LessonOptions {
  elementwise_add::LaunchConfig launch;
  bool sweep_launch = false;
  bool skip_limit_demo = false;
};

// The GPU rows of the table, in order; listed as skipped when there is no GPU.
const std::string kIndexedRow = "GPU add_indexed (one thread per element)";
const std::string kGridStrideRow = "GPU add_grid_stride";
const std::string kFloat4Row = "GPU add_float4 (16-byte loads and stores)";
const std::string kEndToEndRow = "GPU end-to-end: copy a, b in, add_float4, copy c out";
const std::string kSweepRow = "GPU add_grid_stride, fastest of the launch sweep";
const std::string kPart1Row = "GPU multiply_them, part 1 (400 elements, 1 block)";

struct GpuKernelRow {
  Kernel kernel;
  const std::string& name;
  Role role;
};

void run_cpu(const course::CommonOptions& options, const std::vector<float>& a, const std::vector<float>& b,
             std::vector<float>& c, const course::ReferenceBlock& reference, double bytes, course::Report& report) {
  struct Version {
    std::string name;
    Role role;
    void (*function)(std::span<const float>, std::span<const float>, std::span<float>);
  };
  const Version versions[] = {
      {"CPU a + b, 1 thread", Role::cpu_serial, elementwise_add::add_serial},
      {"CPU a + b, " + std::to_string(options.cpu_threads()) + " threads (OpenMP)", Role::cpu_parallel,
       elementwise_add::add_parallel}};
  for (const Version& version : versions) {
    course::Row row{version.name, Target::cpu, version.role};
    course::poison(c);  // an element the function skips fails verification
    version.function(a, b, c);
    row.check = course::verify(c, reference, course::Tolerance::exact());  // one IEEE add: bit for bit
    row.time = course::time_host(options.cpu_repeat(), [&] { version.function(a, b, c); });
    row.work = bytes;
    report.add(std::move(row));
  }
}

// Part 1, the classic PyCUDA demo: 400 random pairs, one block of 400 threads, checked exactly
// against the same products computed on the CPU.
course::VerifyResult run_part1(std::uint64_t seed, cudaStream_t stream) {
  const std::size_t n = elementwise_add::kMultiplyLength;
  std::vector<float> a(n), b(n), dest(n), expected(n);
  course::fill_normal(a, seed);
  course::fill_normal(b, seed + 1);
  course::DeviceBuffer<float> d_a(n, "part 1: a"), d_b(n, "part 1: b"), d_dest(n, "part 1: dest");
  d_a.copy_from_host(a);
  d_b.copy_from_host(b);
  d_dest.poison(stream);
  elementwise_add::launch_multiply_them(d_dest.data(), d_a.data(), d_b.data(), elementwise_add::kMultiplyLength,
                                        stream);
  CUDA_CHECK(cudaStreamSynchronize(stream));
  d_dest.copy_to_host(dest);
  elementwise_add::multiply_serial(a, b, expected);
  const course::VerifyResult check = course::verify(dest, expected, course::Tolerance::exact());
  std::printf("Part 1, the classic demo: multiply_them, dest[i] = a[i] * b[i] with i = threadIdx.x, 1 block of %d "
              "threads:\n  %s against the CPU's a * b (dest[0] = %.9g = %.9g x %.9g)\n",
              elementwise_add::kMultiplyLength, check.summary().c_str(), dest[0], a[0], b[0]);
  return check;
}

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

void run_gpu(const course::CommonOptions& options, const LessonOptions& lesson, const course::DeviceInfo& device,
                   const std::vector<float>& a, const std::vector<float>& b, std::vector<float>& c,
                   const course::ReferenceBlock& reference, double bytes, course::Report& report) {
  const std::size_t n = a.size();
  const course::RepeatOptions repeat = options.gpu_repeat();
  course::Stream stream;

  std::printf("\n");
  // Part 1 joins the verdict as a check without a timing: 400 elements say nothing about speed.
  report.add_check(kPart1Row, Target::gpu, run_part1(options.seed, stream.get()));
  if (!lesson.skip_limit_demo) report.extra()["part2_block_limit"] = run_part2(device, stream.get());

  // The ceiling: a device-to-device copy of the same traffic (2 reads + 1 write = 12 bytes per
  // element), measured now, with the same L2 policy as the kernels.
  const course::Ceiling ceiling = course::measure_device_copy(static_cast<std::size_t>(bytes), repeat, options.flush_l2);
  report.add_ceiling(ceiling);

  course::DeviceBuffer<float> d_a(n, "a"), d_b(n, "b"), d_c(n, "c");
  std::optional<course::L2Flusher> flusher;
  if (options.flush_l2) flusher.emplace();
  const course::L2Flusher* flush = flusher ? &*flusher : nullptr;
  d_a.copy_from_host(a);
  d_b.copy_from_host(b);

  const GpuKernelRow kernels[] = {{Kernel::add_indexed, kIndexedRow, Role::detail},
                                  {Kernel::add_grid_stride, kGridStrideRow, Role::detail},
                                  {Kernel::add_float4, kFloat4Row, Role::gpu_kernel}};
  elementwise_add::LaunchConfig float4_config = lesson.launch;  // with its grid resolved, below
  for (const GpuKernelRow& entry : kernels) {
    elementwise_add::LaunchConfig config = lesson.launch;
    auto enqueue = [&] {
      return elementwise_add::launch_add(entry.kernel, d_a.data(), d_b.data(), d_c.data(), n, config, stream.get());
    };
    course::Row row{entry.name, Target::gpu, entry.role};
    d_c.poison(stream.get());  // NaN everywhere: an element the kernel skips fails verification
    const elementwise_add::Launch launch = enqueue();
    // The timed launches reuse the grid chosen here, so no host-side work (the occupancy
    // query) sits between the start event and the kernel.
    config.grid_size = launch.blocks;
    if (entry.kernel == Kernel::add_float4) float4_config = config;
    stream.synchronize();
    d_c.copy_to_host(c);
    row.check = course::verify(c, reference, course::Tolerance::exact());
    row.time = course::time_device(repeat, stream.get(), enqueue, flush);
    row.work = bytes;
    row.ceiling = "d2d_copy";
    row.note = launch.describe();
    if (entry.kernel == Kernel::add_float4) {
      row.note += ", " + std::to_string(lesson.launch.ilp) + " float4 of a and of b loaded per thread per trip";
    }
    report.add(std::move(row));
  }

  // End to end: what a program that starts and ends with host data waits for. The copies are
  // issued in order on the stream, from and to ordinary (pageable) host memory, so they are
  // staged through a driver buffer and do not overlap anything; lesson 03 does better.
  auto end_to_end = [&] {
    d_a.copy_from_host_async(a, stream.get());
    d_b.copy_from_host_async(b, stream.get());
    elementwise_add::launch_add(Kernel::add_float4, d_a.data(), d_b.data(), d_c.data(), n, float4_config,
                                stream.get());
    d_c.copy_to_host_async(c, stream.get());
    stream.synchronize();  // the host must not read c before the copy has finished
  };
  course::Row row{kEndToEndRow, Target::gpu, Role::gpu_end_to_end};
  course::poison(c);
  d_c.poison(stream.get());
  end_to_end();
  row.check = course::verify(c, reference, course::Tolerance::exact());
  row.time = course::time_host({1, std::min(options.reps, 10)}, end_to_end);
  row.work = bytes;
  report.add(std::move(row));

  if (lesson.sweep_launch) {
    const std::vector<elementwise_add::SweepConfig> plan = elementwise_add::plan_launch_sweep(
        n, {device.sm_count, device.max_threads_per_sm}, elementwise_add::grid_stride_blocks_per_sm);
    const std::vector<elementwise_add::SweepPoint> points = elementwise_add::run_launch_sweep(
        plan, {d_a, d_b, d_c, c, reference, repeat, stream.get(), flush});
    elementwise_add::print_launch_sweep(std::cout, plan, points, ceiling.value);
    report.extra()["launch_sweep"] = elementwise_add::launch_sweep_json(points);
    if (!points.empty()) report.add(elementwise_add::launch_sweep_row(points, kSweepRow));
  }
}

int run(int argc, char** argv) {
  course::LessonCli cli("02_elementwise_add",
                        "c = a + b for vectors of floats, the first kernels: CPU (1 thread, all cores) against GPU",
                        {"-n,--length", "number of elements", kDefaultLength, kMaxLength});
  LessonOptions lesson;
  cli.app().add_option("--block", lesson.launch.block_size,
                       "threads per block of add_indexed, add_grid_stride and add_float4")
      ->check(CLI::Range(1, 1024))->capture_default_str();
  cli.app().add_option("--grid", lesson.launch.grid_size,
                       "blocks of add_grid_stride and add_float4 (0 = as many as fit on the GPU at once)")
      ->check(CLI::Range(0, std::numeric_limits<int>::max()))->capture_default_str();
  cli.app().add_option("--ilp", lesson.launch.ilp, "float4 groups each thread of add_float4 loads before adding: 1, 2 or 4")
      ->check(CLI::IsMember({1, 2, 4}))->capture_default_str();
  cli.app().add_flag("--sweep-launch", lesson.sweep_launch,
                     "also run add_grid_stride at every block size (32 to 1024) and grid size, with its occupancy");
  cli.app().add_flag("--skip-limit-demo", lesson.skip_limit_demo,
                     "skip part 2, the launch of 2048 threads per block that is refused on purpose "
                     "(compute-sanitizer counts the refusal as an API error)");
  const course::CommonOptions& options = cli.parse(argc, argv);

  const std::size_t n = static_cast<std::size_t>(options.size);
  // add_indexed gives every element its own thread: ceil(n / block) blocks must fit in a grid.
  const std::size_t indexed_blocks = course::blocks_to_cover(n, lesson.launch.block_size);
  if (!options.skip_gpu && indexed_blocks > static_cast<std::size_t>(elementwise_add::kMaxGridBlocks)) {
    throw course::UsageError("--block " + std::to_string(lesson.launch.block_size) + ": add_indexed would need " +
                             course::format_count(indexed_blocks) + " blocks (one thread per element at --length " +
                             std::to_string(n) + "), more than the 2,147,483,647 a grid may have; use a larger --block");
  }
  const double bytes = 3.0 * sizeof(float) * static_cast<double>(n);  // a and b read once, c written once
  course::Report report(cli, "c = a + b over " + course::format_count(n) + " floats", {"GB/s", 1e9, "bytes"});

  // The GPU first: whether there is one, and whether a, b and c fit in it, before the host
  // allocates gigabytes it would not need.
  const course::GpuStatus gpu = course::open_gpu(options);
  report.set_gpu(gpu);
  const std::string array_bytes = course::format_bytes(4.0 * static_cast<double>(n));
  if (gpu.usable) course::require_device_memory(3 * n * sizeof(float), "a, b and c (3 x " + array_bytes + ")");
  course::require_host_memory(3 * n * sizeof(float), "a, b and c on the host (3 x " + array_bytes + ")");

  std::vector<float> a(n), b(n), c(n);
  course::fill_normal(a, options.seed);  // mean 0, standard deviation 1
  course::fill_normal(b, options.seed + 1);
  const course::ReferenceBlock reference = elementwise_add::add_reference(a, b);

  if (!options.skip_cpu) run_cpu(options, a, b, c, reference, bytes, report);

  if (gpu.usable) {
    run_gpu(options, lesson, *gpu.device, a, b, c, reference, bytes, report);
    report.extra()["context_creation_ms"] = gpu.context_creation_ms;
  } else {
    const std::string reason = gpu.reason;
    std::printf("\nParts 1 and 2 (multiply_them, the block-size limit) skipped: %s\n", reason.c_str());
    report.add_skipped(kIndexedRow, Target::gpu, Role::detail, reason);
    report.add_skipped(kGridStrideRow, Target::gpu, Role::detail, reason);
    report.add_skipped(kFloat4Row, Target::gpu, Role::gpu_kernel, reason);
    report.add_skipped(kEndToEndRow, Target::gpu, Role::gpu_end_to_end, reason);
    if (lesson.sweep_launch) report.add_skipped(kSweepRow, Target::gpu, Role::detail, reason);
  }
  report.extra()["launch"] = {{"block", lesson.launch.block_size}, {"grid", lesson.launch.grid_size},
                              {"ilp", lesson.launch.ilp}};

  report.print(std::cout);
  if (!options.json_path.empty()) report.write_json(options.json_path);
  return report.exit_code();
}

}  // namespace

int main(int argc, char** argv) { return course::run_lesson(argc, argv, run); }
