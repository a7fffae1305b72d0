// Lesson 01, part two, CPU side: the reference, the error bounds, and the CPU rows of the sum,
// the max and softmax (declared in reduce.hpp, which says what they teach).
//
// Teaches: the order of a float sum decides its error. The loop s += x[i] adds each element to
// an ever larger total, so late elements lose their low bits: at n = 2^24 values near 1 the
// total reaches 2^24, where the spacing of floats is 2, and adding ~1 rounds away half of it.
// Pairwise summation (halve, sum each half, add) passes each element through only log2(n)
// additions. Written with 16 independent lanes per block of 256 floats it is also the FAST
// order: the lanes are a SIMD register's worth of independent additions (the loop s += x[i] is
// one chain, one addition per cycle at best, and the compiler may not reorder it).
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "course/verify.hpp"
#include "reduce.hpp"

namespace vector_exp {

const char* reduction_name(Reduction op) { return op == Reduction::sum ? "sum" : "max"; }

double gamma(double depth) { return course::gamma_bound(depth, kUnitRoundoff); }

int ceil_log2(std::size_t n) {
  int levels = 0;
  while ((std::size_t{1} << levels) < n) ++levels;
  return levels;
}

// As a tolerance, capped at sum |x| itself (where the bound says nothing, the result must still
// be a number no further from the sum than that).
double sum_error_bound(double depth, double sum_abs) { return sum_abs == 0 ? 0 : std::min(gamma(depth), 1.0) * sum_abs; }

double grid_sum_depth(double per_thread, int threads, long long blocks, int combine_threads) {
  const double combine_loop = std::ceil(static_cast<double>(blocks) / combine_threads);
  return per_thread + ceil_log2(static_cast<std::size_t>(threads)) + combine_loop +
         ceil_log2(static_cast<std::size_t>(std::min<long long>(blocks, combine_threads)));
}

// ---- reference -------------------------------------------------------------------------------

namespace {

long double pairwise_long(const float* x, std::size_t n) {
  if (n <= 8) {
    long double s = 0;
    for (std::size_t i = 0; i < n; ++i) s += x[i];
    return s;
  }
  const std::size_t half = n / 2;
  return pairwise_long(x, half) + pairwise_long(x + half, n - half);
}

long double pairwise_long_abs(const float* x, std::size_t n) {
  if (n <= 8) {
    long double s = 0;
    for (std::size_t i = 0; i < n; ++i) s += std::fabs(x[i]);
    return s;
  }
  const std::size_t half = n / 2;
  return pairwise_long_abs(x, half) + pairwise_long_abs(x + half, n - half);
}

long double pairwise_shifted_exp(const float* x, std::size_t n, long double m) {
  if (n <= 8) {
    long double s = 0;
    for (std::size_t i = 0; i < n; ++i) s += std::exp(static_cast<long double>(x[i]) - m);
    return s;
  }
  const std::size_t half = n / 2;
  return pairwise_shifted_exp(x, half, m) + pairwise_shifted_exp(x + half, n - half, m);
}

}  // namespace

long double pairwise_sum_long(std::span<const float> x) { return pairwise_long(x.data(), x.size()); }

SumReference sum_reference(std::span<const float> x) {
  SumReference r;
  r.sum = pairwise_long(x.data(), x.size());
  r.sum_abs = pairwise_long_abs(x.data(), x.size());
  r.max = x.empty() ? -std::numeric_limits<float>::infinity() : *std::max_element(x.begin(), x.end());
  return r;
}

course::ReferenceBlock softmax_reference(std::span<const float> x, const SumReference& reference) {
  const long double m = reference.max;
  // 64 fixed slices summed by the cores at once (expl is slow: ~10 s for 2^28 on one core),
  // their sums added in order: the same result whatever the thread count.
  constexpr std::size_t kSlices = 64;
  long double slice_sums[kSlices] = {};
  const std::size_t n = x.size();
#pragma omp parallel for schedule(dynamic, 1)
  for (std::size_t s = 0; s < kSlices; ++s) {
    const std::size_t begin = n * s / kSlices, end = n * (s + 1) / kSlices;
    slice_sums[s] = pairwise_shifted_exp(x.data() + begin, end - begin, m);
  }
  long double total = 0;
  for (const long double slice : slice_sums) total += slice;
  return [x, m, total](std::size_t begin, std::size_t end, double* out) {
    for (std::size_t i = begin; i < end; ++i) {
      out[i - begin] = static_cast<double>(std::exp(static_cast<long double>(x[i]) - m) / total);
    }
  };
}

double softmax_tolerance(double depth, float x_min, float x_max) {
  const double spread = static_cast<double>(x_max) - static_cast<double>(x_min);
  return std::min(gamma(4 * depth + 2 * std::ceil(spread) + 16), 1.0);
}

// ---- the sum ---------------------------------------------------------------------------------

// [docs:naive_sum]
float sum_naive(std::span<const float> x) {
  float s = 0.0f;
  for (const float v : x) s += v;  // one chain: each addition waits for the previous one
  return s;
}
// [docs:end naive_sum]

namespace {

// [docs:pairwise]
// One block of at most kPairwiseBlock floats: 16 independent running sums (the compiler keeps
// them in SIMD registers), then those 16 combined as a tree (8 + 8, 4 + 4, 2 + 2, 1 + 1).
float block_sum(const float* x, std::size_t n) {
  float lane[16] = {};
  std::size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    for (int l = 0; l < 16; ++l) lane[l] += x[i + l];
  }
  for (int l = 0; i < n; ++i, ++l) lane[l] += x[i];
  for (int width = 8; width > 0; width /= 2) {
    for (int l = 0; l < width; ++l) lane[l] += lane[l + width];
  }
  return lane[0];
}

// Halve (at a block boundary) until one block is left: each element passes through
// kPairwiseBlock / 16 + 4 additions in its block, then one per level of halving.
float pairwise(const float* x, std::size_t n) {
  if (n <= kPairwiseBlock) return block_sum(x, n);
  const std::size_t blocks = (n + kPairwiseBlock - 1) / kPairwiseBlock;
  const std::size_t half = blocks / 2 * kPairwiseBlock;
  return pairwise(x, half) + pairwise(x + half, n - half);
}
// [docs:end pairwise]

// The slices of [0, n) for `threads` threads: equal, each a whole number of blocks.
std::size_t slice_begin(std::size_t n, std::size_t threads, std::size_t t) {
  const std::size_t blocks = (n + kPairwiseBlock - 1) / kPairwiseBlock;
  return std::min(n, (blocks * t / threads) * kPairwiseBlock);
}

// Pairwise over the threads' results, in thread order (the same bits for the same thread count).
float pairwise_of(const float* values, std::size_t count) {
  if (count == 1) return values[0];
  const std::size_t half = count / 2;
  return pairwise_of(values, half) + pairwise_of(values + half, count - half);
}

}  // namespace

double pairwise_depth(std::size_t n) {
  const std::size_t blocks = (n + kPairwiseBlock - 1) / kPairwiseBlock;
  return static_cast<double>(kPairwiseBlock / 16) + 4 + ceil_log2(blocks) + 1;
}

double pairwise_parallel_depth(std::size_t n) {
  return pairwise_depth(n) + ceil_log2(static_cast<std::size_t>(std::max(1, omp_get_max_threads())));
}

float sum_pairwise_simd(std::span<const float> x) { return x.empty() ? 0.0f : pairwise(x.data(), x.size()); }

float sum_pairwise_parallel(std::span<const float> x) {
  if (x.empty()) return 0.0f;
  std::vector<float> partial(static_cast<std::size_t>(std::max(1, omp_get_max_threads())), 0.0f);
  std::size_t used = 1;
#pragma omp parallel
  {
    const auto threads = static_cast<std::size_t>(omp_get_num_threads());
    const auto t = static_cast<std::size_t>(omp_get_thread_num());
    const std::size_t begin = slice_begin(x.size(), threads, t), end = slice_begin(x.size(), threads, t + 1);
    if (t < partial.size()) partial[t] = end > begin ? pairwise(x.data() + begin, end - begin) : 0.0f;
#pragma omp single
    used = std::min(threads, partial.size());
  }
  return pairwise_of(partial.data(), used);
}

// ---- the max ---------------------------------------------------------------------------------

float max_naive(std::span<const float> x) {
  float m = -std::numeric_limits<float>::infinity();
  for (const float v : x) m = std::max(m, v);
  return m;
}

float max_simd(std::span<const float> x) {
  float m = -std::numeric_limits<float>::infinity();
  const float* data = x.data();
  const std::size_t n = x.size();
#pragma omp simd reduction(max : m)
  for (std::size_t i = 0; i < n; ++i) m = std::max(m, data[i]);
  return m;
}

float max_parallel(std::span<const float> x) {
  float m = -std::numeric_limits<float>::infinity();
  const float* data = x.data();
  const std::size_t n = x.size();
#pragma omp parallel for simd reduction(max : m) schedule(static)
  for (std::size_t i = 0; i < n; ++i) m = std::max(m, data[i]);
  return m;
}

// ---- softmax ---------------------------------------------------------------------------------

// [docs:softmax_naive]
void softmax_naive(std::span<const float> x, std::span<float> y) {
  float m = -std::numeric_limits<float>::infinity();
  for (const float v : x) m = std::max(m, v);                         // pass 1: the max
  float s = 0.0f;
  for (const float v : x) s += std::exp(v - m);                        // pass 2: the sum
  for (std::size_t i = 0; i < x.size(); ++i) y[i] = std::exp(x[i] - m) / s;  // pass 3: y
}
// [docs:end softmax_naive]

namespace {

// exp(x - m) into y for [begin, end) in chunks that stay in the core's cache, returning their
// sum (pairwise per chunk, the chunks' sums added in order); then the caller scales by 1 / S.
constexpr std::size_t kChunk = 4096;

float shifted_exp_sum(const float* x, float* y, std::size_t begin, std::size_t end, float m) {
  std::vector<float> sums;
  for (std::size_t c = begin; c < end; c += kChunk) {
    const std::size_t stop = std::min(end, c + kChunk);
    for (std::size_t i = c; i < stop; ++i) y[i] = x[i] - m;
    exp_simd_serial(std::span<const float>(y + c, stop - c), std::span<float>(y + c, stop - c));
    sums.push_back(pairwise(y + c, stop - c));
  }
  return sums.empty() ? 0.0f : pairwise_of(sums.data(), sums.size());
}

void scale(float* y, std::size_t begin, std::size_t end, float factor) {
#pragma omp simd
  for (std::size_t i = begin; i < end; ++i) y[i] *= factor;
}

}  // namespace

void softmax_simd(std::span<const float> x, std::span<float> y) {
  const float m = max_simd(x);
  const float s = shifted_exp_sum(x.data(), y.data(), 0, x.size(), m);
  scale(y.data(), 0, x.size(), 1.0f / s);
}

void softmax_parallel(std::span<const float> x, std::span<float> y) {
  const float m = max_parallel(x);
  std::vector<float> partial(static_cast<std::size_t>(std::max(1, omp_get_max_threads())), 0.0f);
  std::size_t used = 1;
  float inverse = 0;
#pragma omp parallel
  {
    const auto threads = static_cast<std::size_t>(omp_get_num_threads());
    const auto t = static_cast<std::size_t>(omp_get_thread_num());
    const std::size_t begin = slice_begin(x.size(), threads, t), end = slice_begin(x.size(), threads, t + 1);
    if (t < partial.size()) partial[t] = shifted_exp_sum(x.data(), y.data(), begin, end, m);
#pragma omp barrier
#pragma omp single
    {
      used = std::min(threads, partial.size());
      inverse = 1.0f / pairwise_of(partial.data(), used);
    }
    scale(y.data(), begin, end, inverse);  // each thread scales its own slice
  }
}

}  // namespace vector_exp
