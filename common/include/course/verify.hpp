// Comparing a result with a reference, in a way that can fail.
//
// Teaches: "looks right" is not a check. Each element is compared with a reference computed
// independently (in double where rounding matters), against a tolerance chosen from what the
// arithmetic can promise: 0 for an IEEE add, a few ULP for expf. A NaN never passes, an
// infinity passes only where the reference is the same infinity, and an output the GPU never
// wrote (poisoned to NaN beforehand) fails.
//
// The report gives the numbers that explain a failure: max absolute and relative error,
// relative L1 and L2 norms of the error, max error in ULP (units in the last place of float),
// the worst element, and how many elements were NaN or infinite.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>

namespace course {

// An element passes if ANY enabled criterion holds. All disabled: exact equality is required.
struct Tolerance {
  double abs = 0;   // |result - reference| <= abs
  double rel = 0;   // |result - reference| <= rel * |reference|
  double ulp = 0;   // error in float ULPs <= ulp

  static Tolerance exact() { return {}; }
  static Tolerance ulps(double max_ulp) { return {0, 0, max_ulp}; }
  static Tolerance relative(double max_rel, double max_abs = 0) { return {max_abs, max_rel, 0}; }
  std::string describe() const;
};

struct VerifyResult {
  std::size_t count = 0;
  std::size_t mismatches = 0;    // elements outside the tolerance (NaN/Inf included)
  std::size_t nan_count = 0;     // NaN in the result
  std::size_t inf_count = 0;     // infinity in the result where the reference is finite
  double max_abs_error = 0;
  double max_rel_error = 0;
  double rel_l1_error = 0;       // sum|r - ref| / sum|ref|
  double rel_l2_error = 0;       // ||r - ref||_2 / ||ref||_2
  double max_ulp_error = 0;      // in units of float spacing at the reference
  std::size_t worst_index = 0;   // the element furthest outside (or nearest to) its tolerance
  double worst_value = 0, worst_reference = 0;
  Tolerance tolerance;
  bool passed = false;

  std::string summary() const;   // one line: "passed: max 0.51 ulp, ..." or "FAILED: 3 of 1000 ..."
};

// Fills a host array with NaN before something writes it: an element that is never written
// then fails verification instead of passing with a leftover value (DeviceBuffer::poison is
// the same for GPU memory).
void poison(std::span<float> values);

// Error of float `value` against `reference` in ULPs of float at the reference's magnitude
// (0.5 means correctly rounded). NaN when either is NaN.
double ulp_error(float value, double reference);

// Fills reference[0, end - begin) for elements [begin, end). Called in blocks, from several
// threads at once, so a reference can be computed on the fly without storing all of it.
using ReferenceBlock = std::function<void(std::size_t begin, std::size_t end, double* reference)>;

VerifyResult verify(std::span<const float> result, const ReferenceBlock& reference, Tolerance tolerance);
VerifyResult verify(std::span<const float> result, std::span<const double> reference, Tolerance tolerance);
VerifyResult verify(std::span<const float> result, std::span<const float> reference, Tolerance tolerance);

}  // namespace course
