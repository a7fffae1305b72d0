// Lesson 05, CPU side: the escape counts on one core, on all cores, and on all cores with SIMD.
//
// Teaches:
//  - load imbalance: a pixel inside the set costs max_iters iterations, one far outside costs 1
//    or 2, so equal slices of the image are very unequal amounts of work. OpenMP's dynamic
//    schedule hands out one row at a time to whichever thread is free (schedule(static) would
//    leave the threads that got the rows through the middle of the set working alone);
//  - SIMD on the CPU: one core iterates a chunk of neighbouring pixels in vector lanes. Lanes
//    that escaped stop counting (a mask) but keep computing until the whole chunk is done: the
//    same divergence cost a GPU warp pays, in small;
//  - choosing the instruction set at run time: the default x86-64 target has SSE2 only (4 floats
//    per instruction, no FMA). The SIMD rows are compiled three times, for SSE2, AVX2+FMA and
//    AVX-512, and the best one this CPU supports is called; `std::fma` is one instruction in the
//    last two and a (correct, slow) library call in the first;
//  - exactness: this file is compiled with -ffp-contract=off (CMakeLists.txt), so g++ never fuses
//    a * b + c on its own; every operation is one IEEE rounding, and every method gives the same
//    counts bit for bit (the tests check it). Only the explicit fma() of the fused arithmetic fuses.
#include <omp.h>

#include <algorithm>
#include <stdexcept>
#include <string>

#include "course/progress.hpp"
#include "mandelbrot.hpp"

namespace mandelbrot {

namespace {

template <class Arith, class T>
[[gnu::always_inline]] inline void row_scalar(const Frame<T>& frame, int row, int max_iters, std::uint32_t* out) {
  const T cy = pixel_im(frame, row);
  for (int col = 0; col < frame.width; ++col) out[col] = escape_count<Arith>(pixel_re(frame, col), cy, max_iters);
}

// kLanes neighbouring pixels at a time; a lane's count stops growing at its escape iteration,
// which is exactly escape_count's answer (the same checks, in the same order, on the same values).
template <class Arith, int kLanes, class T>
[[gnu::always_inline]] inline void row_lanes(const Frame<T>& frame, int row, int max_iters, std::uint32_t* out) {
  const T cy = pixel_im(frame, row);
  for (int col0 = 0; col0 < frame.width; col0 += kLanes) {
    const int lanes = std::min(kLanes, frame.width - col0);
    T cx[kLanes], x[kLanes], y[kLanes];
    int alive[kLanes];
    std::uint32_t count[kLanes];
    for (int l = 0; l < kLanes; ++l) {
      cx[l] = pixel_re(frame, col0 + std::min(l, lanes - 1));  // spare lanes repeat the last pixel
      x[l] = 0;
      y[l] = 0;
      alive[l] = 1;
      count[l] = 0;
    }
    // [docs:simd_chunk]
    for (int i = 0; i < max_iters; ++i) {
      int active = 0;
#pragma omp simd reduction(+ : active)
      for (int l = 0; l < kLanes; ++l) {
        const int live = alive[l] & static_cast<int>(!Arith::escaped(x[l], y[l]));
        alive[l] = live;
        count[l] += static_cast<std::uint32_t>(live);
        active += live;
        T xl = x[l], yl = y[l];
        Arith::step(xl, yl, cx[l], cy);  // escaped lanes keep computing (they may overflow): masked out
        x[l] = xl;
        y[l] = yl;
      }
      if (active == 0) break;  // the whole chunk has escaped
    }
    // [docs:end simd_chunk]
    for (int l = 0; l < lanes; ++l) out[col0 + l] = count[l];
  }
}

// One row, scalar (kVectorBytes 0) or in lanes of two vectors of kVectorBytes each: two
// independent chains of dependent operations per core to interleave.
template <class Arith, int kVectorBytes, class T>
[[gnu::always_inline]] inline void row_any(const Frame<T>& frame, int row, int max_iters, std::uint32_t* out) {
  if constexpr (kVectorBytes == 0) {
    row_scalar<Arith>(frame, row, max_iters, out);
  } else {
    row_lanes<Arith, 2 * kVectorBytes / static_cast<int>(sizeof(T))>(frame, row, max_iters, out);
  }
}

// The same code, compiled for three instruction sets; the scalar rows get the hardware FMA too,
// so the one-thread row differs from the SIMD row by the lanes alone.
template <class Arith, bool kSimd, class T>
void row_sse2(const Frame<T>& frame, int row, int max_iters, std::uint32_t* out) {
  row_any<Arith, kSimd ? 16 : 0>(frame, row, max_iters, out);
}

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define MANDEL_HAVE_X86_VARIANTS 1
template <class Arith, bool kSimd, class T>
__attribute__((target("avx2,fma"))) void row_avx2(const Frame<T>& frame, int row, int max_iters,
                                                   std::uint32_t* out) {
  row_any<Arith, kSimd ? 32 : 0>(frame, row, max_iters, out);
}
template <class Arith, bool kSimd, class T>
__attribute__((target("avx512f,avx512vl,avx2,fma,prefer-vector-width=512"))) void row_avx512(
    const Frame<T>& frame, int row, int max_iters, std::uint32_t* out) {
  row_any<Arith, kSimd ? 64 : 0>(frame, row, max_iters, out);
}
#endif

enum class Isa { sse2, avx2, avx512 };

Isa best_isa() {
#if defined(MANDEL_HAVE_X86_VARIANTS)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl")) return Isa::avx512;
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return Isa::avx2;
#endif
  return Isa::sse2;
}

template <class T>
using RowFunction = void (*)(const Frame<T>&, int, int, std::uint32_t*);

template <class Arith, bool kSimd, class T>
RowFunction<T> row_function() {
#if defined(MANDEL_HAVE_X86_VARIANTS)
  switch (best_isa()) {
    case Isa::avx512: return row_avx512<Arith, kSimd, T>;
    case Isa::avx2: return row_avx2<Arith, kSimd, T>;
    case Isa::sse2: break;
  }
#endif
  return row_sse2<Arith, kSimd, T>;
}

template <class Arith, class T>
void render(const Frame<T>& frame, int max_iters, CpuMethod method, std::span<std::uint32_t> counts) {
  const auto width = static_cast<std::size_t>(frame.width);
  const RowFunction<T> row_of =
      method == CpuMethod::openmp_simd ? row_function<Arith, true, T>() : row_function<Arith, false, T>();
  // A line every few seconds when a frame takes long (10^8 iterations, a large image); quiet otherwise.
  course::Progress progress(std::string("CPU ") + (sizeof(T) == 4 ? "FP32" : "FP64") + " Mandelbrot (" +
                                (method == CpuMethod::serial ? "1 thread" : method == CpuMethod::openmp ? "OpenMP" : "OpenMP + SIMD") + ")",
                            static_cast<std::uint64_t>(frame.height), "rows");
  switch (method) {
    case CpuMethod::serial:
      for (int row = 0; row < frame.height; ++row) {
        row_of(frame, row, max_iters, counts.data() + static_cast<std::size_t>(row) * width);
        progress.advance();
      }
      return;
    case CpuMethod::openmp:
    case CpuMethod::openmp_simd:
      // One row at a time to whichever thread is free: rows through the set cost far more.
#pragma omp parallel for schedule(dynamic, 1)
      for (int row = 0; row < frame.height; ++row) {
        row_of(frame, row, max_iters, counts.data() + static_cast<std::size_t>(row) * width);
        progress.advance();
      }
      return;
  }
  throw std::invalid_argument("render_cpu: unknown method");
}

}  // namespace

template <class T>
void render_cpu(const Frame<T>& frame, int max_iters, Arithmetic arithmetic, CpuMethod method,
                std::span<std::uint32_t> counts) {
  if (counts.size() != static_cast<std::size_t>(frame.width) * static_cast<std::size_t>(frame.height)) {
    throw std::invalid_argument("render_cpu: counts must hold width * height elements");
  }
  if (arithmetic == Arithmetic::natural) {
    render<Natural<T>>(frame, max_iters, method, counts);
  } else {
    render<Fused<T>>(frame, max_iters, method, counts);
  }
}

template void render_cpu<float>(const Frame<float>&, int, Arithmetic, CpuMethod, std::span<std::uint32_t>);
template void render_cpu<double>(const Frame<double>&, int, Arithmetic, CpuMethod, std::span<std::uint32_t>);

std::string cpu_simd_description() {
  switch (best_isa()) {
    case Isa::avx512: return "AVX-512 + FMA";
    case Isa::avx2: return "AVX2 + FMA";
    case Isa::sse2: break;
  }
  return "SSE2 (the x86-64 baseline; fma() in software)";
}

void julia_cpu(const Frame<float>& frame, float kx, float ky, int max_iters, std::span<std::uint32_t> counts) {
  if (counts.size() != static_cast<std::size_t>(frame.width) * static_cast<std::size_t>(frame.height)) {
    throw std::invalid_argument("julia_cpu: counts must hold width * height elements");
  }
#pragma omp parallel for schedule(dynamic, 1)
  for (int row = 0; row < frame.height; ++row) {
    const float zy = pixel_im(frame, row);
    for (int col = 0; col < frame.width; ++col) {
      counts[static_cast<std::size_t>(row) * static_cast<std::size_t>(frame.width) + static_cast<std::size_t>(col)] =
          julia_count(pixel_re(frame, col), zy, kx, ky, max_iters);
    }
  }
}

}  // namespace mandelbrot
