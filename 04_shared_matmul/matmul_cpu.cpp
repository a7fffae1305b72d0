// Lesson 04, CPU side: the textbook loops, a cache-blocked OpenMP version, and OpenBLAS.
//
// Teaches:
//  - the naive i-j-p loop reads B down a column (stride n floats): every load touches a new
//    cache line, and the loop runs at a fraction of a GFLOP/s once B outgrows the caches;
//  - blocking: the same arithmetic reordered over tiles that stay in cache, with the innermost
//    loop running along rows of B and C (unit stride), which the compiler vectorises;
//  - a tuned library: OpenBLAS's sgemm adds register blocking, packing and hand-written
//    assembly kernels on top, and is the CPU number a GPU should be held against (loaded with
//    the kernels this CPU can run: openblas.cpp).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "course/progress.hpp"
#include "matmul.hpp"

namespace matmul {

namespace {
std::size_t idx(int row, int col, int cols) {
  return static_cast<std::size_t>(row) * static_cast<std::size_t>(cols) + static_cast<std::size_t>(col);
}
}  // namespace

void matmul_naive(std::span<const float> a, std::span<const float> b, std::span<float> c, int m, int n, int k) {
  // --cpu-naive at 2048^3 runs for minutes: a line every few seconds (quiet when it is quick).
  course::Progress progress("CPU naive i-j-p loops", static_cast<std::uint64_t>(m), "rows of C");
  // [docs:cpu_naive]
  for (int i = 0; i < m; ++i) {
    for (int j = 0; j < n; ++j) {
      float sum = 0.0f;
      for (int p = 0; p < k; ++p) sum += a[idx(i, p, k)] * b[idx(p, j, n)];
      c[idx(i, j, n)] = sum;
    }
    progress.advance();
  }
  // [docs:end cpu_naive]
}

void matmul_blocked(std::span<const float> a, std::span<const float> b, std::span<float> c, int m, int n, int k) {
  // A 64 x 256 block of C (64 KiB) and a 256 x 256 block of B (256 KiB) stay in L2 while the
  // 64 x 256 block of A streams through: each element of B fetched into cache is used 64 times.
  constexpr int kBlockM = 64, kBlockN = 256, kBlockK = 256;
  const int blocks_m = (m + kBlockM - 1) / kBlockM, blocks_n = (n + kBlockN - 1) / kBlockN;
#pragma omp parallel for collapse(2) schedule(static)
  for (int bi = 0; bi < blocks_m; ++bi) {
    for (int bj = 0; bj < blocks_n; ++bj) {
      const int i0 = bi * kBlockM, i1 = std::min(m, i0 + kBlockM);
      const int j0 = bj * kBlockN, j1 = std::min(n, j0 + kBlockN);
      for (int i = i0; i < i1; ++i) std::fill(&c[idx(i, j0, n)], &c[idx(i, j0, n)] + (j1 - j0), 0.0f);
      for (int p0 = 0; p0 < k; p0 += kBlockK) {
        const int p1 = std::min(k, p0 + kBlockK);
        for (int i = i0; i < i1; ++i) {
          float* c_row = &c[idx(i, 0, n)];
          for (int p = p0; p < p1; ++p) {
            const float a_ip = a[idx(i, p, k)];
            const float* b_row = &b[idx(p, 0, n)];
            // c[i][j0:j1] += a[i][p] * b[p][j0:j1]: unit stride, vectorised.
#pragma omp simd
            for (int j = j0; j < j1; ++j) c_row[j] += a_ip * b_row[j];
          }
        }
      }
    }
  }
}

void matmul_openblas(std::span<const float> a, std::span<const float> b, std::span<float> c, int m, int n, int k) {
  openblas_sgemm(m, n, k, a.data(), b.data(), c.data());
}

Reference reference_product(std::span<const float> a, std::span<const float> b, int m, int n, int k) {
  // The same float inputs, widened to double (exactly), multiplied in double: its error is
  // about 2^-53 relative, 2^29 times below float's, so it stands in for the exact product.
  // Two DGEMMs (the product and |A| |B|), each in panels of rows of C, so that a product of
  // minutes (7919^3) can say how far it is.
  std::vector<double> a64(a.begin(), a.end()), b64(b.begin(), b.end());
  Reference reference;
  reference.k = k;
  reference.c.assign(static_cast<std::size_t>(m) * static_cast<std::size_t>(n), 0.0);
  reference.abs_c.assign(reference.c.size(), 0.0);
  const double flops = 2.0 * m * n * k;
  const int panel = flops > 1e10 ? std::max(1, m / 32) : std::max(1, m);
  course::Progress progress("double-precision reference product", 2 * static_cast<std::uint64_t>(m), "rows");
  auto product = [&](std::vector<double>& c) {
    for (int row = 0; row < m; row += panel) {
      const int rows = std::min(panel, m - row);
      openblas_dgemm(rows, n, k, a64.data() + idx(row, 0, k), b64.data(), c.data() + idx(row, 0, n));
      progress.advance(static_cast<std::uint64_t>(rows));
    }
  };
  product(reference.c);
  for (double& x : a64) x = x < 0 ? -x : x;
  for (double& x : b64) x = x < 0 ? -x : x;
  product(reference.abs_c);
  return reference;
}

}  // namespace matmul
