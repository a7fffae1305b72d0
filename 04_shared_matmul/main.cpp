// 04_shared_matmul: C = A x B in FP32, from the naive kernel to cuBLAS speed.
//
// Usage: 04_shared_matmul [-n N | --m M --n N --k K] [--kernel NAME ...] [--cpu-naive] [--sweep]
//                         [shared flags: --help]
//   04_shared_matmul                       4096 x 4096 x 4096, every kernel, cuBLAS, the CPU rows
//   04_shared_matmul -n 1600 --kernel tiled_shared    the classic at its classic size
//   04_shared_matmul --m 1025 --n 777 --k 513         any shape: nothing needs to be a multiple of a tile
//   04_shared_matmul --sweep --json sweep.json        GFLOP/s of every kernel from 256 to 8192 (plot_matmul.py)
//
// Flow: options -> the GPU and memory checks -> random A, B -> the double reference (OpenBLAS
// dgemm) -> CPU rows (naive if small enough, blocked OpenMP, OpenBLAS sgemm) -> the ceilings
// (FP32 FMA loop, cuBLAS SGEMM in true FP32) -> every selected kernel: poison C, run, verify,
// time -> end-to-end with copies -> the sweep (--sweep) -> report table (and JSON with --json).
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "course/check.hpp"
#include "course/cli.hpp"
#include "course/cublas_ceiling.hpp"
#include "course/device.hpp"
#include "course/device_buffer.hpp"
#include "course/errors.hpp"
#include "course/format.hpp"
#include "course/main.hpp"
#include "course/random.hpp"
#include "course/report.hpp"
#include "course/stream.hpp"
#include "course/timing.hpp"
#include "matmul.hpp"

namespace {

using course::Role;
using course::Target;

constexpr std::int64_t kDefaultSize = 4096;
constexpr std::int64_t kMaxDimension = 262144;  // 2^18: grids and 32-bit tile indices stay in range
constexpr double kNaiveAutoFlops = 2.2e9;       // the naive row runs by itself up to 1024^3
constexpr std::string_view kHeadline = "cp_async";  // the registry kernel reported as the lesson's GPU kernel
const std::vector<int> kSweepSizes = {256, 512, 1024, 2048, 4096, 8192};

struct Shape {
  int m = 0, n = 0, k = 0;
  std::size_t a_count() const { return static_cast<std::size_t>(m) * static_cast<std::size_t>(k); }
  std::size_t b_count() const { return static_cast<std::size_t>(k) * static_cast<std::size_t>(n); }
  std::size_t c_count() const { return static_cast<std::size_t>(m) * static_cast<std::size_t>(n); }
  double flops() const { return matmul::matmul_flops(m, n, k); }
  std::string text() const { return std::to_string(m) + " x " + std::to_string(n) + " x " + std::to_string(k); }
};

struct LessonOptions {
  std::int64_t m = 0, n = 0, k = 0;  // 0: take --size
  std::vector<std::string> kernels;  // empty or "all": every kernel of the registry
  bool cpu_naive = false;
  bool sweep = false;
};

std::vector<const matmul::KernelInfo*> selected_kernels(const std::vector<std::string>& names) {
  std::vector<const matmul::KernelInfo*> chosen;
  const bool all = names.empty() || std::find(names.begin(), names.end(), "all") != names.end();
  for (const matmul::KernelInfo& kernel : matmul::registry()) {
    if (all || std::find(names.begin(), names.end(), kernel.name) != names.end()) chosen.push_back(&kernel);
  }
  return chosen;
}

std::string kernel_row_name(const matmul::KernelInfo& kernel) { return "GPU " + std::string(kernel.name); }

void run_cpu(const course::CommonOptions& options, const LessonOptions& lesson, const Shape& s,
             const std::vector<float>& a, const std::vector<float>& b, std::vector<float>& c,
             const matmul::Reference& reference, course::Report& report) {
  using Function = void (*)(std::span<const float>, std::span<const float>, std::span<float>, int, int, int);
  const auto run_row = [&](const std::string& name, Role role, Function function, const course::RepeatOptions& repeat,
                           const std::string& note) {
    course::Row row{name, Target::cpu, role};
    course::poison(c);
    function(a, b, c, s.m, s.n, s.k);
    row.check = matmul::verify_product(c, reference);
    row.time = course::time_host(repeat, [&] { function(a, b, c, s.m, s.n, s.k); });
    row.work = s.flops();
    row.note = note;
    report.add(std::move(row));
  };
  const std::string naive_name = "CPU naive i-j-p loops, 1 thread (teaching row)";
  if (lesson.cpu_naive || s.flops() <= kNaiveAutoFlops) {
    run_row(naive_name, Role::cpu_serial, matmul::matmul_naive, {0, 1}, "one run: it is slow by design");
  } else {
    report.add_skipped(naive_name, Target::cpu, Role::cpu_serial,
                       "too slow at " + s.text() + " (minutes); --cpu-naive runs it up to 2 x 2800^3 flops");
  }
  run_row("CPU blocked + OpenMP SIMD, " + std::to_string(options.cpu_threads()) + " threads (teaching row)",
          Role::detail, matmul::matmul_blocked, {1, std::min(options.cpu_reps, 3)}, "");
  matmul::set_openblas_threads(options.cpu_threads());
  run_row("CPU OpenBLAS sgemm, " + std::to_string(matmul::openblas_threads()) + " threads", Role::cpu_parallel,
          matmul::matmul_openblas, options.cpu_repeat(), std::string(matmul::openblas_description()));
}

// Runs and verifies one launcher on the device buffers, then times it.
course::Row run_gpu_row(const std::string& name, Role role, const std::function<void()>& enqueue,
                        course::DeviceBuffer<float>& d_c, std::vector<float>& c, const matmul::Reference& reference,
                        const course::RepeatOptions& repeat, cudaStream_t stream, double flops) {
  course::Row row{name, Target::gpu, role};
  d_c.poison(stream);  // NaN everywhere: an element the kernel never writes fails verification
  enqueue();
  CUDA_CHECK(cudaStreamSynchronize(stream));
  d_c.copy_to_host(c);
  row.check = matmul::verify_product(c, reference);
  row.time = course::time_device(repeat, stream, enqueue);
  row.work = flops;
  row.ceiling = "cublas_sgemm";
  return row;
}

std::string percent_of(double value, double ceiling) { return course::format_fixed(100.0 * value / ceiling, 1) + "%"; }

void run_gpu(const course::CommonOptions& options, const LessonOptions& lesson, const Shape& s,
             const std::vector<float>& a, const std::vector<float>& b, std::vector<float>& c,
             const matmul::Reference& reference, course::Report& report) {
  const course::RepeatOptions repeat = options.gpu_repeat();
  course::Stream stream;
  const course::Ceiling fma = matmul::measure_fma_ceiling(repeat);
  report.add_ceiling(fma);

  course::DeviceBuffer<float> d_a(s.a_count(), "A"), d_b(s.b_count(), "B"), d_c(s.c_count(), "C");
  d_a.copy_from_host(a);
  d_b.copy_from_host(b);
  const matmul::MatmulArgs args{s.m, s.n, s.k, d_a.data(), d_b.data(), d_c.data()};

  course::CublasHandle cublas;
  course::Row cublas_row = run_gpu_row(
      "GPU cuBLAS SGEMM (FP32, TF32 off)", Role::detail,
      [&] { course::sgemm_row_major(cublas, s.m, s.n, s.k, d_a.data(), d_b.data(), d_c.data(), stream.get()); },
      d_c, c, reference, repeat, stream.get(), s.flops());
  // The ceiling is cuBLAS on this very shape, timed here (same data, same clocks).
  course::Ceiling ceiling{"cublas_sgemm", "cuBLAS SGEMM, FP32 (CUBLAS_PEDANTIC_MATH: no TF32), " + s.text(),
                          s.flops() / (cublas_row.time->median_ms * 1e6), "GFLOP/s"};
  report.add_ceiling(ceiling);
  cublas_row.note = percent_of(ceiling.value, fma.value) + " of the FMA loop";
  report.add(std::move(cublas_row));

  for (const matmul::KernelInfo* kernel : selected_kernels(lesson.kernels)) {
    const Role role = kernel->name == kHeadline ? Role::gpu_kernel : Role::detail;
    const course::RepeatOptions kernel_repeat =
        (kernel->name == "naive" || kernel->name == "tiled_shared") ? course::RepeatOptions{1, std::min(options.reps, 5)}
                                                                      : repeat;
    course::Row row = run_gpu_row(
        kernel_row_name(*kernel), role, [&] { kernel->launch(args, stream.get()); }, d_c, c, reference,
        kernel_repeat, stream.get(), s.flops());
    row.note = percent_of(s.flops() / (row.time->median_ms * 1e6), fma.value) + " of the FMA loop; " +
               std::string(kernel->summary);
    report.add(std::move(row));
  }

  // End to end: A and B copied in, the headline kernel, C copied out (pageable host memory).
  const matmul::KernelInfo* headline = matmul::find_kernel(kHeadline);
  course::Row row{"GPU end-to-end: copy A, B in, " + std::string(kHeadline) + ", copy C out", Target::gpu,
                  Role::gpu_end_to_end};
  const auto end_to_end = [&] {
    d_a.copy_from_host_async(a, stream.get());
    d_b.copy_from_host_async(b, stream.get());
    headline->launch(args, stream.get());
    d_c.copy_to_host_async(c, stream.get());
    stream.synchronize();
  };
  course::poison(c);
  d_c.poison(stream.get());
  end_to_end();
  row.check = matmul::verify_product(c, reference);
  row.time = course::time_host({1, std::min(options.reps, 5)}, end_to_end);
  row.work = s.flops();
  report.add(std::move(row));
}

// GFLOP/s of cuBLAS and every selected kernel at each size of kSweepSizes (square), each
// result verified against the double reference of that size; the JSON feeds plot_matmul.py.
nlohmann::json run_sweep(const course::CommonOptions& options, const LessonOptions& lesson, bool& all_passed) {
  nlohmann::json points = nlohmann::json::array();
  course::Stream stream;
  course::CublasHandle cublas;
  const course::RepeatOptions repeat{1, std::min(options.reps, 10)};
  std::printf("\nSweep (square sizes, GFLOP/s, median of %d):\n", repeat.reps);
  for (const int size : kSweepSizes) {
    const Shape s{size, size, size};
    course::require_device_memory(3 * s.c_count() * sizeof(float), "the sweep's A, B and C at " + s.text());
    std::vector<float> a(s.a_count()), b(s.b_count()), c(s.c_count());
    course::fill_normal(a, options.seed + size);
    course::fill_normal(b, options.seed + size + 1);
    const matmul::Reference reference = matmul::reference_product(a, b, s.m, s.n, s.k);
    course::DeviceBuffer<float> d_a(s.a_count(), "A"), d_b(s.b_count(), "B"), d_c(s.c_count(), "C");
    d_a.copy_from_host(a);
    d_b.copy_from_host(b);
    const matmul::MatmulArgs args{s.m, s.n, s.k, d_a.data(), d_b.data(), d_c.data()};
    std::vector<std::pair<std::string, std::function<void()>>> runs;
    runs.emplace_back("cublas", [&] { course::sgemm_row_major(cublas, s.m, s.n, s.k, d_a.data(), d_b.data(), d_c.data(), stream.get()); });
    for (const matmul::KernelInfo* kernel : selected_kernels(lesson.kernels)) {
      runs.emplace_back(std::string(kernel->name), [&, kernel] { kernel->launch(args, stream.get()); });
    }
    std::printf("  %5d:", size);
    for (const auto& [name, enqueue] : runs) {
      d_c.poison(stream.get());
      enqueue();
      stream.synchronize();
      d_c.copy_to_host(c);
      const course::VerifyResult check = matmul::verify_product(c, reference);
      all_passed = all_passed && check.passed;
      const course::TimingStats t = course::time_device(repeat, stream.get(), enqueue);
      const double gflops = s.flops() / (t.median_ms * 1e6);
      std::printf(" %s %.0f%s", name.c_str(), gflops, check.passed ? "" : " (FAILED)");
      points.push_back({{"size", size}, {"kernel", name}, {"median_ms", t.median_ms}, {"gflops", gflops},
                        {"verified", check.passed}});
    }
    std::printf("\n");
  }
  return points;
}

int run(int argc, char** argv) {
  course::LessonCli cli("04_shared_matmul",
                        "C = A x B in FP32 (SGEMM): CPU loops and OpenBLAS against a progression of GPU kernels and cuBLAS",
                        {"-n,--size", "square size: M = N = K", kDefaultSize, kMaxDimension});
  LessonOptions lesson;
  cli.app().add_option("--m", lesson.m, "rows of A and C (overrides --size)")->check(CLI::Range(std::int64_t{1}, kMaxDimension));
  cli.app().add_option("--n", lesson.n, "columns of B and C (overrides --size)")->check(CLI::Range(std::int64_t{1}, kMaxDimension));
  cli.app().add_option("--k", lesson.k, "columns of A, rows of B (overrides --size)")->check(CLI::Range(std::int64_t{1}, kMaxDimension));
  std::vector<std::string> names{"all"};
  for (const matmul::KernelInfo& kernel : matmul::registry()) names.emplace_back(kernel.name);
  cli.app().add_option("--kernel", lesson.kernels, "kernels to run (repeatable; default all)")->check(CLI::IsMember(names));
  cli.app().add_flag("--cpu-naive", lesson.cpu_naive, "run the naive CPU loops even above 1024^3 (refused above 2 x 2800^3 flops)");
  cli.app().add_flag("--sweep", lesson.sweep, "also time cuBLAS and the kernels at square sizes 256 to 8192 (JSON: extra.sweep)");
  const course::CommonOptions& options = cli.parse(argc, argv);

  const Shape s{static_cast<int>(lesson.m ? lesson.m : options.size), static_cast<int>(lesson.n ? lesson.n : options.size),
                static_cast<int>(lesson.k ? lesson.k : options.size)};
  if (lesson.cpu_naive && !options.skip_cpu && s.flops() > matmul::kNaiveMaxFlops) {
    throw course::UsageError("--cpu-naive: the naive loops at " + s.text() + " would run for hours (" +
                             course::format_fixed(s.flops() / 1e9, 0) + " GFLOP at under 1 GFLOP/s); use at most 2800^3");
  }
  course::Report report(cli, "C = A x B, FP32, " + s.text() + " (M x N x K)", {"GFLOP/s", 1e9, "flops"});

  const course::GpuStatus gpu = course::open_gpu(options);
  report.set_gpu(gpu);
  const std::size_t floats = s.a_count() + s.b_count() + s.c_count();
  if (gpu.usable) course::require_device_memory(floats * sizeof(float), "A, B and C (" + s.text() + ")");
  // Host: A, B, C as float, and the reference's double copies of A and B and two double results.
  course::require_host_memory(floats * sizeof(float) + (s.a_count() + s.b_count() + 2 * s.c_count()) * sizeof(double),
                              "A, B, C and the double reference (" + s.text() + ")");

  std::vector<float> a(s.a_count()), b(s.b_count()), c(s.c_count());
  course::fill_normal(a, options.seed);
  course::fill_normal(b, options.seed + 1);
  matmul::set_openblas_threads(options.cpu_threads());
  const matmul::Reference reference = matmul::reference_product(a, b, s.m, s.n, s.k);
  std::printf("Verification: per element |c - ref| <= gamma(K) (|A||B|)_ij, gamma(%d) = %.3g; relative L2 <= %.3g\n",
              s.k, matmul::gamma_bound(s.k), matmul::rel_l2_bound(s.k));

  if (!options.skip_cpu) run_cpu(options, lesson, s, a, b, c, reference, report);

  const std::vector<const matmul::KernelInfo*> kernels = selected_kernels(lesson.kernels);
  bool sweep_passed = true;
  if (gpu.usable) {
    run_gpu(options, lesson, s, a, b, c, reference, report);
    if (lesson.sweep) report.extra()["sweep"] = run_sweep(options, lesson, sweep_passed);
    report.extra()["context_creation_ms"] = gpu.context_creation_ms;
  } else {
    report.add_skipped("GPU cuBLAS SGEMM (FP32, TF32 off)", Target::gpu, Role::detail, gpu.reason);
    for (const matmul::KernelInfo* kernel : kernels) {
      report.add_skipped(kernel_row_name(*kernel), Target::gpu, kernel->name == kHeadline ? Role::gpu_kernel : Role::detail,
                         gpu.reason);
    }
    report.add_skipped("GPU end-to-end", Target::gpu, Role::gpu_end_to_end, gpu.reason);
  }
  report.extra()["shape"] = {{"m", s.m}, {"n", s.n}, {"k", s.k}};
  report.extra()["headline_kernel"] = kHeadline;

  report.print(std::cout);
  if (!options.json_path.empty()) report.write_json(options.json_path);
  if (!sweep_passed) return course::kExitVerificationFailed;
  return report.exit_code();
}

}  // namespace

int main(int argc, char** argv) { return course::run_lesson(argc, argv, run); }
