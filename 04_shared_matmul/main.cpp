// 04_shared_matmul: C = A x B in FP32, from the naive kernel to cuBLAS speed.
//
// Usage: 04_shared_matmul [-n N | --m M --n N --k K] [--kernel NAME ...] [--cpu-naive] [--sweep size]
//                         [shared flags: --help]
//   04_shared_matmul                       4096 x 4096 x 4096, every kernel, cuBLAS, the CPU rows
//   04_shared_matmul -n 1600 --kernel tiled_shared    the classic at its classic size
//   04_shared_matmul --m 1025 --n 777 --k 513         any shape: nothing needs to be a multiple of a tile
//   04_shared_matmul --sweep size --json sweep.json   every kernel from 256 to 8192, each point verified
//
// The harness (course/harness.hpp) poisons, runs, verifies (against a double product, with a
// bound that scales with K), times and reports every row: the CPU rows, cuBLAS, every selected
// kernel of kernels/registry.inc, end to end. Every GPU row is held against cuBLAS SGEMM measured
// in the same run; a short table after the report adds each kernel's share of the FP32 FMA loop.
#include <algorithm>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "course/harness.hpp"
#include "course/main.hpp"
#include "matmul_lesson.hpp"

namespace {

using course::Role;
using course::Target;

constexpr std::int64_t kDefaultSize = 4096;
constexpr std::int64_t kMaxDimension = 262144;   // 2^18: grids and 32-bit tile indices stay in range
constexpr double kNaiveAutoFlops = 2.2e9;        // the naive row runs by itself up to 1024^3
constexpr double kSerialBlasOneRunFlops = 2e10;  // above this, the 1-thread BLAS row is timed once

using Data = matmul::LessonData;  // what every row refers to, alive until the end

// The naive loops and the blocked OpenMP loop are teaching rows; OpenBLAS is what a user would
// run, so its rows are the ones the GPU's speedups are quoted against. Its thread count changes
// in a row's first, verified and untimed run, never in a timed one. The rows name OpenBLAS's
// kernel set, chosen from the CPU's features (openblas.cpp).
void add_cpu_rows(course::Lesson& lesson, Data& d, bool cpu_naive) {
  const double flops = d.s.flops();
  auto rows_run = [&d](auto function) { return [&d, function](cudaStream_t) { function(d.a, d.b, d.c, d.s.m, d.s.n, d.s.k); }; };
  const bool naive_runs = cpu_naive || flops <= kNaiveAutoFlops;
  lesson.add({.name = "CPU naive i-j-p loops, 1 thread (teaching)", .work = flops, .run = rows_run(matmul::matmul_naive),
              .check = matmul::check_product(d.c, d.reference), .repeat = course::RepeatOptions{0, 1},
              .skip = naive_runs ? "" : "not run by default above 2 x 1024^3 flops (" + d.s.text() + "); --cpu-naive runs it up to 2 x 2800^3",
              .note = naive_runs ? "one run: it is slow by design" : ""});
  lesson.add({.name = "CPU blocked + OpenMP SIMD, " + std::to_string(lesson.options().cpu_threads()) + " threads (teaching)",
              .work = flops, .run = rows_run(matmul::matmul_blocked), .check = matmul::check_product(d.c, d.reference),
              .repeat = course::RepeatOptions{1, std::min(lesson.options().cpu_reps, 3)}});
  auto blas_row = [&](int threads, const std::string& cores, Role role, std::optional<course::RepeatOptions> repeat) {
    lesson.add({.name = "CPU OpenBLAS sgemm (" + std::string(matmul::openblas_core()) + " kernels), " + cores,
                .role = role, .work = flops,
                .run = [&d, threads](cudaStream_t) {
                  if (matmul::openblas_threads() != threads) matmul::set_openblas_threads(threads);
                  matmul::matmul_openblas(d.a, d.b, d.c, d.s.m, d.s.n, d.s.k);
                },
                .check = matmul::check_product(d.c, d.reference), .repeat = repeat,
                .note = std::string(matmul::openblas_description())});
  };
  // One core: the best one core does (seconds at 4096^3, so timed once there).
  blas_row(1, "1 thread", Role::cpu_serial,
           flops > kSerialBlasOneRunFlops ? std::optional(course::RepeatOptions{0, 1}) : std::nullopt);
  const int threads = matmul::openblas_threads();
  blas_row(threads, std::to_string(threads) + " threads", Role::cpu_parallel, std::nullopt);
}

// cuBLAS, then one row per kernel --kernel selects (the headline and the repetition caps from
// its registry line), then end to end: A and B copied in, the headline kernel, C copied out.
// Every row flushes the L2 before each repetition (unless --no-flush-l2); the cuBLAS ceiling is
// timed with the L2 warm. A, B and C outgrow the L2 (50 MB on an H100) beyond about 2048^3.
auto add_gpu_rows(course::Lesson& lesson, Data& d, const std::vector<std::string>& selected,
                  course::SetupStep& inputs, course::Setup<course::CublasHandle>& cublas) {
  const double flops = d.s.flops();
  lesson.add({.name = "GPU cuBLAS SGEMM (FP32, TF32 off)", .target = Target::gpu, .work = flops, .ceiling = "cublas_sgemm",
              .setup = {inputs, cublas},
              .run = [&d, &cublas](cudaStream_t s) {
                course::sgemm_row_major(cublas.get(), d.s.m, d.s.n, d.s.k, d.d_a.data(), d.d_b.data(), d.d_c.data(), s);
              },
              .check = matmul::check_product(d.d_c, d.c, d.reference)});
  const auto chosen = lesson.add_kernels(matmul::kernels(), selected, [&](const auto& kernel, course::Precision) {
    return course::Variant{.name = "GPU " + std::string(kernel.name), .target = Target::gpu, .work = flops,
                           .ceiling = "cublas_sgemm", .setup = {inputs},
                           .run = [&d, launch = kernel.launch](cudaStream_t s) { launch(d.args(), s); },
                           .check = matmul::check_product(d.d_c, d.c, d.reference), .note = std::string(kernel.summary)};
  });
  const auto& headline = course::headline_kernel(matmul::kernels());
  course::Check check = matmul::check_product(d.c, d.reference);
  check.poison = [&d, host = check.poison] {
    host();
    d.d_c.poison();  // so a kernel that wrote nothing cannot pass with the previous row's C
  };
  lesson.add({.name = "GPU end-to-end: copy A, B in, " + std::string(headline.name) + ", copy C out", .target = Target::gpu,
              .role = Role::gpu_end_to_end, .work = flops, .setup = {inputs},
              .run = [&d, launch = headline.launch](cudaStream_t s) {
                d.d_a.copy_from_host_async(d.a, s);
                d.d_b.copy_from_host_async(d.b, s);
                launch(d.args(), s);
                d.d_c.copy_to_host_async(d.c, s);  // the harness synchronizes before c is read
              },
              .check = check, .timing = course::Timing::host,
              .repeat = course::RepeatOptions{1, std::min(lesson.options().reps, 5)}});
  return chosen;
}

int run(int argc, char** argv) {
  course::Lesson lesson("04_shared_matmul",
                        "C = A x B in FP32 (SGEMM): CPU loops and OpenBLAS against a progression of GPU kernels and cuBLAS",
                        {{"--m", "rows of A and C", kDefaultSize, kMaxDimension},
                         {"--n", "columns of B and C", kDefaultSize, kMaxDimension},
                         {"--k", "columns of A, rows of B", kDefaultSize, kMaxDimension}},
                        "-n,--size", "square size: M = N = K (each of --m, --n, --k overrides it)");
  lesson.set_unit(course::units::gflops());
  std::vector<std::string> selected;
  bool cpu_naive = false;
  lesson.add_kernel_option(selected, matmul::kernels());
  lesson.cli().add_flag("--cpu-naive", cpu_naive, "run the naive CPU loops even above 1024^3 (refused above 2 x 2800^3 flops)");
  lesson.declare_sweep("size", "cuBLAS and the kernels at square sizes 256 to 8192, each point verified");
  const course::CommonOptions& options = lesson.parse(argc, argv);

  Data d;
  d.s = {static_cast<int>(options.dim("m")), static_cast<int>(options.dim("n")), static_cast<int>(options.dim("k"))};
  matmul::prepare(lesson, d, cpu_naive);  // A and B random, the double reference
  lesson.set_title("C = A x B, FP32, " + d.s.text() + " (M x N x K)");

  add_cpu_rows(lesson, d, cpu_naive);
  // Synchronous copies: A and B have landed before any row's kernel reads them.
  auto& inputs = lesson.add_setup("A, B and C on the GPU, A and B copied in", [&] {
    d.d_a = course::DeviceBuffer<float>(d.s.a_count(), "A"), d.d_b = course::DeviceBuffer<float>(d.s.b_count(), "B");
    d.d_c = course::DeviceBuffer<float>(d.s.c_count(), "C");
    d.d_a.copy_from_host(d.a), d.d_b.copy_from_host(d.b);
  });
  lesson.add_ceiling(Target::gpu, [&] { return course::measure_cublas_sgemm(d.s.m, d.s.n, d.s.k, options.gpu_repeat(), options.flush_l2); });
  lesson.add_fma_ceiling(course::Precision::fp32);
  auto& cublas = lesson.add_setup("cuBLAS handle (cublasCreate)", [] { return course::CublasHandle(); });
  const auto chosen = add_gpu_rows(lesson, d, selected, inputs, cublas);
  lesson.add_sweep(matmul::size_sweep({lesson, chosen, cublas}));

  lesson.run_variants();
  lesson.record("headline_kernel", std::string(course::headline_kernel(matmul::kernels()).name));
  if (lesson.has_gpu()) lesson.record("context_creation_ms", lesson.gpu().context_creation_ms);
  const int code = lesson.finish();
  matmul::print_efficiency(lesson.report());
  return code;
}

}  // namespace

int main(int argc, char** argv) { return course::run_lesson(argc, argv, run); }
