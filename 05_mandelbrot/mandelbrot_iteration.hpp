// Lesson 05: the iteration z = z^2 + c itself, one header that both the CPU (g++) and the GPU
// (nvcc) compile.
//
// Teaches:
//  - the definition: z starts at 0 and z = z^2 + c repeats; the escape count of c is the first
//    iteration i at which |z_i|^2 >= 4 (after that |z| grows without bound), or max_iters if
//    that never happens within max_iters iterations (c is then taken to be in the set);
//  - __host__ __device__: one function body for both sides, so the CPU reference and the kernel
//    cannot drift apart in what they compute;
//  - floating-point contraction: nvcc turns a * b + c into one fused multiply-add (FMA, one
//    rounding) by default; g++ in ISO C++ mode (and this lesson's CPU files, -ffp-contract=off)
//    keeps two roundings. Written with plain operators ("natural" arithmetic), the same source
//    therefore gives slightly different numbers on the two sides, and near the boundary of the set
//    a last-bit difference can flip the escape iteration of a pixel. Written with explicit fma()
//    wherever a product meets a sum ("fused" arithmetic), nothing is left for a compiler to
//    contract: IEEE-754 defines fma's result exactly, so CPU and GPU give the same bits and the
//    same escape counts. The fused form is also the faster one on the GPU: 4 FP instructions per
//    iteration where the natural form compiles to 6 or 7.
#pragma once

#include <cmath>
#include <cstdint>

#if defined(__CUDACC__)
#define MANDEL_HD __host__ __device__
#else
#define MANDEL_HD
#endif

namespace mandelbrot {

// Where pixels sit in the complex plane, in the precision T of the computation. Pixel (col, row)
// is the point x_min + col * dx + i (y_max - row * dy): row 0 is the top of the image, the
// top-left corner of each pixel is its sample point (as in the classic version).
template <class T>
struct Frame {
  int width = 0;
  int height = 0;
  T x_min = 0, y_max = 0, dx = 0, dy = 0;
};

// a * b + c with one rounding, on whichever side compiles it.
template <class T>
MANDEL_HD inline T fused(T a, T b, T c) {
#if defined(__CUDA_ARCH__)
  if constexpr (sizeof(T) == 4) {
    return ::fmaf(a, b, c);  // one FFMA
  } else {
    return ::fma(a, b, c);   // one DFMA
  }
#else
  return std::fma(a, b, c);  // an FMA instruction where the CPU has one (see mandelbrot_cpu.cpp)
#endif
}

// The coordinates of a pixel, computed with one rounding each so CPU and GPU agree on c exactly.
template <class T>
MANDEL_HD inline T pixel_re(const Frame<T>& frame, int col) {
  return fused(static_cast<T>(col), frame.dx, frame.x_min);
}
template <class T>
MANDEL_HD inline T pixel_im(const Frame<T>& frame, int row) {
  return fused(static_cast<T>(-row), frame.dy, frame.y_max);
}

// ---- Natural arithmetic: the iteration as anyone first writes it ------------------------------
// [docs:natural]
template <class T>
struct Natural {
  // |z|^2 >= 4. Checked every iteration, z is finite here (|z| < 2 one iteration earlier).
  MANDEL_HD static bool escaped(T x, T y) { return x * x + y * y >= T(4); }
  MANDEL_HD static void step(T& x, T& y, T cx, T cy) {
    const T next_x = x * x - y * y + cx;  // Re(z^2 + c)
    y = T(2) * x * y + cy;                // Im(z^2 + c)
    x = next_x;
  }
};
// [docs:end natural]

// ---- Fused arithmetic: every product that meets a sum is an explicit fma ----------------------
// [docs:fused]
template <class T>
struct Fused {
  MANDEL_HD static bool escaped(T x, T y) { return fused(x, x, y * y) >= T(4); }
  MANDEL_HD static void step(T& x, T& y, T cx, T cy) {
    const T next_x = fused(x, x, fused(-y, y, cx));  // x^2 + (cx - y^2): two FMAs
    y = fused(x + x, y, cy);                          // 2xy + cy: an add (exact doubling) and an FMA
    x = next_x;
  }
};
// [docs:end fused]

// [docs:escape_count]
// The definition, one check per iteration: the escape count of c = cx + i cy.
template <class Arith, class T>
MANDEL_HD inline std::uint32_t escape_count(T cx, T cy, int max_iters) {
  T x = 0, y = 0;
  for (int i = 0; i < max_iters; ++i) {
    if (Arith::escaped(x, y)) return static_cast<std::uint32_t>(i);
    Arith::step(x, y, cx, cy);
  }
  return static_cast<std::uint32_t>(max_iters);
}

// The classic device function, natural arithmetic: mandel(x, y, max_iters).
template <class T>
MANDEL_HD inline std::uint32_t mandel(T x, T y, int max_iters) {
  return escape_count<Natural<T>>(x, y, max_iters);
}
// [docs:end escape_count]

// The same count, faster: kBlock iterations run without any check, then one check. When that
// check finds z escaped (or overflowed into infinity or NaN), z goes back to where it was before
// the block and the block is replayed one checked iteration at a time, so the count returned is
// exactly that of escape_count<Fused<T>>. This saves the compare and branch of kBlock - 1
// iterations out of kBlock: what remains is the 4 FP instructions of Fused::step.
// Why skipping checks cannot miss an escape: once |z| > 2 (and |c| <= 2), |z^2 + c| >= |z|^2 - |c|
// > |z|, so an orbit that has left the disc of radius 2 never comes back into it; the one check
// at the end of the block sees it. (|c| > 2 escapes at iteration 1 and keeps growing too.) The
// tests compare the two functions on every pixel of several views, the circle |c| = 2 included.
template <int kBlock, class T>
MANDEL_HD inline std::uint32_t mandel_fused_blocked(T cx, T cy, int max_iters) {
  using Arith = Fused<T>;
  T x = 0, y = 0;
  int i = 0;
  // [docs:blocked_loop]
  while (i + kBlock <= max_iters) {
    const T saved_x = x, saved_y = y;
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
    for (int k = 0; k < kBlock; ++k) Arith::step(x, y, cx, cy);
    // Not "escaped": true for a finite |z| < 2 only, so an infinity or NaN also stops the block.
    if (!(fused(x, x, y * y) < T(4))) {
      x = saved_x;
      y = saved_y;
      break;
    }
    i += kBlock;
  }
  for (; i < max_iters; ++i) {  // the replay of the last block, and the tail of max_iters % kBlock
    if (Arith::escaped(x, y)) return static_cast<std::uint32_t>(i);
    Arith::step(x, y, cx, cy);
  }
  // [docs:end blocked_loop]
  return static_cast<std::uint32_t>(max_iters);
}

}  // namespace mandelbrot
