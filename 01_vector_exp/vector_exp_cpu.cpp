// Lesson 01, CPU side: the baselines and the reference.
//
// Teaches: the honest CPU baseline is optimized C++ on one core AND on all cores (OpenMP);
// a GPU speedup quoted against one core alone overstates the GPU by the core count.
// The reference is computed in double, so it is more accurate than any float version and
// the error of each float version can be measured against it.
#include <omp.h>

#include <algorithm>
#include <cmath>

#include "vector_exp.hpp"

namespace vector_exp {

// [docs:exp_serial]
void exp_serial(std::span<const float> x, std::span<float> y) {
  for (std::size_t i = 0; i < x.size(); ++i) y[i] = std::exp(x[i]);  // float overload: expf
}

void exp_parallel(std::span<const float> x, std::span<float> y) {
  const std::size_t n = x.size();
  // Static schedule: every element costs the same, so equal contiguous slices per thread.
#pragma omp parallel for schedule(static)
  for (std::size_t i = 0; i < n; ++i) y[i] = std::exp(x[i]);
}
// [docs:end exp_serial]

// [docs:exp_reference]
course::ReferenceBlock exp_reference(std::span<const float> x) {
  return [x](std::size_t begin, std::size_t end, double* out) {
    for (std::size_t i = begin; i < end; ++i) out[i - begin] = std::exp(static_cast<double>(x[i]));
  };
}
// [docs:end exp_reference]

double max_abs(std::span<const float> x) {
  float largest = 0.0f;
#pragma omp parallel for reduction(max : largest) schedule(static)
  for (std::size_t i = 0; i < x.size(); ++i) largest = std::max(largest, std::fabs(x[i]));
  return largest;
}

}  // namespace vector_exp
