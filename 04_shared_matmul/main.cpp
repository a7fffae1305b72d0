// 04_shared_matmul: C = A x B in FP32, from the naive kernel to cuBLAS speed.
//
// Usage: 04_shared_matmul [-n N | --m M --n N --k K] [--kernel NAME ...] [--cpu-naive] [--sweep]
//                         [shared flags: --help]
//   04_shared_matmul                       4096 x 4096 x 4096, every kernel, cuBLAS, the CPU rows
//   04_shared_matmul -n 1600 --kernel tiled_shared    the classic at its classic size
//   04_shared_matmul --m 1025 --n 777 --k 513         any shape: nothing needs to be a multiple of a tile
//   04_shared_matmul --sweep --json sweep.json        GFLOP/s of every kernel from 256 to 8192 (plot_matmul.py)
//
// The lesson declares its data and variants; the harness (course/harness.hpp) poisons, runs,
// verifies (against a double product, with a bound that scales with K), times and reports each
// one: the CPU rows, cuBLAS, every selected kernel of kernels/registry.inc, end to end. Every
// GPU row is held against cuBLAS SGEMM measured in the same run; a short table after the
// report gives each kernel's share of cuBLAS and of the FP32 FMA ceiling side by side.
#include <algorithm>
#include <cstdio>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "course/check.hpp"
#include "course/cublas_ceiling.hpp"
#include "course/errors.hpp"
#include "course/format.hpp"
#include "course/harness.hpp"
#include "course/main.hpp"
#include "course/random.hpp"
#include "matmul.hpp"

namespace {

using course::Role;
using course::Target;

constexpr std::int64_t kDefaultSize = 4096;
constexpr std::int64_t kMaxDimension = 262144;      // 2^18: grids and 32-bit tile indices stay in range
constexpr double kNaiveAutoFlops = 2.2e9;           // the naive row runs by itself up to 1024^3
constexpr double kSerialBlasOneRunFlops = 2e10;     // above this, the 1-thread BLAS row is timed once
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

// The harness's check with the lesson's own criterion (matmul_verify.cpp): per element within
// gamma(K) (|A||B|)_ij, and the relative L2 error within 8 sqrt(K) u. The output is poisoned
// first, so an element nothing wrote fails.
course::Check check_product(std::span<float> c, const matmul::Reference& reference) {
  return {[c] { course::poison(c); }, [c, &reference] { return matmul::verify_product(c, reference); }};
}
course::Check check_product(course::DeviceBuffer<float>& d_c, std::span<float> c, const matmul::Reference& reference) {
  return {[&d_c] { d_c.poison(); },
          [&d_c, c, &reference] {
            d_c.copy_to_host(c);
            return matmul::verify_product(c, reference);
          }};
}

// GFLOP/s of cuBLAS and every selected kernel at each size of kSweepSizes (square), each
// result verified against the double reference of that size; the JSON feeds plot_matmul.py.
nlohmann::json run_sweep(course::Lesson& lesson, const std::vector<const course::KernelEntry<matmul::Launcher>*>& kernels,
                         const course::CublasHandle& cublas, bool& all_passed) {
  const course::CommonOptions& options = lesson.options();
  const cudaStream_t stream = lesson.stream();
  const course::RepeatOptions repeat{1, std::min(options.reps, 10)};
  nlohmann::json points = nlohmann::json::array();
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
    runs.emplace_back("cublas", [&] { course::sgemm_row_major(cublas, s.m, s.n, s.k, args.a, args.b, args.c, stream); });
    for (const auto* kernel : kernels) {
      runs.emplace_back(std::string(kernel->name), [&, kernel] { kernel->launch(args, stream); });
    }
    std::printf("  %5d:", size);
    for (const auto& [name, enqueue] : runs) {
      const course::Check product = check_product(d_c, c, reference);
      product.poison();
      CUDA_CHECK(cudaDeviceSynchronize());  // the poison runs in the legacy stream
      enqueue();
      CUDA_CHECK(cudaStreamSynchronize(stream));
      const course::VerifyResult check = product.verify();
      all_passed = all_passed && check.passed;
      const course::TimingStats t = course::time_device(repeat, stream, enqueue);
      const double gflops = s.flops() / (t.median_ms * 1e6);
      std::printf(" %s %.0f%s", name.c_str(), gflops, check.passed ? "" : " (FAILED)");
      std::fflush(stdout);
      points.push_back({{"size", size}, {"kernel", name}, {"median_ms", t.median_ms}, {"gflops", gflops},
                        {"verified", check.passed}});
    }
    std::printf("\n");
  }
  return points;
}

// Each GPU row's share of cuBLAS and of the FP32 FMA loop, both measured in this run: the
// report's column holds every row against one ceiling (cuBLAS), this table adds the second.
void print_efficiency(const course::Report& report) {
  const course::Ceiling* cublas = report.find_ceiling("cublas_sgemm");
  const course::Ceiling* fma = report.find_ceiling("fp32_fma");
  if (!cublas || !fma) return;
  std::printf("\nEfficiency (this run): cuBLAS SGEMM %.0f GFLOP/s, FP32 FMA loop %.0f GFLOP/s\n", cublas->value,
              fma->value);
  std::printf("  %-36s %10s %10s %12s\n", "variant", "GFLOP/s", "of cuBLAS", "of FMA loop");
  for (const course::Row& row : report.rows()) {
    if (row.target != Target::gpu || row.ceiling != "cublas_sgemm") continue;
    const std::optional<double> gflops = row.throughput(course::units::gflops());
    if (!gflops) continue;
    std::printf("  %-36s %10.0f %9.1f%% %11.1f%%\n", row.variant.c_str(), *gflops, 100.0 * *gflops / cublas->value,
                100.0 * *gflops / fma->value);
  }
}

int run(int argc, char** argv) {
  course::Lesson lesson("04_shared_matmul",
                        "C = A x B in FP32 (SGEMM): CPU loops and OpenBLAS against a progression of GPU kernels and cuBLAS",
                        {{"--m", "rows of A and C", kDefaultSize, kMaxDimension},
                         {"--n", "columns of B and C", kDefaultSize, kMaxDimension},
                         {"--k", "columns of A, rows of B", kDefaultSize, kMaxDimension}},
                        "-n,--size", "square size: M = N = K (each of --m, --n, --k overrides it)");
  lesson.set_unit(course::units::gflops());
  std::vector<std::string> kernel_names;
  bool cpu_naive = false, sweep = false;
  lesson.add_kernel_option(kernel_names, course::kernel_names(matmul::kernels()));
  lesson.cli().add_flag("--cpu-naive", cpu_naive, "run the naive CPU loops even above 1024^3 (refused above 2 x 2800^3 flops)");
  lesson.cli().add_flag("--sweep", sweep, "also time cuBLAS and the kernels at square sizes 256 to 8192 (JSON: extra.sweep)");
  const course::CommonOptions& options = lesson.parse(argc, argv);
  const auto selected = course::select_kernels(matmul::kernels(), kernel_names);

  const Shape s{static_cast<int>(options.dim("m")), static_cast<int>(options.dim("n")), static_cast<int>(options.dim("k"))};
  if (cpu_naive && !options.skip_cpu && s.flops() > matmul::kNaiveMaxFlops) {
    throw course::UsageError("--cpu-naive: the naive loops at " + s.text() + " would run for hours (" +
                             course::format_fixed(s.flops() / 1e9, 0) + " GFLOP at under 1 GFLOP/s); use at most 2800^3");
  }
  const double flops = s.flops();
  lesson.set_title("C = A x B, FP32, " + s.text() + " (M x N x K)");
  const std::size_t floats = s.a_count() + s.b_count() + s.c_count();
  // Twice: the lesson's A, B, C and the cuBLAS ceiling's own three, allocated while ours live.
  lesson.require_device_memory(2 * floats * sizeof(float), "A, B and C (" + s.text() + "), and the cuBLAS ceiling's copies");
  // Host: A, B, C as float, and the reference's double copies of A and B and two double results.
  course::require_host_memory(floats * sizeof(float) + (s.a_count() + s.b_count() + 2 * s.c_count()) * sizeof(double),
                              "A, B, C and the double reference (" + s.text() + ")");

  std::vector<float> a(s.a_count()), b(s.b_count()), c(s.c_count());
  course::fill_normal(a, options.seed);
  course::fill_normal(b, options.seed + 1);
  matmul::set_openblas_threads(options.cpu_threads());
  const int blas_threads = matmul::openblas_threads();
  const matmul::Reference reference = matmul::reference_product(a, b, s.m, s.n, s.k);
  std::printf("Verification: per element |c - ref| <= gamma(K) (|A||B|)_ij, gamma(%d) = %.3g; relative L2 <= %.3g\n",
              s.k, matmul::gamma_bound(s.k), matmul::rel_l2_bound(s.k));

  // ---- CPU ----
  // The naive loops and the blocked OpenMP loop are teaching rows; OpenBLAS is what a user would
  // run, so its rows are the ones the GPU's speedups are quoted against.
  auto cpu_row = [&](void (*function)(std::span<const float>, std::span<const float>, std::span<float>, int, int, int)) {
    return [&, function](cudaStream_t) { function(a, b, c, s.m, s.n, s.k); };
  };
  const std::string naive_name = "CPU naive i-j-p loops, 1 thread (teaching)";
  if (cpu_naive || flops <= kNaiveAutoFlops) {
    lesson.add({.name = naive_name, .work = flops, .run = cpu_row(matmul::matmul_naive),
                .check = check_product(c, reference), .repeat = course::RepeatOptions{0, 1},
                .note = "one run: it is slow by design"});
  } else if (!options.skip_cpu) {
    lesson.report().add_skipped(naive_name, Target::cpu, Role::detail,
                                "too slow at " + s.text() + " (minutes); --cpu-naive runs it up to 2 x 2800^3 flops");
  }
  lesson.add({.name = "CPU blocked + OpenMP SIMD, " + std::to_string(options.cpu_threads()) + " threads (teaching)",
              .work = flops, .run = cpu_row(matmul::matmul_blocked), .check = check_product(c, reference),
              .repeat = course::RepeatOptions{1, std::min(options.cpu_reps, 3)}});
  // OpenBLAS on one core: the best one core does (seconds at 4096^3, so timed once there). The
  // thread count changes in a row's first, verified and untimed run, never in a timed one.
  auto use_blas_threads = [](int threads) {
    if (matmul::openblas_threads() != threads) matmul::set_openblas_threads(threads);
  };
  // The rows name OpenBLAS's kernel set: chosen from the CPU's features (openblas.cpp), since
  // Debian's OpenBLAS 0.3.21 picks a slower one on CPUs newer than itself.
  const std::string blas = "CPU OpenBLAS sgemm (" + std::string(matmul::openblas_core()) + " kernels), ";
  lesson.add({.name = blas + "1 thread", .role = Role::cpu_serial, .work = flops,
              .run = [&](cudaStream_t) {
                use_blas_threads(1);
                matmul::matmul_openblas(a, b, c, s.m, s.n, s.k);
              },
              .check = check_product(c, reference),
              .repeat = flops > kSerialBlasOneRunFlops ? std::optional(course::RepeatOptions{0, 1}) : std::nullopt,
              .note = std::string(matmul::openblas_description())});
  lesson.add({.name = blas + std::to_string(blas_threads) + " threads", .role = Role::cpu_parallel,
              .work = flops,
              .run = [&](cudaStream_t) {
                use_blas_threads(blas_threads);
                matmul::matmul_openblas(a, b, c, s.m, s.n, s.k);
              },
              .check = check_product(c, reference), .note = std::string(matmul::openblas_description())});

  // ---- GPU ----
  // Every GPU row is held against cuBLAS at this very shape, timed in this run, and the FP32
  // FMA loop is measured too (print_efficiency). The rows flush the L2 before each repetition
  // (unless --no-flush-l2), the cuBLAS row too; the ceiling is timed with the L2 warm. A, B
  // and C outgrow the L2 (50 MB on an H100) beyond about 2048^3: the difference shows at small
  // sizes only.
  course::DeviceBuffer<float> d_a, d_b, d_c;  // allocated only when a GPU is usable
  std::optional<course::CublasHandle> cublas;
  lesson.on_gpu([&] {
    d_a = course::DeviceBuffer<float>(s.a_count(), "A");
    d_b = course::DeviceBuffer<float>(s.b_count(), "B");
    d_c = course::DeviceBuffer<float>(s.c_count(), "C");
    d_a.copy_from_host(a);
    d_b.copy_from_host(b);
    // A pageable cudaMemcpy may return before its last bytes land, and the rows run in the
    // lesson's non-blocking stream, which does not wait for it: wait here.
    CUDA_CHECK(cudaDeviceSynchronize());
    cublas.emplace();
  });
  lesson.add_ceiling(Target::gpu, [&] { return course::measure_cublas_sgemm(s.m, s.n, s.k, options.gpu_repeat()); });
  lesson.add_fma_ceiling(course::Precision::fp32);
  auto args = [&] { return matmul::MatmulArgs{s.m, s.n, s.k, d_a.data(), d_b.data(), d_c.data()}; };

  lesson.add({.name = "GPU cuBLAS SGEMM (FP32, TF32 off)", .target = Target::gpu, .work = flops, .ceiling = "cublas_sgemm",
              .run = [&](cudaStream_t stream) {
                course::sgemm_row_major(*cublas, s.m, s.n, s.k, d_a.data(), d_b.data(), d_c.data(), stream);
              },
              .check = check_product(d_c, c, reference)});
  for (const auto* kernel : selected) {
    const bool slow = kernel->name == "naive" || kernel->name == "tiled_shared";  // tens of ms each at 4096^3
    lesson.add({.name = "GPU " + std::string(kernel->name), .target = Target::gpu,
                .role = kernel->name == kHeadline ? Role::gpu_kernel : Role::detail, .work = flops,
                .ceiling = "cublas_sgemm",
                .run = [&, kernel](cudaStream_t stream) { kernel->launch(args(), stream); },
                .check = check_product(d_c, c, reference),
                .repeat = slow ? std::optional(course::RepeatOptions{1, std::min(options.reps, 5)}) : std::nullopt,
                .note = std::string(kernel->summary)});
  }
  // End to end: A and B copied in, the headline kernel, C copied out (pageable host memory).
  course::Check end_to_end_check = check_product(c, reference);
  end_to_end_check.poison = [&] {
    course::poison(c);
    d_c.poison();  // so a kernel that wrote nothing cannot pass with the previous row's C
  };
  lesson.add({.name = "GPU end-to-end: copy A, B in, " + std::string(kHeadline) + ", copy C out", .target = Target::gpu,
              .role = Role::gpu_end_to_end, .work = flops,
              .run = [&](cudaStream_t stream) {
                d_a.copy_from_host_async(a, stream);
                d_b.copy_from_host_async(b, stream);
                matmul::kernel(kHeadline).launch(args(), stream);
                d_c.copy_to_host_async(c, stream);  // the harness synchronizes before c is read
              },
              .check = end_to_end_check, .timing = course::Timing::host,
              .repeat = course::RepeatOptions{1, std::min(options.reps, 5)}});

  lesson.run_variants();
  bool sweep_passed = true;
  if (sweep && lesson.has_gpu()) lesson.report().extra()["sweep"] = run_sweep(lesson, selected, *cublas, sweep_passed);
  lesson.report().extra()["headline_kernel"] = kHeadline;
  if (lesson.has_gpu()) lesson.report().extra()["context_creation_ms"] = lesson.gpu().context_creation_ms;
  const int code = lesson.finish();
  print_efficiency(lesson.report());
  return sweep_passed ? code : course::kExitVerificationFailed;
}

}  // namespace

int main(int argc, char** argv) { return course::run_lesson(argc, argv, run); }
