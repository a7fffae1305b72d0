// Lesson 02, CPU side: the baselines and the reference.
//
// Teaches: the honest CPU baseline is optimized C++ on one core AND on all cores (OpenMP). An
// add does one arithmetic operation per 12 bytes moved, so both are limited by memory
// bandwidth, not by arithmetic: all the cores together do not go core-count times faster.
// One core alone is limited by latency: the hardware prefetchers keep too few cache lines in
// flight for it, so the rows the speedups are quoted against also request the lines 2 KiB ahead
// (software prefetch, as lesson 01 measures); the plain loops stay as teaching rows.
//
// Why the results can be checked for exact equality (course::Tolerance::exact()):
// a + b in float is ONE IEEE-754 operation, rounded to nearest (ties to even). Every conforming
// processor gives the same bits for the same two inputs: the CPU's SSE/AVX adds (vectorised or
// not, one thread or many, since each element is computed on its own) and the GPU's FADD.
// The same holds for the product in part 1 (multiply_them). The reference is computed in double
// and rounded to float once; double's 53 bits are at least 2 x 24 + 2, which is enough for the
// double rounding to equal a single rounding to float (Figueroa, 1995), so the reference is the
// correctly rounded float result too, computed in a different way.
//
// Where exact equality stops being true:
//  - nvcc -use_fast_math or -ftz=true: the GPU flushes subnormal inputs and results to zero,
//    the CPU keeps them (and -ffast-math on the host may do the same the other way round);
//  - an expression like a * b + c: nvcc contracts it into one fused multiply-add (one rounding),
//    the host compiler may compute two roundings, so the last bit can differ (-fmad=false);
//  - x87 arithmetic on old 32-bit x86 hosts: intermediates stay in 80-bit registers and are
//    rounded to float only when stored, so an expression of several operations is rounded once
//    at the end instead of after each operation, unlike the GPU (one add alone is still exact);
//  - a reduction (the sum of many elements): the order of the adds changes the result.
#include "elementwise_add.hpp"

#include <omp.h>

#include <algorithm>

namespace elementwise_add {

void add_serial(std::span<const float> a, std::span<const float> b, std::span<float> c) {
  for (std::size_t i = 0; i < c.size(); ++i) c[i] = a[i] + b[i];
}

// [docs:add_parallel]
void add_parallel(std::span<const float> a, std::span<const float> b, std::span<float> c) {
  const std::size_t n = c.size();
  // Static schedule: every element costs the same, so equal contiguous slices per thread.
#pragma omp parallel for schedule(static)
  for (std::size_t i = 0; i < n; ++i) c[i] = a[i] + b[i];
}
// [docs:end add_parallel]

namespace {

// [docs:add_range_prefetched]
// How far ahead the prefetches reach, in floats: 512 = 2 KiB = 32 cache lines of each array.
constexpr std::size_t kPrefetchAhead = 512;
constexpr std::size_t kFloatsPerLine = 16;  // 64-byte cache lines

// c = a + b over [begin, end), one cache line at a time, asking for the lines of a, b (to read)
// and c (to write) kPrefetchAhead elements ahead. A prefetch never faults, but its address must
// stay inside the arrays to be valid C++.
void add_range_prefetched(const float* a, const float* b, float* c, std::size_t begin, std::size_t end) {
  std::size_t i = begin;
  for (; i + kFloatsPerLine <= end; i += kFloatsPerLine) {
    if (i + kPrefetchAhead < end) {
      __builtin_prefetch(a + i + kPrefetchAhead, /*write=*/0, /*keep in every cache level=*/3);
      __builtin_prefetch(b + i + kPrefetchAhead, 0, 3);
      __builtin_prefetch(c + i + kPrefetchAhead, 1, 3);
    }
#pragma omp simd
    for (std::size_t j = i; j < i + kFloatsPerLine; ++j) c[j] = a[j] + b[j];
  }
  for (; i < end; ++i) c[i] = a[i] + b[i];
}
// [docs:end add_range_prefetched]

}  // namespace

void add_prefetch_serial(std::span<const float> a, std::span<const float> b, std::span<float> c) {
  add_range_prefetched(a.data(), b.data(), c.data(), 0, c.size());
}

void add_prefetch_parallel(std::span<const float> a, std::span<const float> b, std::span<float> c) {
  const std::size_t n = c.size();
#pragma omp parallel
  {
    // Equal contiguous slices, one per thread, each a whole number of cache lines.
    const auto threads = static_cast<std::size_t>(omp_get_num_threads());
    const auto t = static_cast<std::size_t>(omp_get_thread_num());
    const std::size_t slice = (n / threads + kFloatsPerLine - 1) / kFloatsPerLine * kFloatsPerLine;
    const std::size_t begin = std::min(n, t * slice);
    const std::size_t end = t + 1 == threads ? n : std::min(n, begin + slice);
    add_range_prefetched(a.data(), b.data(), c.data(), begin, end);
  }
}

void multiply_serial(std::span<const float> a, std::span<const float> b, std::span<float> dest) {
  for (std::size_t i = 0; i < dest.size(); ++i) dest[i] = a[i] * b[i];
}

course::ReferenceBlock add_reference(std::span<const float> a, std::span<const float> b) {
  return [a, b](std::size_t begin, std::size_t end, double* out) {
    for (std::size_t i = begin; i < end; ++i) {
      // [docs:reference_rounding]
      const double exact = static_cast<double>(a[i]) + static_cast<double>(b[i]);
      out[i - begin] = static_cast<float>(exact);  // rounded to float once: the value a float add must give
      // [docs:end reference_rounding]
    }
  };
}

}  // namespace elementwise_add
