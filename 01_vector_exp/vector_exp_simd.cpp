// Lesson 01, CPU side: exp over SIMD lanes, with glibc's vector math library (libmvec).
//
// Teaches: the honest CPU baseline is vectorised. A plain loop of std::exp stays scalar: the
// compiler may not turn a call into a vector call unless it knows a vector version exists and
// that errno need not be set. glibc ships vector versions of expf (libmvec, "_ZGV<isa>N<lanes>v_expf"
// in the x86-64 vector function ABI): 4 lanes with SSE, 8 with AVX2, 16 with AVX-512, accurate
// to within a few ulp (glibc's tests allow 1 ulp for the AVX2 and AVX-512 versions). This file
// calls them directly and picks the widest the CPU has at run time, so one binary runs anywhere.
// Why libmvec and not a SIMD library (e.g. Highway): it is part of glibc, already on every
// Debian machine, adds no dependency, and is what NumPy-class code on Linux reaches as well.
#include <omp.h>

#include <cmath>
#include <cstddef>

#include "vector_exp.hpp"

#if defined(__x86_64__) && defined(__GLIBC__)
#include <immintrin.h>

extern "C" {
__m128 _ZGVbN4v_expf(__m128);   // SSE2 (every x86-64 CPU)
__m256 _ZGVdN8v_expf(__m256);   // AVX2
__m512 _ZGVeN16v_expf(__m512);  // AVX-512F
}

namespace vector_exp {

namespace {

// Each helper handles [begin, end): whole vectors, then the last few elements one by one.
__attribute__((target("avx512f"))) void exp_avx512(const float* x, float* y, std::size_t begin, std::size_t end) {
  std::size_t i = begin;
  for (; i + 16 <= end; i += 16) _mm512_storeu_ps(y + i, _ZGVeN16v_expf(_mm512_loadu_ps(x + i)));
  for (; i < end; ++i) y[i] = std::exp(x[i]);
}

__attribute__((target("avx2,fma"))) void exp_avx2(const float* x, float* y, std::size_t begin, std::size_t end) {
  std::size_t i = begin;
  for (; i + 8 <= end; i += 8) _mm256_storeu_ps(y + i, _ZGVdN8v_expf(_mm256_loadu_ps(x + i)));
  for (; i < end; ++i) y[i] = std::exp(x[i]);
}

void exp_sse(const float* x, float* y, std::size_t begin, std::size_t end) {
  std::size_t i = begin;
  for (; i + 4 <= end; i += 4) _mm_storeu_ps(y + i, _ZGVbN4v_expf(_mm_loadu_ps(x + i)));
  for (; i < end; ++i) y[i] = std::exp(x[i]);
}

using Range = void (*)(const float*, float*, std::size_t, std::size_t);

Range widest() {
  static const Range chosen = [] {
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f")) return &exp_avx512;
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return &exp_avx2;
    return &exp_sse;
  }();
  return chosen;
}

}  // namespace

const char* simd_width_name() {
  const Range chosen = widest();
  return chosen == &exp_avx512 ? "AVX-512, 16 lanes" : chosen == &exp_avx2 ? "AVX2, 8 lanes" : "SSE, 4 lanes";
}

void exp_simd_serial(std::span<const float> x, std::span<float> y) { widest()(x.data(), y.data(), 0, x.size()); }

void exp_simd_parallel(std::span<const float> x, std::span<float> y) {
  const Range range = widest();
  const std::size_t n = x.size();
#pragma omp parallel
  {
    // Equal contiguous slices, one per thread, each a multiple of 16 elements (whole vectors).
    const auto threads = static_cast<std::size_t>(omp_get_num_threads());
    const auto t = static_cast<std::size_t>(omp_get_thread_num());
    const std::size_t slice = (n / threads + 15) / 16 * 16;
    const std::size_t begin = std::min(n, t * slice);
    const std::size_t end = t + 1 == threads ? n : std::min(n, begin + slice);
    range(x.data(), y.data(), begin, end);
  }
}

}  // namespace vector_exp

#else  // not x86-64 glibc: let the compiler vectorise what it can

namespace vector_exp {
const char* simd_width_name() { return "compiler's choice (no libmvec here)"; }
void exp_simd_serial(std::span<const float> x, std::span<float> y) {
#pragma omp simd
  for (std::size_t i = 0; i < x.size(); ++i) y[i] = std::exp(x[i]);
}
void exp_simd_parallel(std::span<const float> x, std::span<float> y) {
#pragma omp parallel for simd schedule(static)
  for (std::size_t i = 0; i < x.size(); ++i) y[i] = std::exp(x[i]);
}
}  // namespace vector_exp

#endif
