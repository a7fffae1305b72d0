// Lesson 04: checking a float product against the double reference, with bounds that scale with K.
//
// Teaches: a float matmul cannot match a reference exactly (each of the k products and k - 1
// sums rounds, in an order that differs from kernel to kernel), and a fixed tolerance is either
// too loose for k = 8 or too tight for k = 8192. Two criteria that follow from the arithmetic:
//  - per element, the classic bound for any summation order (Higham, Accuracy and Stability of
//    Numerical Algorithms, 3.1): |c - exact| <= gamma(k) (|A| |B|)_ij, gamma(k) = k u / (1 - k u),
//    u = 2^-24. It is rigorous, so a correct kernel can never fail it, and any element that is
//    wrong by more than rounding can explain (a skipped term, a stale tile) fails it;
//  - for the whole matrix, ||c - exact||_2 / ||exact||_2 <= kNormFactor sqrt(k) u: rounding
//    errors of random sign grow like sqrt(k), so this is far tighter than k u and still holds
//    for every kernel of the lesson. It catches small systematic errors that stay under the
//    per-element bound: TF32 inputs (10-bit mantissa) fail it by a factor of ~10 at k = 4096.
// And when a check fails, a third computation says which side is wrong (arbitrate): a kernel
// that skipped part of K, or a reference whose library threads lost part of the product.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

#include "course/verify.hpp"
#include "matmul.hpp"

namespace matmul {

namespace {
constexpr double kUnitRoundoff = 1.0 / 16777216.0;  // 2^-24, float's unit roundoff
}

double gamma_bound(int k) { return course::gamma_bound(k, kUnitRoundoff); }

double rel_l2_bound(int k) { return kNormFactor * std::sqrt(static_cast<double>(std::max(k, 1))) * kUnitRoundoff; }

course::VerifyResult verify_product(std::span<const float> c, const Reference& reference) {
  course::VerifyResult result;
  result.count = c.size();
  const double gamma = gamma_bound(reference.k);
  double error_sq = 0, reference_sq = 0, error_l1 = 0, reference_l1 = 0;
  double worst_ratio = -1;  // |error| / allowed error, the element closest to (or furthest past) its bound
  for (std::size_t i = 0; i < c.size(); ++i) {
    const double value = c[i], exact = reference.c[i];
    // Allowed error: gamma (|A||B|)_ij, and at least one float ulp of the result's size at
    // k = 0 (then |A||B| is 0 and the only correct answer is exactly 0: allowed = 0).
    const double allowed = gamma * reference.abs_c[i];
    if (std::isnan(value)) {
      ++result.nan_count;
      ++result.mismatches;
      if (worst_ratio < INFINITY) { worst_ratio = INFINITY; result.worst_index = i; }
      continue;
    }
    if (std::isinf(value)) {
      ++result.inf_count;
      ++result.mismatches;
      if (worst_ratio < INFINITY) { worst_ratio = INFINITY; result.worst_index = i; }
      continue;
    }
    const double error = std::fabs(value - exact);
    if (error > allowed) ++result.mismatches;
    const double ratio = allowed > 0 ? error / allowed : (error > 0 ? INFINITY : 0.0);
    if (ratio > worst_ratio) {
      worst_ratio = ratio;
      result.worst_index = i;
    }
    result.max_abs_error = std::max(result.max_abs_error, error);
    if (exact != 0) result.max_rel_error = std::max(result.max_rel_error, error / std::fabs(exact));
    result.max_ulp_error = std::max(result.max_ulp_error, course::ulp_error(c[i], exact));
    error_sq += error * error;
    reference_sq += exact * exact;
    error_l1 += error;
    reference_l1 += std::fabs(exact);
  }
  const bool finite = result.nan_count == 0 && result.inf_count == 0;
  result.rel_l2_error = reference_sq > 0 ? std::sqrt(error_sq / reference_sq) : std::sqrt(error_sq);
  result.rel_l1_error = reference_l1 > 0 ? error_l1 / reference_l1 : error_l1;
  if (!c.empty()) {
    result.worst_value = c[result.worst_index];
    result.worst_reference = reference.c[result.worst_index];
  }
  // What the result was held to, in the report's words (VerifyResult::summary prints it).
  char text[160];
  std::snprintf(text, sizeof text, "per element gamma(%d) (|A||B|)_ij = %.3g (|A||B|)_ij, and rel L2 <= %.3g",
                reference.k, gamma, rel_l2_bound(reference.k));
  result.tolerance_text = text;
  result.norm_checked = true;
  result.rel_l2_bound = rel_l2_bound(reference.k);
  const bool norm_ok = finite && result.rel_l2_error <= result.rel_l2_bound;
  if (!norm_ok && result.mismatches == 0) result.mismatches = 1;  // the matrix as a whole fails
  result.passed = finite && result.mismatches == 0 && norm_ok;
  return result;
}

course::VerifyResult verify_exact(std::span<const float> c, std::span<const double> expected) {
  return course::verify(c, expected, course::Tolerance::exact());
}

namespace {

// Element i of A x B and of |A| x |B|, one thread, in the order p = 0 .. k-1. Each float product
// is exact in double; the sum's error is at most about k 2^-53 (|A||B|)_ij.
void recompute(std::span<const float> a, std::span<const float> b, int n, int k, std::size_t i, double& value,
               double& magnitude) {
  const std::size_t row = i / static_cast<std::size_t>(n), col = i % static_cast<std::size_t>(n);
  value = 0;
  magnitude = 0;
  for (int p = 0; p < k; ++p) {
    const double product = static_cast<double>(a[row * static_cast<std::size_t>(k) + static_cast<std::size_t>(p)]) *
                           static_cast<double>(b[static_cast<std::size_t>(p) * static_cast<std::size_t>(n) + col]);
    value += product;
    magnitude += std::fabs(product);
  }
}

// The elements to recompute: those that fail their bound (NaN included), or, if none does (only
// the norm failed), elements spread over all of C; at most `limit`, evenly spaced among them.
std::vector<std::size_t> elements_to_recompute(std::span<const float> result, const Reference& reference,
                                               std::size_t limit, std::size_t& failing) {
  std::vector<std::size_t> candidates;
  const double gamma = gamma_bound(reference.k);
  for (std::size_t i = 0; i < result.size(); ++i) {
    const double error = std::fabs(static_cast<double>(result[i]) - reference.c[i]);
    if (!(error <= gamma * reference.abs_c[i])) candidates.push_back(i);  // NaN: the comparison is false
  }
  failing = candidates.size();
  if (candidates.empty()) {
    candidates.resize(result.size());
    for (std::size_t i = 0; i < result.size(); ++i) candidates[i] = i;
  }
  if (candidates.size() <= limit) return candidates;
  std::vector<std::size_t> chosen(limit);
  for (std::size_t j = 0; j < limit; ++j) chosen[j] = candidates[j * candidates.size() / limit];
  return chosen;
}

}  // namespace

Arbitration arbitrate(std::span<const float> a, std::span<const float> b, int m, int n, int k,
                      std::span<const float> result, const Reference& reference, std::size_t max_elements) {
  const std::size_t count = static_cast<std::size_t>(m) * static_cast<std::size_t>(n);
  if (result.size() != count || reference.c.size() != count || a.size() != static_cast<std::size_t>(m) * k ||
      b.size() != static_cast<std::size_t>(k) * n) {
    throw std::invalid_argument("arbitrate: the spans do not match the shape " + std::to_string(m) + " x " +
                                std::to_string(n) + " x " + std::to_string(k));
  }
  Arbitration arbitration;
  const double gamma = gamma_bound(k);
  const double gamma_double = 2.0 * static_cast<double>(k) * 0x1p-53;  // the reference's and the third's error, with room
  for (const std::size_t i : elements_to_recompute(result, reference, max_elements, arbitration.failing)) {
    double third = 0, magnitude = 0;
    recompute(a, b, n, k, i, third, magnitude);
    ++arbitration.recomputed;
    const double result_error = std::fabs(static_cast<double>(result[i]) - third);
    if (!(result_error <= (gamma + gamma_double) * magnitude)) {
      if (arbitration.result_wrong++ == 0) arbitration.first_result_wrong = i;
    }
    const double reference_error = std::fabs(reference.c[i] - third);
    if (!(reference_error <= 2 * gamma_double * magnitude)) {
      if (arbitration.reference_wrong++ == 0) arbitration.first_reference_wrong = i;
    }
  }
  return arbitration;
}

std::string Arbitration::verdict() const {
  const std::string counts = "a third computation (one thread, double, no BLAS) of " + std::to_string(recomputed) +
                             " element(s) (of " + std::to_string(failing) +
                             " failing): the result disagrees with it at " + std::to_string(result_wrong) +
                             ", the reference at " + std::to_string(reference_wrong);
  std::string side;
  if (result_wrong > 0 && reference_wrong == 0) {
    side = "the RESULT is wrong (first at element " + std::to_string(first_result_wrong) + ")";
  } else if (reference_wrong > 0 && result_wrong == 0) {
    side = "the REFERENCE is wrong (first at element " + std::to_string(first_reference_wrong) + ")";
  } else if (result_wrong > 0) {
    side = "BOTH are wrong (result first at " + std::to_string(first_result_wrong) + ", reference first at " +
           std::to_string(first_reference_wrong) + ")";
  } else {
    side = "NEITHER disagrees at the recomputed elements (a failure of the norm alone, or spread too thin to sample)";
  }
  return side + "; " + counts;
}

}  // namespace matmul
