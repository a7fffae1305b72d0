// 01_vector_exp: y = exp(x) for a vector of floats, on the CPU and on the GPU.
//
// Usage: 01_vector_exp [-l N] [--kernel NAME ...] [--block T] [--grid B] [--ilp K] [--show K] [shared flags: --help]
//   01_vector_exp                        10,000,000 elements (the default), every kernel
//   01_vector_exp -l 67108864            2^26 elements: 512 MiB of traffic, far beyond the L2 cache
//   01_vector_exp --kernel grid_stride   one kernel of the progression (kernels/registry.inc)
//   01_vector_exp --no-flush-l2          keep the L2 cache warm between repetitions
//
// The lesson declares its data and variants; the harness (course/harness.hpp) verifies, times
// and reports each one: CPU versions, every selected kernel, the headline kernel with L2 left
// warm, the copies, and end to end.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "course/check.hpp"
#include "course/format.hpp"
#include "course/harness.hpp"
#include "course/main.hpp"
#include "course/random.hpp"
#include "course/timing.hpp"
#include "vector_exp.hpp"

namespace {

using course::Role;
using course::Target;

constexpr std::int64_t kDefaultLength = 10'000'000;
constexpr std::int64_t kMaxLength = std::int64_t{1} << 36;
constexpr std::string_view kHeadline = "one_pass";  // the kernel the summary quotes: the fastest step

// The classic demo's check by eye: the same inputs through std::exp and the GPU's expf and
// __expf, each one's error against exp computed in double.
void print_first_values(const std::vector<float>& x, const std::vector<float>& expf_values,
                        const std::vector<float>& fast_values, int count) {
  const std::size_t shown = std::min<std::size_t>(x.size(), static_cast<std::size_t>(count));
  if (shown == 0 || expf_values.empty()) return;
  std::printf("\nFirst values (9 significant digits; ulp = error against exp in double precision)\n");
  std::printf("  %4s %14s %15s %5s %15s %5s %15s %5s %20s\n", "i", "x", "CPU std::exp", "ulp", "GPU expf", "ulp",
              "GPU __expf", "ulp", "exp in double");
  for (std::size_t i = 0; i < shown; ++i) {
    const double exact = std::exp(static_cast<double>(x[i]));
    const float cpu = std::exp(x[i]);
    std::printf("  %4zu %14.9g %15.9g %5.2f %15.9g %5.2f %15.9g %5.2f %20.15g\n", i, x[i], cpu,
                course::ulp_error(cpu, exact), expf_values[i], course::ulp_error(expf_values[i], exact), fast_values[i],
                course::ulp_error(fast_values[i], exact), exact);
  }
}

int run(int argc, char** argv) {
  course::Lesson lesson("01_vector_exp", "y = exp(x) for a vector of floats: CPU (1 thread, all cores) against GPU",
                        {"-l,--length", "number of elements", kDefaultLength, kMaxLength});
  vector_exp::LaunchConfig launch;
  std::vector<std::string> kernel_names;
  int show = 6;
  lesson.add_kernel_option(kernel_names, course::kernel_names(vector_exp::kernels()));
  lesson.cli().add_option("--block", launch.block_size, "threads per block")->check(CLI::Range(1, 1024))->capture_default_str();
  lesson.cli().add_option("--grid", launch.grid_size, "blocks in the grid (0 = each kernel's own choice)")
      ->check(CLI::Range(0, 1 << 30))->capture_default_str();
  lesson.cli().add_option("--ilp", launch.ilp, "elements each thread loads before computing: 1, 2, 4 or 8")
      ->check(CLI::IsMember({1, 2, 4, 8}))->capture_default_str();
  lesson.cli().add_option("--show", show, "first values to print side by side")->check(CLI::Range(0, 64))->capture_default_str();
  const course::CommonOptions& options = lesson.parse(argc, argv);
  const auto selected = course::select_kernels(vector_exp::kernels(), kernel_names);

  const std::size_t n = static_cast<std::size_t>(options.size);
  const double bytes = 2.0 * sizeof(float) * static_cast<double>(n);  // x read once, y written once
  lesson.set_title("y = exp(x) over " + course::format_count(n) + " floats");
  // Before the host allocates gigabytes it would not need: do x and y fit in the GPU?
  lesson.require_device_memory(2 * n * sizeof(float), "x and y (2 x " + course::format_bytes(4.0 * n) + ")");
  course::require_host_memory(2 * n * sizeof(float), "x and y on the host");

  std::vector<float> x(n), y(n);
  course::fill_normal(x, options.seed);  // mean 0, standard deviation 1
  const course::ReferenceBlock reference = vector_exp::exp_reference(x);
  const double largest = vector_exp::max_abs(x);
  auto host_check = [&](double ulp) { return course::check_host<float>(y, reference, course::Tolerance::ulps(ulp)); };

  // ---- CPU ----
  // The scalar loops are teaching rows (what the compiler makes of std::exp by default), and so
  // is the SIMD loop without software prefetch; the SIMD rows with it (glibc's vector expf, the
  // next cache lines requested ahead) are what the GPU's speedups are quoted against. All are
  // held against a host copy of the same traffic, measured now.
  using vector_exp::Prefetch;
  const std::string threads = std::to_string(options.cpu_threads()) + " threads";
  const std::string simd = vector_exp::simd_width_name();
  lesson.add_host_copy_ceiling(bytes);
  lesson.add({.name = "CPU std::exp, 1 thread, scalar (teaching)", .work = bytes, .ceiling = "host_copy",
              .run = [&](cudaStream_t) { vector_exp::exp_serial(x, y); }, .check = host_check(1)});  // glibc: < 1 ulp
  lesson.add({.name = "CPU std::exp, " + threads + ", scalar (teaching)", .work = bytes, .ceiling = "host_copy",
              .run = [&](cudaStream_t) { vector_exp::exp_parallel(x, y); }, .check = host_check(1)});
  // glibc promises libmvec's functions to within 4 ulp.
  lesson.add({.name = "CPU libmvec expf, 1 thread, no prefetch (teaching)", .work = bytes, .ceiling = "host_copy",
              .run = [&](cudaStream_t) { vector_exp::exp_simd_serial(x, y, Prefetch::hardware_only); },
              .check = host_check(4),
              .note = simd + " (the widest this CPU has); the + prefetch rows also request each array's "
                             "cache lines 2 KiB ahead"});
  lesson.add({.name = "CPU libmvec expf + prefetch, 1 thread", .role = Role::cpu_serial, .work = bytes,
              .ceiling = "host_copy", .run = [&](cudaStream_t) { vector_exp::exp_simd_serial(x, y); },
              .check = host_check(4)});
  lesson.add({.name = "CPU libmvec expf + prefetch, " + threads, .role = Role::cpu_parallel, .work = bytes,
              .ceiling = "host_copy", .run = [&](cudaStream_t) { vector_exp::exp_simd_parallel(x, y); },
              .check = host_check(4)});

  // ---- GPU ----
  course::DeviceBuffer<float> d_x, d_y;  // allocated only when a GPU is usable
  double first_launch_ms = 0;
  lesson.on_gpu([&] {
    d_x = course::DeviceBuffer<float>(n, "x");
    d_y = course::DeviceBuffer<float>(n, "y");
    d_x.copy_from_host(x);
    // The very first launch also loads the kernels' code onto the GPU: time it apart.
    course::HostTimer timer;
    vector_exp::launch_one_per_element(d_x.data(), d_y.data(), n, launch, lesson.stream());
    CUDA_CHECK(cudaStreamSynchronize(lesson.stream()));
    first_launch_ms = timer.elapsed_ms();
  });
  lesson.add_device_copy_ceiling(bytes, /*also_warm_l2=*/options.flush_l2);

  std::vector<float> head_expf, head_fast;  // the first values of two kernels, for the side-by-side
  for (const auto* kernel : selected) {
    const double ulp = vector_exp::promised_ulp(kernel->name, largest);
    course::Check check = course::check_device<float>(d_y, y, reference, course::Tolerance::ulps(ulp));
    std::vector<float>* head = kernel->name == kHeadline ? &head_expf : kernel->name == "fast_expf" ? &head_fast : nullptr;
    if (head) {
      check.verify = [verify = check.verify, head, &y] {
        course::VerifyResult result = verify();
        head->assign(y.begin(), y.begin() + static_cast<std::ptrdiff_t>(std::min<std::size_t>(y.size(), 64)));
        return result;
      };
    }
    // The verified run picks the grid (an occupancy query for the grid-stride steps); the timed
    // runs reuse it, so no host-side query sits between the timing events.
    auto shape = std::make_shared<course::LaunchShape>();
    lesson.add({.name = "GPU " + std::string(kernel->name), .target = Target::gpu,
                .role = kernel->name == kHeadline ? Role::gpu_kernel : Role::detail, .work = bytes,
                .ceiling = "d2d_copy",
                .run = [&, kernel, shape](cudaStream_t s) {
                  vector_exp::LaunchConfig config = launch;
                  if (shape->blocks > 0) config.grid_size = static_cast<int>(shape->blocks);
                  *shape = kernel->launch(d_x.data(), d_y.data(), n, config, s);
                },
                .check = check, .note_after_run = [shape] { return shape->describe(); }});
  }

  const auto& headline = vector_exp::kernel(kHeadline);
  auto run_headline = [&](cudaStream_t s) { headline.launch(d_x.data(), d_y.data(), n, launch, s); };
  if (options.flush_l2) {  // the same kernel without the flush: what is still in L2 is served from there
    lesson.add({.name = "GPU " + std::string(kHeadline) + ", L2 left warm", .target = Target::gpu, .work = bytes,
                .ceiling = "d2d_copy_warm_l2", .run = run_headline, .flush_l2 = false});
  }
  // End to end: what a program that starts and ends with host data waits for. The copies use
  // ordinary (pageable) host memory; lesson 03 shows pinned memory and overlapping copies.
  const course::RepeatOptions copy_repeat{1, std::min(options.reps, 10)};
  lesson.add({.name = "GPU copy x to device (pageable)", .target = Target::gpu, .work = bytes / 2,
              .run = [&](cudaStream_t) { d_x.copy_from_host(x); }, .timing = course::Timing::host,
              .repeat = copy_repeat});
  lesson.add({.name = "GPU copy y to host (pageable)", .target = Target::gpu, .work = bytes / 2,
              .run = [&](cudaStream_t) { d_y.copy_to_host(y); }, .timing = course::Timing::host,
              .repeat = copy_repeat});
  lesson.add({.name = "GPU end-to-end: copy in, " + std::string(kHeadline) + ", copy out", .target = Target::gpu,
              .role = Role::gpu_end_to_end, .work = bytes,
              .run = [&](cudaStream_t s) {
                d_x.copy_from_host_async(x, s);
                run_headline(s);
                d_y.copy_to_host_async(y, s);  // the harness synchronizes before y is read
              },
              .check = host_check(2), .timing = course::Timing::host, .repeat = copy_repeat});

  lesson.run_variants();
  print_first_values(x, head_expf, head_fast, head_fast.empty() ? 0 : show);
  if (lesson.has_gpu()) {
    std::printf("\nCUDA start-up (driver and context): %.1f ms; first launch of a kernel: %.3f ms\n",
                lesson.gpu().context_creation_ms, first_launch_ms);
    lesson.report().extra()["first_launch_ms"] = first_launch_ms;
    lesson.report().extra()["context_creation_ms"] = lesson.gpu().context_creation_ms;
  }
  lesson.report().extra()["launch"] = {{"block", launch.block_size}, {"grid", launch.grid_size}, {"ilp", launch.ilp}};
  return lesson.finish();
}

}  // namespace

int main(int argc, char** argv) { return course::run_lesson(argc, argv, run); }
