// Lesson 03, CPU side: y[i] = f(x[i]), f = `intensity` steps of v = v * a + b.
//
// Teaches: an honest CPU baseline is vectorized. Each element's steps form a chain (a step needs
// the previous v), so a plain loop over elements with the step loop inside waits on the latency
// of every multiply and add. Here a block of kBlock elements is loaded, the step loop runs
// OUTSIDE a short loop over the block, and that inner loop is what GCC vectorizes: 32 floats are
// 8 SSE (or 4 AVX) registers of independent chains, enough to keep the floating-point units busy.
//
// Bit-exact with the GPU: every element gets the same operations in the same order, each
// rounded to float. A compiler may contract v * a + b into one fused multiply-add (one rounding
// instead of two), which would change the last bit. GCC does not on plain x86-64 (no FMA unit
// without -mfma or -march=...), and the lesson's CMakeLists compiles this file with
// -ffp-contract=off so it does not on any target either. Vectorizing never changes the result:
// it runs the same per-element operations side by side and does not reorder them.
#include <omp.h>

#include <algorithm>
#include <vector>

#include "streams.hpp"

namespace streams {

namespace {

constexpr std::size_t kBlock = 32;

// [docs:transform_blocks]
// Whole blocks [first_block, last_block) of kBlock elements.
void transform_blocks(const float* x, float* y, std::size_t first_block, std::size_t last_block, int intensity) {
  for (std::size_t block = first_block; block < last_block; ++block) {
    float v[kBlock];
    const std::size_t base = block * kBlock;
    for (std::size_t j = 0; j < kBlock; ++j) v[j] = x[base + j];
    for (int k = 0; k < intensity; ++k) {
      for (std::size_t j = 0; j < kBlock; ++j) v[j] = v[j] * kA + kB;  // vectorized: kBlock chains at once
    }
    for (std::size_t j = 0; j < kBlock; ++j) y[base + j] = v[j];
  }
}
// [docs:end transform_blocks]

// The last n % kBlock elements, one at a time, with the same operations.
void transform_tail(const float* x, float* y, std::size_t begin, std::size_t end, int intensity) {
  for (std::size_t i = begin; i < end; ++i) {
    float v = x[i];
    for (int k = 0; k < intensity; ++k) v = v * kA + kB;
    y[i] = v;
  }
}

}  // namespace

void transform_serial(std::span<const float> x, std::span<float> y, int intensity) {
  const std::size_t blocks = x.size() / kBlock;
  transform_blocks(x.data(), y.data(), 0, blocks, intensity);
  transform_tail(x.data(), y.data(), blocks * kBlock, x.size(), intensity);
}

void transform_parallel(std::span<const float> x, std::span<float> y, int intensity) {
  const std::size_t blocks = x.size() / kBlock;
  const float* in = x.data();
  float* out = y.data();
  // Static schedule: every block costs the same, so equal contiguous ranges per thread.
#pragma omp parallel for schedule(static)
  for (std::size_t block = 0; block < blocks; ++block) transform_blocks(in, out, block, block + 1, intensity);
  transform_tail(in, out, blocks * kBlock, x.size(), intensity);
}

course::ReferenceBlock transform_reference(std::span<const float> x, int intensity) {
  // The definition, element by element, with nothing of the blocked version above: an
  // independent check of it (and of the GPU). verify() calls this in blocks, in parallel.
  return [x, intensity](std::size_t begin, std::size_t end, double* out) {
    for (std::size_t i = begin; i < end; ++i) {
      float v = x[i];
      for (int k = 0; k < intensity; ++k) v = v * kA + kB;
      out[i - begin] = v;
    }
  };
}

}  // namespace streams
