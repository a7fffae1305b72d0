// Lesson 08, CPU side: SAXPY on one thread and on all cores, and the references.
//
// Teaches: out = a * x + y is two IEEE operations, a multiply and an add, each rounded. Every
// conforming processor gives the same bits for them, so the GPU result can be held to the
// CPU's bit for bit, but only if neither side fuses them into one fused multiply-add (FMA,
// one rounding). Compilers fuse when allowed ("contraction"): nvcc and NVRTC by default
// (--fmad=true), GCC and Clang at -O2 with -ffp-contract=fast whenever the target has FMA
// instructions (-march=native on any recent x86). This file is built with -ffp-contract=off and
// the kernels with --fmad=false (CMakeLists.txt); the docs show what changes otherwise.
//
// a = 2 hides the difference: 2 * x is exact, so fused and unfused agree on every element.
// The tests use other values of a as well.
#include <cmath>

#include "saxpy.hpp"

namespace driver_saxpy {

// [docs:cpu_saxpy]
// One core, SIMD: the plain loop, which GCC vectorises at -O3 anyway. The pragma says so in the
// source, and lets GCC drop its run-time check that out does not partly overlap x or y.
void saxpy_serial(float a, std::span<const float> x, std::span<const float> y, std::span<float> out) {
#pragma omp simd
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = a * x[i] + y[i];
}

// What a user would run: all cores, each with a contiguous slice, and SIMD within each slice.
void saxpy_parallel(float a, std::span<const float> x, std::span<const float> y, std::span<float> out) {
  const std::size_t n = out.size();
  const float* xs = x.data();
  const float* ys = y.data();
  float* os = out.data();
#pragma omp parallel for simd schedule(static)
  for (std::size_t i = 0; i < n; ++i) os[i] = a * xs[i] + ys[i];
}
// [docs:end cpu_saxpy]

void saxpy_fused_serial(float a, std::span<const float> x, std::span<const float> y, std::span<float> out) {
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = std::fma(a, x[i], y[i]);
}

course::ReferenceBlock saxpy_reference(float a, std::span<const float> x, std::span<const float> y) {
  return [a, x, y](std::size_t begin, std::size_t end, double* reference) {
    for (std::size_t i = begin; i < end; ++i) {
      // A float product is exact in double (24 + 24 bits <= 53); rounding it to float once is
      // the float multiply. The sum of two floats rounded in double, then to float, equals the
      // float add (53 >= 2 x 24 + 2 bits: the double rounding is harmless, Figueroa 1995).
      const float product = static_cast<float>(static_cast<double>(a) * static_cast<double>(x[i]));
      reference[i - begin] = static_cast<float>(static_cast<double>(product) + static_cast<double>(y[i]));
    }
  };
}

course::ReferenceBlock saxpy_fused_reference(float a, std::span<const float> x, std::span<const float> y) {
  return [a, x, y](std::size_t begin, std::size_t end, double* reference) {
    for (std::size_t i = begin; i < end; ++i) reference[i - begin] = std::fma(a, x[i], y[i]);
  };
}

}  // namespace driver_saxpy
