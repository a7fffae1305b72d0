// Lesson 01, CPU side: exp over SIMD lanes, with glibc's vector math library (libmvec).
//
// Teaches: the honest CPU baseline is vectorised, and a core, like a GPU, needs memory requests
// in flight. A plain loop of std::exp stays scalar: the compiler may not turn a call into a
// vector call unless it knows a vector version exists and that errno need not be set. glibc
// ships vector versions of expf (libmvec, "_ZGV<isa>N<lanes>v_expf" in the x86-64 vector
// function ABI): 4 lanes with SSE, 8 with AVX2, 16 with AVX-512, which glibc promises to within
// 4 ulp (measured here: about 2.5 ulp against exp in double). This file calls them directly and
// picks the widest the CPU has at run time, so one binary runs anywhere.
// Vectorised, one core computes exp faster than it streams the data: the loop then waits on
// memory, and the hardware prefetchers alone keep too few cache lines in flight for one core.
// Asking for the lines a few KiB ahead (software prefetch) hides that latency: the one-thread
// loop gets faster (docs/01_vector_exp.md has the numbers, next to NumPy's np.exp).
// Why libmvec and not a SIMD library (e.g. Highway): it is part of glibc, already on every
// Debian machine, adds no dependency, and measured as fast as Highway's Exp on the reference host.
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

// [docs:prefetch_loop]
// How far ahead the prefetches reach: 512 floats = 2 KiB = 32 cache lines of each array. On the
// reference host 512 and 2048 measured alike; much less leaves the latency exposed again.
constexpr std::size_t kPrefetchAhead = 512;

// Asks for the cache lines of x (to read) and y (to write) kPrefetchAhead elements ahead of i.
// A prefetch never faults, but the address must stay inside the arrays to be valid C++.
inline void prefetch_ahead(const float* x, float* y, std::size_t i, std::size_t end) {
  if (i + kPrefetchAhead < end) {
    __builtin_prefetch(x + i + kPrefetchAhead, /*write=*/0, /*keep in every cache level=*/3);
    __builtin_prefetch(y + i + kPrefetchAhead, /*write=*/1, 3);
  }
}

// Each helper handles [begin, end): whole vectors, then the last few elements one by one.
template <bool kPrefetch>
__attribute__((target("avx512f"))) void exp_avx512(const float* x, float* y, std::size_t begin, std::size_t end) {
  std::size_t i = begin;
  for (; i + 16 <= end; i += 16) {  // 16 floats = one 64-byte cache line: one prefetch per line
    if constexpr (kPrefetch) prefetch_ahead(x, y, i, end);
    _mm512_storeu_ps(y + i, _ZGVeN16v_expf(_mm512_loadu_ps(x + i)));
  }
  for (; i < end; ++i) y[i] = std::exp(x[i]);
}
// [docs:end prefetch_loop]

template <bool kPrefetch>
__attribute__((target("avx2,fma"))) void exp_avx2(const float* x, float* y, std::size_t begin, std::size_t end) {
  std::size_t i = begin;
  for (; i + 8 <= end; i += 8) {
    if constexpr (kPrefetch) prefetch_ahead(x, y, i, end);
    _mm256_storeu_ps(y + i, _ZGVdN8v_expf(_mm256_loadu_ps(x + i)));
  }
  for (; i < end; ++i) y[i] = std::exp(x[i]);
}

template <bool kPrefetch>
void exp_sse(const float* x, float* y, std::size_t begin, std::size_t end) {
  std::size_t i = begin;
  for (; i + 4 <= end; i += 4) {
    if constexpr (kPrefetch) prefetch_ahead(x, y, i, end);
    _mm_storeu_ps(y + i, _ZGVbN4v_expf(_mm_loadu_ps(x + i)));
  }
  for (; i < end; ++i) y[i] = std::exp(x[i]);
}

using Range = void (*)(const float*, float*, std::size_t, std::size_t);

struct Widest {
  Range plain, prefetched;
  const char* name;
};

// [docs:widest]
const Widest& widest() {
  static const Widest chosen = []() -> Widest {
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f")) return {&exp_avx512<false>, &exp_avx512<true>, "AVX-512, 16 lanes"};
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
      return {&exp_avx2<false>, &exp_avx2<true>, "AVX2, 8 lanes"};
    return {&exp_sse<false>, &exp_sse<true>, "SSE, 4 lanes"};
  }();
  return chosen;
}
// [docs:end widest]

Range range_for(Prefetch prefetch) {
  return prefetch == Prefetch::software ? widest().prefetched : widest().plain;
}

}  // namespace

const char* simd_width_name() { return widest().name; }

void exp_simd_serial(std::span<const float> x, std::span<float> y, Prefetch prefetch) {
  range_for(prefetch)(x.data(), y.data(), 0, x.size());
}

void exp_simd_parallel(std::span<const float> x, std::span<float> y, Prefetch prefetch) {
  const Range range = range_for(prefetch);
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
void exp_simd_serial(std::span<const float> x, std::span<float> y, Prefetch /*hardware prefetch only here*/) {
#pragma omp simd
  for (std::size_t i = 0; i < x.size(); ++i) y[i] = std::exp(x[i]);
}
void exp_simd_parallel(std::span<const float> x, std::span<float> y, Prefetch /*hardware prefetch only here*/) {
#pragma omp parallel for simd schedule(static)
  for (std::size_t i = 0; i < x.size(); ++i) y[i] = std::exp(x[i]);
}
}  // namespace vector_exp

#endif
