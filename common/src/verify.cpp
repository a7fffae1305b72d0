// Element-by-element comparison with a reference, in parallel blocks.
#include "course/verify.hpp"

#include <omp.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "course/format.hpp"

namespace course {

namespace {

constexpr std::size_t kBlock = 16384;
constexpr double kInf = std::numeric_limits<double>::infinity();
// FLT_MAX plus half an ulp: from here on, round-to-nearest gives infinity in float.
const double kFloatOverflow = std::ldexp(2.0 - std::ldexp(1.0, -24), 127);

// Spacing of float values at the magnitude of x (the size of one ULP there).
double float_ulp_at(double x) {
  const double magnitude = std::fabs(x);
  if (magnitude >= static_cast<double>(FLT_MAX)) return std::ldexp(1.0, 127 - 23);
  const float f = static_cast<float>(magnitude);
  const int exponent = f < FLT_MIN ? -126 : std::ilogb(f);
  return std::ldexp(1.0, exponent - 23);
}

struct Accumulator {
  std::size_t mismatches = 0, nan_count = 0, inf_count = 0;
  double max_abs = 0, max_rel = 0, max_ulp = 0;
  double sum_abs_error = 0, sum_abs_reference = 0, sum_sq_error = 0, sum_sq_reference = 0;
  double worst_score = -1;
  std::size_t worst_index = 0;
  double worst_value = 0, worst_reference = 0;

  void consider_worst(double score, std::size_t index, double value, double reference) {
    if (score > worst_score || (score == worst_score && index < worst_index)) {
      worst_score = score;
      worst_index = index;
      worst_value = value;
      worst_reference = reference;
    }
  }

  void add(std::size_t index, float value, double reference, const Tolerance& tolerance) {
    const double v = value;
    if (std::isnan(reference)) {  // a reference must be a number; anything else is a bug
      ++mismatches;
      if (std::isnan(v)) ++nan_count;
      consider_worst(kInf, index, v, reference);
      return;
    }
    // A double reference beyond float's range rounds to infinity in float: expect exactly that.
    if (std::fabs(reference) >= kFloatOverflow) reference = std::copysign(kInf, reference);
    if (std::isnan(v)) {  // NaN never passes
      ++nan_count;
      ++mismatches;
      consider_worst(kInf, index, v, reference);
      return;
    }
    if (std::isinf(v) || std::isinf(reference)) {
      if (v != reference) {  // only the same infinity matches an infinity
        if (std::isinf(v)) ++inf_count;
        ++mismatches;
        consider_worst(kInf, index, v, reference);
      }
      return;
    }
    const double error = std::fabs(v - reference);
    const double magnitude = std::fabs(reference);
    const double relative = magnitude > 0 ? error / magnitude : (error > 0 ? kInf : 0.0);
    const double ulps = error / float_ulp_at(reference);
    max_abs = std::max(max_abs, error);
    max_rel = std::max(max_rel, relative);
    max_ulp = std::max(max_ulp, ulps);
    sum_abs_error += error;
    sum_abs_reference += magnitude;
    sum_sq_error += error * error;
    sum_sq_reference += magnitude * magnitude;

    const bool within = error <= tolerance.abs || (tolerance.rel > 0 && error <= tolerance.rel * magnitude) ||
                        (tolerance.ulp > 0 && ulps <= tolerance.ulp);
    if (!within) ++mismatches;
    const double allowed = std::max({tolerance.abs, tolerance.rel * magnitude,
                                     tolerance.ulp * float_ulp_at(reference)});
    const double score = allowed > 0 ? error / allowed : (error > 0 ? kInf : 0.0);
    consider_worst(within ? score : std::max(score, 1.0 + score), index, v, reference);
  }

  void merge(const Accumulator& other) {
    mismatches += other.mismatches;
    nan_count += other.nan_count;
    inf_count += other.inf_count;
    max_abs = std::max(max_abs, other.max_abs);
    max_rel = std::max(max_rel, other.max_rel);
    max_ulp = std::max(max_ulp, other.max_ulp);
    sum_abs_error += other.sum_abs_error;
    sum_abs_reference += other.sum_abs_reference;
    sum_sq_error += other.sum_sq_error;
    sum_sq_reference += other.sum_sq_reference;
    if (other.worst_score >= 0) consider_worst(other.worst_score, other.worst_index, other.worst_value,
                                               other.worst_reference);
  }
};

std::string sci(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2e", value);
  return text;
}

}  // namespace

std::string Tolerance::describe() const {
  std::vector<std::string> parts;
  if (abs > 0) parts.push_back("abs " + sci(abs));
  if (rel > 0) parts.push_back("rel " + sci(rel));
  if (ulp > 0) parts.push_back(format_fixed(ulp, 1) + " ulp");
  if (parts.empty()) return "exact";
  std::string text = parts[0];
  for (std::size_t i = 1; i < parts.size(); ++i) text += " or " + parts[i];
  return text;
}

void poison(std::span<float> values) {
  std::fill(values.begin(), values.end(), std::numeric_limits<float>::quiet_NaN());
}

double ulp_error(float value, double reference) {
  if (std::isnan(value) || std::isnan(reference)) return std::numeric_limits<double>::quiet_NaN();
  if (std::fabs(reference) >= kFloatOverflow) reference = std::copysign(kInf, reference);
  if (std::isinf(value) || std::isinf(reference)) return static_cast<double>(value) == reference ? 0.0 : kInf;
  return std::fabs(static_cast<double>(value) - reference) / float_ulp_at(reference);
}

std::string VerifyResult::summary() const {
  std::ostringstream out;
  out << (passed ? "passed" : "FAILED") << " (tolerance " << tolerance.describe() << "): ";
  if (!passed) {
    out << format_count(mismatches) << " of " << format_count(count) << " elements wrong";
    if (nan_count) out << ", " << format_count(nan_count) << " NaN";
    if (inf_count) out << ", " << format_count(inf_count) << " Inf";
    out << "; worst [" << worst_index << "] = " << worst_value << " vs reference " << worst_reference << "; ";
  }
  out << "max error " << format_fixed(max_ulp_error, 2) << " ulp, max rel " << sci(max_rel_error)
      << ", rel L2 " << sci(rel_l2_error);
  return out.str();
}

VerifyResult verify(std::span<const float> result, const ReferenceBlock& reference, Tolerance tolerance) {
  const std::size_t n = result.size();
  const std::size_t blocks = (n + kBlock - 1) / kBlock;
  Accumulator total;
#pragma omp parallel
  {
    Accumulator local;
    std::vector<double> expected(kBlock);
#pragma omp for schedule(static)
    for (std::size_t b = 0; b < blocks; ++b) {
      const std::size_t begin = b * kBlock;
      const std::size_t end = std::min(n, begin + kBlock);
      reference(begin, end, expected.data());
      for (std::size_t i = begin; i < end; ++i) local.add(i, result[i], expected[i - begin], tolerance);
    }
#pragma omp critical(course_verify_merge)
    total.merge(local);
  }

  VerifyResult out;
  out.count = n;
  out.tolerance = tolerance;
  out.mismatches = total.mismatches;
  out.nan_count = total.nan_count;
  out.inf_count = total.inf_count;
  out.max_abs_error = total.max_abs;
  out.max_rel_error = total.max_rel;
  out.max_ulp_error = total.max_ulp;
  out.rel_l1_error = total.sum_abs_reference > 0 ? total.sum_abs_error / total.sum_abs_reference : total.sum_abs_error;
  out.rel_l2_error =
      total.sum_sq_reference > 0 ? std::sqrt(total.sum_sq_error / total.sum_sq_reference) : std::sqrt(total.sum_sq_error);
  out.worst_index = total.worst_index;
  out.worst_value = total.worst_value;
  out.worst_reference = total.worst_reference;
  out.passed = total.mismatches == 0;
  return out;
}

VerifyResult verify(std::span<const float> result, std::span<const double> reference, Tolerance tolerance) {
  if (result.size() != reference.size()) {
    throw std::invalid_argument("verify: result has " + std::to_string(result.size()) + " elements, reference " +
                                std::to_string(reference.size()));
  }
  return verify(
      result,
      [&](std::size_t begin, std::size_t end, double* out) { std::copy(&reference[begin], &reference[0] + end, out); },
      tolerance);
}

VerifyResult verify(std::span<const float> result, std::span<const float> reference, Tolerance tolerance) {
  if (result.size() != reference.size()) {
    throw std::invalid_argument("verify: result has " + std::to_string(result.size()) + " elements, reference " +
                                std::to_string(reference.size()));
  }
  return verify(
      result,
      [&](std::size_t begin, std::size_t end, double* out) {
        for (std::size_t i = begin; i < end; ++i) out[i - begin] = reference[i];
      },
      tolerance);
}

}  // namespace course
