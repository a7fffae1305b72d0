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
#include <type_traits>
#include <vector>

#include "course/format.hpp"

namespace course {

namespace {

constexpr std::size_t kBlock = 16384;
constexpr double kInf = std::numeric_limits<double>::infinity();

// Spacing of T values at the magnitude of x (the size of one ULP there).
template <class T>
double ulp_at(double x) {
  constexpr int kDigits = std::numeric_limits<T>::digits;          // 24 for float, 53 for double
  constexpr int kMinExponent = std::numeric_limits<T>::min_exponent - 1;  // -126, -1022
  constexpr int kMaxExponent = std::numeric_limits<T>::max_exponent - 1;  // 127, 1023
  const double magnitude = std::fabs(x);
  if (magnitude >= static_cast<double>(std::numeric_limits<T>::max())) return std::ldexp(1.0, kMaxExponent - kDigits + 1);
  const T t = static_cast<T>(magnitude);
  const int exponent = t < std::numeric_limits<T>::min() ? kMinExponent : std::ilogb(t);
  return std::ldexp(1.0, exponent - kDigits + 1);
}

// From here on, round-to-nearest gives infinity in T (max plus half an ulp).
template <class T>
double overflow_threshold() {
  if constexpr (std::is_same_v<T, double>) {
    return kInf;
  } else {
    return std::ldexp(2.0 - std::ldexp(1.0, -24), 127);
  }
}

// R is the reference's type: double, or long double for a double result held against a more
// precise reference. Errors are computed in R, then kept as double (they are small numbers).
template <class T, class R = double>
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

  void add(std::size_t index, T value, R exact, const Tolerance& tolerance) {
    const double v = value;
    double reference = static_cast<double>(exact);
    if (std::isnan(reference)) {  // a reference must be a number; anything else is a bug
      ++mismatches;
      if (std::isnan(v)) ++nan_count;
      consider_worst(kInf, index, v, reference);
      return;
    }
    // A reference beyond T's range rounds to infinity in T: expect exactly that.
    if (std::fabs(reference) >= overflow_threshold<T>()) reference = std::copysign(kInf, reference);
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
    const double error = static_cast<double>(std::fabs(static_cast<R>(value) - exact));
    const double magnitude = std::fabs(reference);
    const double relative = magnitude > 0 ? error / magnitude : (error > 0 ? kInf : 0.0);
    const double ulps = error / ulp_at<T>(reference);
    max_abs = std::max(max_abs, error);
    max_rel = std::max(max_rel, relative);
    max_ulp = std::max(max_ulp, ulps);
    sum_abs_error += error;
    sum_abs_reference += magnitude;
    sum_sq_error += error * error;
    sum_sq_reference += magnitude * magnitude;

    if (!tolerance.per_element() && tolerance.rel_l2 > 0) {
      // Only the norm decides; the worst element is the one with the largest error.
      consider_worst(error, index, v, reference);
      return;
    }
    const bool within = error <= tolerance.abs || (tolerance.rel > 0 && error <= tolerance.rel * magnitude) ||
                        (tolerance.ulp > 0 && ulps <= tolerance.ulp);
    if (!within) ++mismatches;
    const double allowed = std::max({tolerance.abs, tolerance.rel * magnitude, tolerance.ulp * ulp_at<T>(reference)});
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
    if (other.worst_score >= 0) consider_worst(other.worst_score, other.worst_index, other.worst_value, other.worst_reference);
  }
};

std::string sci(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2e", value);
  return text;
}

std::string full(double value) {
  char text[40];
  std::snprintf(text, sizeof text, "%.9g", value);
  return text;
}

template <class T>
void check_same_size(std::span<const T> result, std::size_t reference_size) {
  if (result.size() != reference_size) {
    throw std::invalid_argument("verify: result has " + std::to_string(result.size()) + " elements, reference " +
                                std::to_string(reference_size));
  }
}

}  // namespace

std::string Tolerance::describe() const {
  std::vector<std::string> parts;
  if (abs > 0) parts.push_back("abs " + sci(abs));
  if (rel > 0) parts.push_back("rel " + sci(rel));
  if (ulp > 0) parts.push_back(format_fixed(ulp, 1) + " ulp");
  std::string text;
  for (std::size_t i = 0; i < parts.size(); ++i) text += (i ? " or " : "") + parts[i];
  if (rel_l2 > 0) text += (text.empty() ? "" : ", and ") + std::string("rel L2 <= ") + sci(rel_l2);
  return text.empty() ? "exact" : text;
}

std::string IntegerTolerance::describe() const {
  if (max_fraction <= 0 && max_difference <= 0) return "exact";
  std::string text = "at most " + format_fixed(100.0 * max_fraction, 3) + "% of elements differ";
  if (max_difference >= 0) text += ", each by at most " + std::to_string(max_difference);
  return text;
}

template <class T>
void poison_values(std::span<T> values) {
  if constexpr (std::is_floating_point_v<T>) {
    std::fill(values.begin(), values.end(), std::numeric_limits<T>::quiet_NaN());
  } else {
    std::fill(values.begin(), values.end(), static_cast<T>(~T{0}));
  }
}

void poison(std::span<float> values) { poison_values(values); }
void poison(std::span<double> values) { poison_values(values); }
void poison(std::span<std::int32_t> values) { poison_values(values); }
void poison(std::span<std::uint32_t> values) { poison_values(values); }
void poison(std::span<std::uint16_t> values) { poison_values(values); }
void poison(std::span<std::uint8_t> values) { poison_values(values); }

double ulp_error(float value, double reference) {
  if (std::isnan(value) || std::isnan(reference)) return std::numeric_limits<double>::quiet_NaN();
  if (std::fabs(reference) >= overflow_threshold<float>()) reference = std::copysign(kInf, reference);
  if (std::isinf(value) || std::isinf(reference)) return static_cast<double>(value) == reference ? 0.0 : kInf;
  return std::fabs(static_cast<double>(value) - reference) / ulp_at<float>(reference);
}

std::string VerifyResult::summary() const {
  std::ostringstream out;
  out << (passed ? "passed" : "FAILED") << " (tolerance " << tolerance_text << "): ";
  if (!passed || allowed_mismatches > 0) {
    out << format_count(mismatches) << " of " << format_count(count) << " elements differ";
    if (allowed_mismatches > 0) out << " (" << format_count(allowed_mismatches) << " allowed)";
    if (nan_count) out << ", " << format_count(nan_count) << " NaN";
    if (inf_count) out << ", " << format_count(inf_count) << " Inf";
    if (mismatches > 0) {
      out << "; worst [" << worst_index << "] = " << full(worst_value) << " vs reference " << full(worst_reference);
    }
    out << "; ";
  }
  if (norm_checked && !passed && rel_l2_error > rel_l2_bound) out << "rel L2 " << sci(rel_l2_error) << " > bound; ";
  if (ulp_in_summary) out << "max error " << format_fixed(max_ulp_error, 2) << " ulp, ";
  out << "max abs " << sci(max_abs_error) << ", rel L2 " << sci(rel_l2_error);
  return out.str();
}

template <class T, class R, class Block>
VerifyResult verify_blocks(std::span<const T> result, const Block& reference, Tolerance tolerance) {
  const std::size_t n = result.size();
  const std::size_t blocks = (n + kBlock - 1) / kBlock;
  Accumulator<T, R> total;
#pragma omp parallel
  {
    Accumulator<T, R> local;
    std::vector<R> expected(kBlock);
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
  out.tolerance_text = tolerance.describe();
  out.mismatches = total.mismatches;
  out.nan_count = total.nan_count;
  out.inf_count = total.inf_count;
  out.max_abs_error = total.max_abs;
  out.max_rel_error = total.max_rel;
  out.max_ulp_error = total.max_ulp;
  out.ulp_in_summary = tolerance.abs == 0 && tolerance.rel == 0 && tolerance.rel_l2 == 0;
  out.rel_l1_error = total.sum_abs_reference > 0 ? total.sum_abs_error / total.sum_abs_reference : total.sum_abs_error;
  out.rel_l2_error =
      total.sum_sq_reference > 0 ? std::sqrt(total.sum_sq_error / total.sum_sq_reference) : std::sqrt(total.sum_sq_error);
  out.worst_index = total.worst_index;
  out.worst_value = total.worst_value;
  out.worst_reference = total.worst_reference;
  out.norm_checked = tolerance.rel_l2 > 0;
  out.rel_l2_bound = tolerance.rel_l2;
  out.passed = total.mismatches == 0 && (!out.norm_checked || out.rel_l2_error <= tolerance.rel_l2);
  return out;
}

template <class T>
VerifyResult verify(std::span<const T> result, const ReferenceBlock& reference, Tolerance tolerance) {
  return verify_blocks<T, double>(result, reference, tolerance);
}

VerifyResult verify(std::span<const double> result, const LongReferenceBlock& reference, Tolerance tolerance) {
  return verify_blocks<double, long double>(result, reference, tolerance);
}

VerifyResult verify(std::span<const double> result, std::span<const long double> reference, Tolerance tolerance) {
  check_same_size(result, reference.size());
  return verify(result, long_reference_of(reference), tolerance);
}

LongReferenceBlock long_reference_of(std::span<const long double> values) {
  return [values](std::size_t begin, std::size_t end, long double* out) {
    std::copy(values.begin() + begin, values.begin() + end, out);
  };
}

template <class T>
VerifyResult verify(std::span<const T> result, std::span<const double> reference, Tolerance tolerance) {
  check_same_size(result, reference.size());
  return verify<T>(
      result,
      [&](std::size_t begin, std::size_t end, double* out) { std::copy(reference.begin() + begin, reference.begin() + end, out); },
      tolerance);
}

VerifyResult verify(std::span<const float> result, std::span<const float> reference, Tolerance tolerance) {
  check_same_size(result, reference.size());
  return verify<float>(
      result,
      [&](std::size_t begin, std::size_t end, double* out) {
        for (std::size_t i = begin; i < end; ++i) out[i - begin] = reference[i];
      },
      tolerance);
}

ReferenceBlock reference_of(std::span<const double> values) {
  return [values](std::size_t begin, std::size_t end, double* out) {
    std::copy(values.begin() + begin, values.begin() + end, out);
  };
}

ReferenceBlock reference_of(std::span<const float> values) {
  return [values](std::size_t begin, std::size_t end, double* out) {
    for (std::size_t i = begin; i < end; ++i) out[i - begin] = values[i];
  };
}

template <class T>
VerifyResult verify_integers(std::span<const T> result, std::span<const T> reference, IntegerTolerance tolerance) {
  check_same_size(result, reference.size());
  const std::size_t n = result.size();
  std::size_t mismatches = 0, worst_index = 0;
  double max_difference = -1, sum_abs = 0, sum_sq = 0, sum_abs_ref = 0, sum_sq_ref = 0;
#pragma omp parallel
  {
    std::size_t local_mismatches = 0, local_worst = 0;
    double local_max = -1, l_abs = 0, l_sq = 0, l_abs_ref = 0, l_sq_ref = 0;
#pragma omp for schedule(static)
    for (std::size_t i = 0; i < n; ++i) {
      const double difference = std::fabs(static_cast<double>(result[i]) - static_cast<double>(reference[i]));
      const double magnitude = std::fabs(static_cast<double>(reference[i]));
      l_abs += difference;
      l_sq += difference * difference;
      l_abs_ref += magnitude;
      l_sq_ref += magnitude * magnitude;
      if (difference != 0) ++local_mismatches;
      if (difference > local_max) {
        local_max = difference;
        local_worst = i;
      }
    }
#pragma omp critical(course_verify_integers_merge)
    {
      mismatches += local_mismatches;
      sum_abs += l_abs;
      sum_sq += l_sq;
      sum_abs_ref += l_abs_ref;
      sum_sq_ref += l_sq_ref;
      if (local_max > max_difference || (local_max == max_difference && local_worst < worst_index)) {
        max_difference = local_max;
        worst_index = local_worst;
      }
    }
  }
  VerifyResult out;
  out.count = n;
  out.tolerance_text = tolerance.describe();
  out.mismatches = mismatches;
  out.allowed_mismatches = static_cast<std::size_t>(std::floor(tolerance.max_fraction * static_cast<double>(n)));
  out.max_abs_error = std::max(0.0, max_difference);
  out.rel_l1_error = sum_abs_ref > 0 ? sum_abs / sum_abs_ref : sum_abs;
  out.rel_l2_error = sum_sq_ref > 0 ? std::sqrt(sum_sq / sum_sq_ref) : std::sqrt(sum_sq);
  out.worst_index = worst_index;
  if (n > 0) {
    out.worst_value = static_cast<double>(result[worst_index]);
    out.worst_reference = static_cast<double>(reference[worst_index]);
  }
  const bool difference_ok = tolerance.max_difference < 0 || out.max_abs_error <= static_cast<double>(tolerance.max_difference);
  out.passed = mismatches <= out.allowed_mismatches && (mismatches == 0 || difference_ok);
  return out;
}

template VerifyResult verify<float>(std::span<const float>, const ReferenceBlock&, Tolerance);
template VerifyResult verify<double>(std::span<const double>, const ReferenceBlock&, Tolerance);
template VerifyResult verify<float>(std::span<const float>, std::span<const double>, Tolerance);
template VerifyResult verify<double>(std::span<const double>, std::span<const double>, Tolerance);
template VerifyResult verify_integers<std::int32_t>(std::span<const std::int32_t>, std::span<const std::int32_t>, IntegerTolerance);
template VerifyResult verify_integers<std::uint32_t>(std::span<const std::uint32_t>, std::span<const std::uint32_t>, IntegerTolerance);
template VerifyResult verify_integers<std::uint16_t>(std::span<const std::uint16_t>, std::span<const std::uint16_t>, IntegerTolerance);
template VerifyResult verify_integers<std::uint8_t>(std::span<const std::uint8_t>, std::span<const std::uint8_t>, IntegerTolerance);
template VerifyResult verify_integers<std::int64_t>(std::span<const std::int64_t>, std::span<const std::int64_t>, IntegerTolerance);

}  // namespace course
