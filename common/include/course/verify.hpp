// Comparing a result with a reference, in a way that can fail.
//
// Teaches: "looks right" is not a check. Each element is compared with a reference computed
// independently (in double where rounding matters), against a tolerance chosen from what the
// arithmetic can promise: 0 for an IEEE add, a few ULP for expf, a bound on the relative L2
// norm of the error for a long reduction (a matrix product), where the error of one element
// grows with the reduction length but the error of the whole stays small. A NaN never passes,
// an infinity passes only where the reference is the same infinity, and an output that was
// never written (poisoned beforehand) fails.
//
// Three kinds of result, three kinds of check:
//   floating point (float, double)  per element (abs / rel / ULP) and/or the relative L2 norm
//   integers exactly                verify_integers(..., IntegerTolerance::exact())
//   integers, a few may differ      IntegerTolerance::at_most(fraction, by): e.g. escape counts
//                                   that rounding flips at a fractal's boundary
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <span>
#include <string>

namespace course {

// float's unit roundoff u = 2^-24 and Higham's gamma(n) = n u / (1 - n u): the bound on the
// relative error of n float operations in a row (a sum, a dot product), the lessons' tolerances
// are built from. +inf where n u >= 1: the bound says nothing there.
inline constexpr double kFloatUnitRoundoff = 0x1p-24;
inline double gamma_bound(double n, double unit_roundoff = kFloatUnitRoundoff) {
  const double nu = n * unit_roundoff;
  return nu >= 1 ? std::numeric_limits<double>::infinity() : nu / (1 - nu);
}

// A floating-point element passes if ANY enabled per-element criterion holds; with none
// enabled and no norm bound, exact equality is required. With `rel_l2` set, the relative L2
// norm of the whole error must also be within it (and, if no per-element criterion is set,
// each element only has to be a finite number where the reference is finite).
struct Tolerance {
  double abs = 0;     // |result - reference| <= abs
  double rel = 0;     // |result - reference| <= rel * |reference|
  double ulp = 0;     // error in ULPs of the result's type <= ulp
  double rel_l2 = 0;  // ||result - reference||_2 / ||reference||_2 <= rel_l2

  static Tolerance exact() { return {}; }
  static Tolerance ulps(double max_ulp) { return {0, 0, max_ulp, 0}; }
  static Tolerance relative(double max_rel, double max_abs = 0) { return {max_abs, max_rel, 0, 0}; }
  static Tolerance norm(double max_rel_l2) { return {0, 0, 0, max_rel_l2}; }
  bool per_element() const { return abs > 0 || rel > 0 || ulp > 0; }
  std::string describe() const;
};

// For integer results: how many elements may differ, and by how much.
struct IntegerTolerance {
  double max_fraction = 0;           // mismatching elements / all elements <= this
  std::int64_t max_difference = -1;  // |result - reference| of any element <= this; -1: any
  static IntegerTolerance exact() { return {0, 0}; }
  static IntegerTolerance at_most(double fraction, std::int64_t difference = -1) { return {fraction, difference}; }
  std::string describe() const;
};

struct VerifyResult {
  std::size_t count = 0;
  std::size_t mismatches = 0;    // elements outside the tolerance (NaN/Inf included)
  std::size_t allowed_mismatches = 0;  // integers with a bounded fraction: how many may differ
  std::size_t nan_count = 0;     // NaN in the result
  std::size_t inf_count = 0;     // infinity in the result where the reference is finite
  double max_abs_error = 0;
  double max_rel_error = 0;
  double rel_l1_error = 0;       // sum|r - ref| / sum|ref|
  double rel_l2_error = 0;       // ||r - ref||_2 / ||ref||_2
  double max_ulp_error = 0;      // in units of the result type's spacing at the reference
  bool ulp_in_summary = true;    // false for absolute, relative or norm tolerances: near a zero
                                 // reference an error in ulps is huge and means nothing
  std::size_t worst_index = 0;   // the element furthest outside (or nearest to) its tolerance
  double worst_value = 0, worst_reference = 0;
  std::string tolerance_text;    // what the result was held to, in words
  bool norm_checked = false;     // a relative-L2 bound was part of the verdict
  double rel_l2_bound = 0;
  bool passed = false;

  std::string summary() const;   // one line: "passed: max 0.51 ulp, ..." or "FAILED: 3 of 1000 ..."
};

// Fills a host array with a value no correct code writes before something writes it: NaN for
// floating point, all bits set (-1, or the largest unsigned value) for integers. An element
// that is never written then fails verification instead of passing with a leftover value
// (DeviceBuffer::poison does the same for GPU memory: 0xFF bytes).
void poison(std::span<float> values);
void poison(std::span<double> values);
void poison(std::span<std::int32_t> values);
void poison(std::span<std::uint32_t> values);
void poison(std::span<std::uint16_t> values);
void poison(std::span<std::uint8_t> values);

// Error of `value` against `reference` in ULPs of float at the reference's magnitude
// (0.5 means correctly rounded). NaN when either is NaN.
double ulp_error(float value, double reference);

// Fills reference[0, end - begin) for elements [begin, end). Called in blocks, from several
// threads at once, so a reference can be computed on the fly without storing all of it.
using ReferenceBlock = std::function<void(std::size_t begin, std::size_t end, double* reference)>;

// A stored reference as a ReferenceBlock (the span must outlive the block).
ReferenceBlock reference_of(std::span<const double> values);
ReferenceBlock reference_of(std::span<const float> values);

// A reference in long double (x86-64: 64-bit significand, 11 bits more than double), for
// double results: a double computed carefully is within an ulp or so of the exact value, and a
// reference in double cannot tell 0.5 ulp from 1.5 ulp. The error is measured in long double.
using LongReferenceBlock = std::function<void(std::size_t begin, std::size_t end, long double* reference)>;
LongReferenceBlock long_reference_of(std::span<const long double> values);

// T is float or double.
template <class T>
VerifyResult verify(std::span<const T> result, const ReferenceBlock& reference, Tolerance tolerance);
template <class T>
VerifyResult verify(std::span<const T> result, std::span<const double> reference, Tolerance tolerance);
VerifyResult verify(std::span<const float> result, std::span<const float> reference, Tolerance tolerance);

// A double result against a long double reference.
VerifyResult verify(std::span<const double> result, const LongReferenceBlock& reference, Tolerance tolerance);
VerifyResult verify(std::span<const double> result, std::span<const long double> reference, Tolerance tolerance);

// Non-template conveniences so a std::vector converts without naming T.
inline VerifyResult verify(std::span<const float> r, const ReferenceBlock& ref, Tolerance t) { return verify<float>(r, ref, t); }
inline VerifyResult verify(std::span<const double> r, const ReferenceBlock& ref, Tolerance t) { return verify<double>(r, ref, t); }
inline VerifyResult verify(std::span<const float> r, std::span<const double> ref, Tolerance t) { return verify<float>(r, ref, t); }
inline VerifyResult verify(std::span<const double> r, std::span<const double> ref, Tolerance t) { return verify<double>(r, ref, t); }

// Integers (T = std::int32_t, std::uint8_t, std::uint16_t, std::uint32_t, std::int64_t).
template <class T>
VerifyResult verify_integers(std::span<const T> result, std::span<const T> reference, IntegerTolerance tolerance);

}  // namespace course
