// Lesson 04, the pieces main.cpp puts together, so that main.cpp reads like the lesson: the
// product's check on the harness, the efficiency table after the report (lesson_report.cpp),
// and the size sweep (size_sweep.cpp). Only main.cpp includes this header (it carries the
// harness and cuBLAS); the tests and matmul_tune use matmul.hpp.
#pragma once

#include <span>
#include <vector>

#include "course/cublas_ceiling.hpp"
#include "course/harness.hpp"
#include "matmul.hpp"

namespace matmul {

// What every row refers to (main.cpp declares the rows on it), alive until the end.
struct LessonData {
  Shape s;
  std::vector<float> a, b, c;
  Reference reference;
  course::DeviceBuffer<float> d_a, d_b, d_c;  // allocated only when a GPU is usable
  MatmulArgs args() const { return {s.m, s.n, s.k, d_a.data(), d_b.data(), d_c.data()}; }
};
// Is --cpu-naive (the naive loops forced on) sane at this size, and does the problem fit (device
// and host memory, before anything is allocated)? Then A and B random (from --seed), C,
// OpenBLAS's threads (--threads), the double reference, and a line stating the verification bound.
void prepare(const course::Lesson& lesson, LessonData& data, bool cpu_naive);

// The harness's check with the lesson's own criterion (matmul_verify.cpp): per element within
// gamma(K) (|A||B|)_ij, and the relative L2 error within 8 sqrt(K) u. The output is poisoned
// first, so an element nothing wrote fails.
course::Check check_product(std::span<float> c, const Reference& reference);
course::Check check_product(course::DeviceBuffer<float>& d_c, std::span<float> c, const Reference& reference);

// Each GPU row's share of cuBLAS and of the FP32 FMA loop, both measured in this run: the
// report's column holds every row against one ceiling (cuBLAS), this table adds the second.
void print_efficiency(const course::Report& report);

// --sweep size: cuBLAS and every selected kernel at square sizes from 256 to 8192, each point
// verified against the double product of its size and held against the FP32 FMA loop.
inline constexpr std::int64_t kSweepSizes[] = {256, 512, 1024, 1600, 2048, 4096, 8192};
struct SweepContext {
  course::Lesson& lesson;
  std::vector<const course::KernelEntry<Launcher>*> kernels;  // the ones --kernel selected
  course::Setup<course::CublasHandle>& cublas;  // the handle, made by the first row or point that needs it
};
course::Sweep size_sweep(SweepContext context);

}  // namespace matmul
