// Lesson 04: the data the rows share, the product's check on the harness, and the efficiency
// table after the report.
//
// Teaches: a matmul kernel has two honest yardsticks, both measured in the same run: cuBLAS at
// the very same shape (what the library reaches on this GPU) and the FP32 FMA loop (what the FP
// pipes retire at most). The report holds every GPU row against the first; this table puts the
// second beside it.
#include <cstdio>
#include <optional>

#include "course/errors.hpp"
#include "course/format.hpp"
#include "course/random.hpp"
#include "matmul_lesson.hpp"

namespace matmul {

void prepare(const course::Lesson& lesson, LessonData& d, bool cpu_naive) {
  if (cpu_naive && !lesson.options().skip_cpu && d.s.flops() > kNaiveMaxFlops) {
    throw course::UsageError("--cpu-naive: the naive loops at " + d.s.text() + " would run for hours (" +
                             course::format_fixed(d.s.flops() / 1e9, 0) + " GFLOP at under 1 GFLOP/s); use at most 2800^3");
  }
  const std::size_t floats = d.s.a_count() + d.s.b_count() + d.s.c_count();
  // Twice: the lesson's A, B, C and the cuBLAS ceiling's own three, allocated while ours live.
  lesson.require_device_memory(2 * floats * sizeof(float), "A, B and C (" + d.s.text() + "), and the cuBLAS ceiling's copies");
  // Host: A, B, C as float, and the reference's double copies of A and B and two double results.
  course::require_host_memory(floats * sizeof(float) + (d.s.a_count() + d.s.b_count() + 2 * d.s.c_count()) * sizeof(double),
                              "A, B, C and the double reference (" + d.s.text() + ")");
  d.a.resize(d.s.a_count()), d.b.resize(d.s.b_count()), d.c.resize(d.s.c_count());
  const course::CommonOptions& options = lesson.options();
  course::fill_normal(d.a, options.seed);
  course::fill_normal(d.b, options.seed + 1);
  set_openblas_threads(options.cpu_threads());
  d.reference = reference_product(d.a, d.b, d.s.m, d.s.n, d.s.k);
  std::printf("Verification: per element |c - ref| <= gamma(K) (|A||B|)_ij, gamma(%d) = %.3g; relative L2 <= %.3g\n",
              d.s.k, gamma_bound(d.s.k), rel_l2_bound(d.s.k));
}

course::Check check_product(std::span<float> c, const Reference& reference) {
  return {[c] { course::poison(c); }, [c, &reference] { return verify_product(c, reference); }};
}

course::Check check_product(course::DeviceBuffer<float>& d_c, std::span<float> c, const Reference& reference) {
  return {[&d_c] { d_c.poison(); },
          [&d_c, c, &reference] {
            d_c.copy_to_host(c);
            return verify_product(c, reference);
          }};
}

void print_efficiency(const course::Report& report) {
  const course::Ceiling* cublas = report.find_ceiling("cublas_sgemm");
  const course::Ceiling* fma = report.find_ceiling("fp32_fma");
  if (!cublas || !fma) return;
  std::printf("\nEfficiency (this run): cuBLAS SGEMM %.0f GFLOP/s, FP32 FMA loop %.0f GFLOP/s\n", cublas->value,
              fma->value);
  std::printf("  %-36s %10s %10s %12s\n", "variant", "GFLOP/s", "of cuBLAS", "of FMA loop");
  for (const course::Row& row : report.rows()) {
    if (row.target != course::Target::gpu || row.ceiling != "cublas_sgemm") continue;
    const std::optional<double> gflops = row.throughput(course::units::gflops());
    if (!gflops) continue;
    std::printf("  %-36s %10.0f %9.1f%% %11.1f%%\n", row.variant.c_str(), *gflops, 100.0 * *gflops / cublas->value,
                100.0 * *gflops / fma->value);
  }
}

}  // namespace matmul
