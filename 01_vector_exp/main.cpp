// 01_vector_exp: y = exp(x) for a vector of floats, on the CPU and on the GPU.
//
// Usage: 01_vector_exp [-l N] [--block T] [--grid B] [--ilp K] [--show K] [shared flags: --help]
//   01_vector_exp                 10,000,000 elements (the default)
//   01_vector_exp -l 67108864     2^26 elements: 512 MiB of traffic, far beyond the L2 cache
//   01_vector_exp --no-flush-l2   keep the L2 cache warm between repetitions
//   01_vector_exp --ilp 1         one load in flight per thread: the classic grid-stride loop
//
// Flow: options -> find the GPU and check the run fits -> random input -> CPU versions (each
// verified, then timed) -> GPU kernels (each verified, then timed with events) -> end-to-end
// with copies -> the first values side by side -> report table (and JSON with --json).
#include <cmath>
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
#include "course/format.hpp"
#include "course/main.hpp"
#include "course/random.hpp"
#include "course/report.hpp"
#include "course/stream.hpp"
#include "course/timing.hpp"
#include "vector_exp.hpp"

namespace {

using course::Role;
using course::Target;
using vector_exp::Kernel;

constexpr std::int64_t kDefaultLength = 10'000'000;
constexpr std::int64_t kMaxLength = std::int64_t{1} << 36;

struct LessonOptions {
  vector_exp::LaunchConfig launch;
  int show = 6;
};

// The GPU rows of the table, in order; listed as skipped when there is no GPU.
const std::string kExpfRow = "GPU expf kernel";
const std::string kFastRow = "GPU __expf kernel";
const std::string kFloat4Row = "GPU expf float4 kernel (exercise 1)";
const std::string kWarmRow = "GPU expf kernel, L2 left warm";
const std::string kCopyInRow = "GPU copy x to device (pageable)";
const std::string kCopyOutRow = "GPU copy y to host (pageable)";
const std::string kEndToEndRow = "GPU expf end-to-end: copy in, kernel, copy out";

struct GpuKernelRow {
  Kernel kernel;
  const std::string& name;
  Role role;
};

std::vector<float> head_of(const std::vector<float>& values, int count) {
  return {values.begin(), values.begin() + std::min<std::size_t>(values.size(), static_cast<std::size_t>(count))};
}

void run_cpu(const course::CommonOptions& options, const std::vector<float>& x, const course::ReferenceBlock& reference,
             double bytes, course::Report& report) {
  std::vector<float> y(x.size());
  struct Version {
    std::string name;
    Role role;
    void (*function)(std::span<const float>, std::span<float>);
  };
  const Version versions[] = {
      {"CPU std::exp, 1 thread", Role::cpu_serial, vector_exp::exp_serial},
      {"CPU std::exp, " + std::to_string(options.cpu_threads()) + " threads (OpenMP)", Role::cpu_parallel,
       vector_exp::exp_parallel}};
  for (const Version& version : versions) {
    course::Row row{version.name, Target::cpu, version.role};
    course::poison(y);  // NaN everywhere: an element the function skips fails verification
    version.function(x, y);
    row.check = course::verify(y, reference, course::Tolerance::ulps(1));  // glibc's expf: < 1 ulp
    row.time = course::time_host(options.cpu_repeat(), [&] { version.function(x, y); });
    row.work = bytes;
    report.add(std::move(row));
  }
}

struct FirstValues {
  std::vector<float> expf, fast;
};

FirstValues run_gpu(const course::CommonOptions& options, const LessonOptions& lesson, const std::vector<float>& x,
                    const course::ReferenceBlock& reference, double bytes, course::Report& report) {
  const std::size_t n = x.size();
  const course::RepeatOptions repeat = options.gpu_repeat();
  FirstValues first;

  // The ceiling: a device-to-device copy of the same traffic, measured now, same L2 policy.
  report.add_ceiling(course::measure_device_copy(static_cast<std::size_t>(bytes), repeat, options.flush_l2));
  if (options.flush_l2) {
    course::Ceiling warm = course::measure_device_copy(static_cast<std::size_t>(bytes), repeat, false);
    warm.name = "d2d_copy_warm_l2";
    report.add_ceiling(warm);
  }

  course::DeviceBuffer<float> d_x(n, "x"), d_y(n, "y");
  std::vector<float> y(n);
  course::Stream stream;
  std::optional<course::L2Flusher> flusher;
  if (options.flush_l2) flusher.emplace();
  const course::L2Flusher* flush = flusher ? &*flusher : nullptr;
  d_x.copy_from_host(x);

  // The very first launch also loads the kernel's code onto the GPU: time it apart.
  course::HostTimer first_launch;
  vector_exp::launch_exp(Kernel::expf_grid_stride, d_x.data(), d_y.data(), n, lesson.launch, stream.get());
  stream.synchronize();
  report.extra()["first_launch_ms"] = first_launch.elapsed_ms();

  const GpuKernelRow kernels[] = {{Kernel::expf_grid_stride, kExpfRow, Role::gpu_kernel},
                                  {Kernel::fast_expf, kFastRow, Role::detail},
                                  {Kernel::expf_float4, kFloat4Row, Role::detail}};
  const double largest = vector_exp::max_abs(x);
  vector_exp::LaunchConfig expf_config = lesson.launch;  // with the grid resolved, below
  for (const GpuKernelRow& entry : kernels) {
    course::Row row{entry.name, Target::gpu, entry.role};
    d_y.poison(stream.get());  // NaN everywhere: an element the kernel skips fails verification
    // The launch returns the grid it chose; the timed launches reuse it, so no host-side work
    // (the occupancy query) sits between the start event and the kernel.
    vector_exp::LaunchConfig config = lesson.launch;
    config.grid_size = vector_exp::launch_exp(entry.kernel, d_x.data(), d_y.data(), n, config, stream.get());
    stream.synchronize();
    d_y.copy_to_host(y);
    row.check = course::verify(y, reference, course::Tolerance::ulps(vector_exp::promised_ulp(entry.kernel, largest)));
    if (entry.kernel == Kernel::expf_grid_stride) {
      first.expf = head_of(y, 64);
      expf_config = config;
    }
    if (entry.kernel == Kernel::fast_expf) first.fast = head_of(y, 64);

    row.time = course::time_device(repeat, stream.get(), [&] {
      vector_exp::launch_exp(entry.kernel, d_x.data(), d_y.data(), n, config, stream.get());
    }, flush);
    row.work = bytes;
    row.ceiling = "d2d_copy";
    row.note = std::to_string(config.grid_size) + " blocks of " + std::to_string(lesson.launch.block_size) + " threads" +
               (entry.kernel == Kernel::expf_float4 ? "" : ", ilp " + std::to_string(lesson.launch.ilp));
    report.add(std::move(row));
  }

  if (options.flush_l2) {
    // The same kernel without the flush: the part of x and y still in L2 is served from there.
    course::Row row{kWarmRow, Target::gpu, Role::detail};
    row.time = course::time_device(repeat, stream.get(), [&] {
      vector_exp::launch_exp(Kernel::expf_grid_stride, d_x.data(), d_y.data(), n, expf_config, stream.get());
    });
    row.work = bytes;
    row.ceiling = "d2d_copy_warm_l2";
    row.note = "same kernel and output as '" + kExpfRow + "', L2 not flushed between runs";
    report.add(std::move(row));
  }

  // End to end: what a program that starts and ends with host data waits for. The copies use
  // ordinary (pageable) host memory; lesson 03 shows pinned memory and overlapping copies.
  const course::RepeatOptions copy_repeat{1, std::min(options.reps, 10)};
  course::Row copy_in{kCopyInRow, Target::gpu, Role::detail};
  copy_in.time = course::time_host(copy_repeat, [&] { d_x.copy_from_host(x); });
  copy_in.work = bytes / 2;
  report.add(std::move(copy_in));
  course::Row copy_out{kCopyOutRow, Target::gpu, Role::detail};
  copy_out.time = course::time_host(copy_repeat, [&] { d_y.copy_to_host(y); });
  copy_out.work = bytes / 2;
  report.add(std::move(copy_out));

  auto end_to_end = [&] {
    d_x.copy_from_host_async(x, stream.get());
    vector_exp::launch_exp(Kernel::expf_grid_stride, d_x.data(), d_y.data(), n, expf_config, stream.get());
    d_y.copy_to_host_async(y, stream.get());
    stream.synchronize();  // the host must not read y before the copy has finished
  };
  course::Row row{kEndToEndRow, Target::gpu, Role::gpu_end_to_end};
  course::poison(y);
  d_y.poison();
  end_to_end();
  row.check = course::verify(y, reference, course::Tolerance::ulps(2));
  row.time = course::time_host(copy_repeat, end_to_end);
  row.work = bytes;
  report.add(std::move(row));
  return first;
}

// The classic demo's check by eye: the same inputs through std::exp and both GPU kernels,
// with each one's error against exp computed in double.
void print_first_values(const std::vector<float>& x, const FirstValues& gpu, int count) {
  const std::size_t shown = std::min<std::size_t>(x.size(), static_cast<std::size_t>(count));
  if (shown == 0) return;
  std::printf("\nFirst values (9 significant digits; ulp = error against exp in double precision)\n");
  std::printf("  %4s %14s %15s %5s %15s %5s %15s %5s %20s\n", "i", "x", "CPU std::exp", "ulp", "GPU expf", "ulp",
              "GPU __expf", "ulp", "exp in double");
  for (std::size_t i = 0; i < shown; ++i) {
    const double exact = std::exp(static_cast<double>(x[i]));
    const float cpu = std::exp(x[i]);
    std::printf("  %4zu %14.9g %15.9g %5.2f", i, x[i], cpu, course::ulp_error(cpu, exact));
    for (const std::vector<float>* values : {&gpu.expf, &gpu.fast}) {
      if (i < values->size()) {
        std::printf(" %15.9g %5.2f", (*values)[i], course::ulp_error((*values)[i], exact));
      } else {
        std::printf(" %15s %5s", "-", "");
      }
    }
    std::printf(" %20.15g\n", exact);
  }
}

int run(int argc, char** argv) {
  course::LessonCli cli("01_vector_exp", "y = exp(x) for a vector of floats: CPU (1 thread, all cores) against GPU",
                        {"-l,--length", "number of elements", kDefaultLength, kMaxLength});
  LessonOptions lesson;
  cli.app().add_option("--block", lesson.launch.block_size, "threads per block")
      ->check(CLI::Range(1, 1024))->capture_default_str();
  cli.app().add_option("--grid", lesson.launch.grid_size, "blocks in the grid (0 = 4 times as many as fit on the GPU at once)")
      ->check(CLI::Range(0, 1 << 30))->capture_default_str();
  cli.app().add_option("--ilp", lesson.launch.ilp, "elements each thread loads before computing: 1, 2, 4 or 8")
      ->check(CLI::IsMember({1, 2, 4, 8}))->capture_default_str();
  cli.app().add_option("--show", lesson.show, "first values to print side by side")
      ->check(CLI::Range(0, 64))->capture_default_str();
  const course::CommonOptions& options = cli.parse(argc, argv);

  const std::size_t n = static_cast<std::size_t>(options.size);
  const double bytes = 2.0 * sizeof(float) * static_cast<double>(n);  // x read once, y written once
  course::Report report(cli, "y = exp(x) over " + course::format_count(n) + " floats", {"GB/s", 1e9, "bytes"});

  // The GPU first: whether there is one, and whether x and y fit in it, before the host
  // allocates gigabytes it would not need.
  const course::GpuStatus gpu = course::open_gpu(options);
  report.set_gpu(gpu);
  if (gpu.usable) {
    course::require_device_memory(2 * n * sizeof(float), "x and y (2 x " + course::format_bytes(4.0 * n) + ")");
  }
  const std::size_t host_arrays = 1 + (options.skip_cpu ? 0 : 1) + (gpu.usable ? 1 : 0);
  course::require_host_memory(host_arrays * n * sizeof(float),
                              std::to_string(host_arrays) + " host arrays of " + course::format_bytes(4.0 * n));

  std::vector<float> x(n);
  course::fill_normal(x, options.seed);  // mean 0, standard deviation 1
  const course::ReferenceBlock reference = vector_exp::exp_reference(x);

  if (!options.skip_cpu) run_cpu(options, x, reference, bytes, report);

  FirstValues first;
  if (gpu.usable) {
    first = run_gpu(options, lesson, x, reference, bytes, report);
    report.extra()["context_creation_ms"] = gpu.context_creation_ms;
  } else {
    const std::string reason = gpu.reason;
    report.add_skipped(kExpfRow, Target::gpu, Role::gpu_kernel, reason);
    report.add_skipped(kFastRow, Target::gpu, Role::detail, reason);
    report.add_skipped(kFloat4Row, Target::gpu, Role::detail, reason);
    report.add_skipped(kEndToEndRow, Target::gpu, Role::gpu_end_to_end, reason);
  }
  report.extra()["launch"] = {{"block", lesson.launch.block_size}, {"grid", lesson.launch.grid_size},
                              {"ilp", lesson.launch.ilp}};

  print_first_values(x, first, lesson.show);
  if (gpu.usable) {
    std::printf("\nCUDA start-up (driver and context): %.1f ms; first launch of the expf kernel: %.3f ms\n",
                gpu.context_creation_ms, report.extra()["first_launch_ms"].get<double>());
  }
  report.print(std::cout);
  if (!options.json_path.empty()) report.write_json(options.json_path);
  return report.exit_code();
}

}  // namespace

int main(int argc, char** argv) { return course::run_lesson(argc, argv, run); }
