// Verification must be able to fail: wrong elements, NaN, Inf, unwritten (poisoned) outputs.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <span>
#include <cstring>
#include <limits>
#include <vector>

#include "course/verify.hpp"

namespace {

std::vector<float> ramp(std::size_t n) {
  std::vector<float> values(n);
  for (std::size_t i = 0; i < n; ++i) values[i] = 0.5f + static_cast<float>(i % 1000) * 0.25f;
  return values;
}

TEST(Verify, IdenticalResultPassesExactly) {
  const auto reference = ramp(1000);
  const course::VerifyResult result = course::verify(reference, reference, course::Tolerance::exact());
  EXPECT_TRUE(result.passed);
  EXPECT_EQ(result.count, 1000u);
  EXPECT_EQ(result.mismatches, 0u);
  EXPECT_EQ(result.max_abs_error, 0.0);
  EXPECT_EQ(result.rel_l2_error, 0.0);
  EXPECT_NE(result.summary().find("passed"), std::string::npos);
}

TEST(Verify, OneWrongElementFailsAndIsFound) {
  const std::size_t n = 3 * 16384 + 7;  // crosses the parallel block boundaries
  const auto reference = ramp(n);
  auto result = reference;
  result[n - 1] += 1.0f;
  const course::VerifyResult check = course::verify(result, reference, course::Tolerance::ulps(2));
  EXPECT_FALSE(check.passed);
  EXPECT_EQ(check.mismatches, 1u);
  EXPECT_EQ(check.worst_index, n - 1);
  EXPECT_EQ(check.worst_value, static_cast<double>(result[n - 1]));
  EXPECT_NE(check.summary().find("FAILED"), std::string::npos);
}

TEST(Verify, NanNeverPassesWhateverTheTolerance) {
  auto reference = ramp(100);
  auto result = reference;
  result[42] = std::numeric_limits<float>::quiet_NaN();
  const course::VerifyResult check = course::verify(result, reference, course::Tolerance{1e30, 1e30, 1e30});
  EXPECT_FALSE(check.passed);
  EXPECT_EQ(check.nan_count, 1u);
  EXPECT_EQ(check.worst_index, 42u);
}

TEST(Verify, NanInTheReferenceFails) {
  auto reference = ramp(10);
  const auto result = reference;
  reference[3] = std::numeric_limits<float>::quiet_NaN();
  EXPECT_FALSE(course::verify(result, reference, course::Tolerance::ulps(1)).passed);
}

TEST(Verify, InfinityOnlyMatchesTheSameInfinity) {
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<float> reference = {1.0f, inf, -inf};
  EXPECT_TRUE(course::verify(std::vector<float>{1.0f, inf, -inf}, reference, course::Tolerance::exact()).passed);
  const course::VerifyResult overflow =
      course::verify(std::vector<float>{inf, inf, -inf}, reference, course::Tolerance::relative(1.0));
  EXPECT_FALSE(overflow.passed);
  EXPECT_EQ(overflow.inf_count, 1u);
  EXPECT_FALSE(course::verify(std::vector<float>{1.0f, -inf, -inf}, reference, course::Tolerance::exact()).passed);
  EXPECT_FALSE(course::verify(std::vector<float>{1.0f, 3.0f, -inf}, reference, course::Tolerance::relative(1.0)).passed);
}

TEST(Verify, OverflowToInfinityIsTheCorrectlyRoundedResult) {
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<double> reference = {1e39, -1e39, 3.4e38};
  EXPECT_TRUE(course::verify(std::vector<float>{inf, -inf, 3.4e38f}, reference, course::Tolerance::ulps(1)).passed);
  EXPECT_FALSE(course::verify(std::vector<float>{3.4e38f, -inf, 3.4e38f}, reference, course::Tolerance::ulps(1)).passed);
  EXPECT_FALSE(course::verify(std::vector<float>{inf, -inf, inf}, reference, course::Tolerance::ulps(1)).passed)
      << "3.4e38 is below FLT_MAX: infinity is wrong there";
}

TEST(Verify, HostPoisonMakesEveryElementNaN) {
  std::vector<float> values(100, 1.0f);
  course::poison(values);
  for (float v : values) EXPECT_TRUE(std::isnan(v));
}

TEST(Verify, UnwrittenPoisonedOutputFails) {
  const auto reference = ramp(4096);
  std::vector<float> never_written(reference.size());
  std::memset(never_written.data(), 0xFF, never_written.size() * sizeof(float));  // what poison() does
  const course::VerifyResult check = course::verify(never_written, reference, course::Tolerance::relative(0.5));
  EXPECT_FALSE(check.passed);
  EXPECT_EQ(check.nan_count, reference.size());
}

TEST(Verify, UlpErrorOfNeighbours) {
  EXPECT_DOUBLE_EQ(course::ulp_error(1.0f, 1.0), 0.0);
  EXPECT_DOUBLE_EQ(course::ulp_error(std::nextafter(1.0f, 2.0f), 1.0), 1.0);
  EXPECT_DOUBLE_EQ(course::ulp_error(1.0f, 1.0 + std::ldexp(1.0, -24)), 0.5) << "half an ulp: correctly rounded";
  EXPECT_DOUBLE_EQ(course::ulp_error(std::ldexp(1.0f, -140), std::ldexp(1.0, -140) + std::ldexp(1.0, -149)), 1.0)
      << "subnormals have a fixed spacing";
  EXPECT_TRUE(std::isnan(course::ulp_error(std::numeric_limits<float>::quiet_NaN(), 1.0)));
}

TEST(Verify, UlpToleranceDecides) {
  const std::vector<float> reference = {1.0f, 2.0f};
  const std::vector<float> one_ulp_off = {std::nextafter(1.0f, 2.0f), 2.0f};
  EXPECT_TRUE(course::verify(one_ulp_off, reference, course::Tolerance::ulps(1)).passed);
  EXPECT_FALSE(course::verify(one_ulp_off, reference, course::Tolerance::ulps(0.5)).passed);
  EXPECT_FALSE(course::verify(one_ulp_off, reference, course::Tolerance::exact()).passed);
  EXPECT_DOUBLE_EQ(course::verify(one_ulp_off, reference, course::Tolerance::ulps(1)).max_ulp_error, 1.0);
}

TEST(Verify, RelativeAndAbsoluteTolerances) {
  const std::vector<float> reference = {100.0f, 0.0f};
  EXPECT_TRUE(course::verify(std::vector<float>{100.5f, 0.0f}, reference, course::Tolerance::relative(0.01)).passed);
  EXPECT_FALSE(course::verify(std::vector<float>{102.0f, 0.0f}, reference, course::Tolerance::relative(0.01)).passed);
  EXPECT_FALSE(course::verify(std::vector<float>{100.0f, 1e-3f}, reference, course::Tolerance::relative(0.01)).passed)
      << "a relative tolerance allows nothing around zero";
  EXPECT_TRUE(
      course::verify(std::vector<float>{100.0f, 1e-3f}, reference, course::Tolerance::relative(0.01, 1e-2)).passed);
}

TEST(Verify, NormsAgainstADoubleReference) {
  const std::vector<double> reference = {3.0, 4.0};
  const std::vector<float> result = {3.0f, 4.5f};
  const course::VerifyResult check = course::verify(result, reference, course::Tolerance::relative(0.2));
  EXPECT_TRUE(check.passed);
  EXPECT_DOUBLE_EQ(check.max_abs_error, 0.5);
  EXPECT_DOUBLE_EQ(check.max_rel_error, 0.125);
  EXPECT_DOUBLE_EQ(check.rel_l1_error, 0.5 / 7.0);
  EXPECT_DOUBLE_EQ(check.rel_l2_error, 0.5 / 5.0);
}

TEST(Verify, ReferenceComputedOnTheFly) {
  const std::size_t n = 100000;
  std::vector<float> result(n);
  for (std::size_t i = 0; i < n; ++i) result[i] = static_cast<float>(std::sqrt(static_cast<double>(i)));
  const course::ReferenceBlock sqrt_reference = [](std::size_t begin, std::size_t end, double* out) {
    for (std::size_t i = begin; i < end; ++i) out[i - begin] = std::sqrt(static_cast<double>(i));
  };
  const course::VerifyResult check = course::verify(result, sqrt_reference, course::Tolerance::ulps(0.5));
  EXPECT_TRUE(check.passed) << check.summary();
  EXPECT_LE(check.max_ulp_error, 0.5);
}

TEST(Verify, EmptyAndMismatchedSizes) {
  EXPECT_TRUE(course::verify(std::vector<float>{}, std::vector<float>{}, course::Tolerance::exact()).passed);
  EXPECT_THROW(course::verify(std::vector<float>(3), std::vector<float>(4), course::Tolerance::exact()),
               std::invalid_argument);
}

}  // namespace

// ---- typed verification: double, norms, integers ------------------------------------------------
TEST(VerifyTyped, DoubleUlpIsMeasuredInDoubleSpacing) {
  const std::vector<double> reference = {1.0, 2.0};
  const std::vector<double> one_ulp_off = {std::nextafter(1.0, 2.0), 2.0};
  const auto check = course::verify(std::span<const double>(one_ulp_off), std::span<const double>(reference),
                                    course::Tolerance::ulps(1));
  EXPECT_TRUE(check.passed) << check.summary();
  EXPECT_DOUBLE_EQ(check.max_ulp_error, 1.0);
  EXPECT_FALSE(course::verify(std::span<const double>(one_ulp_off), std::span<const double>(reference),
                              course::Tolerance::exact()).passed);
  std::vector<double> poisoned(2);
  course::poison(std::span<double>(poisoned));
  EXPECT_FALSE(course::verify(std::span<const double>(poisoned), std::span<const double>(reference),
                              course::Tolerance::relative(1e9)).passed) << "NaN never passes";
}

TEST(VerifyTyped, NormToleranceJudgesTheWholeButStillFailsNaN) {
  std::vector<double> reference(1000, 1.0);
  std::vector<float> result(1000, 1.0f);
  result[3] = 1.01f;  // one element 1% off: the relative L2 norm is about 3e-4
  EXPECT_TRUE(course::verify(result, std::span<const double>(reference), course::Tolerance::norm(1e-3)).passed);
  const auto tight = course::verify(result, std::span<const double>(reference), course::Tolerance::norm(1e-4));
  EXPECT_FALSE(tight.passed);
  EXPECT_EQ(tight.worst_index, 3u);
  result[5] = std::numeric_limits<float>::quiet_NaN();
  const auto with_nan = course::verify(result, std::span<const double>(reference), course::Tolerance::norm(1.0));
  EXPECT_FALSE(with_nan.passed);
  EXPECT_EQ(with_nan.nan_count, 1u);
}

TEST(VerifyTyped, IntegersExactOrWithABoundedFraction) {
  std::vector<std::int32_t> reference(1000), result(1000);
  for (int i = 0; i < 1000; ++i) reference[i] = result[i] = i % 20;
  EXPECT_TRUE(course::verify_integers<std::int32_t>(result, reference, course::IntegerTolerance::exact()).passed);
  result[10] += 1;
  EXPECT_FALSE(course::verify_integers<std::int32_t>(result, reference, course::IntegerTolerance::exact()).passed);
  const auto bounded = course::verify_integers<std::int32_t>(result, reference, course::IntegerTolerance::at_most(0.001));
  EXPECT_TRUE(bounded.passed) << bounded.summary();  // 1 of 1000 allowed
  EXPECT_EQ(bounded.mismatches, 1u);
  result[11] += 1;
  EXPECT_FALSE(course::verify_integers<std::int32_t>(result, reference, course::IntegerTolerance::at_most(0.001)).passed);
  // A bound on how far an element may be off.
  EXPECT_FALSE(course::verify_integers<std::int32_t>(result, reference, course::IntegerTolerance::at_most(0.01, 0))
                   .passed);
  std::vector<std::int32_t> poisoned(1000);
  course::poison(std::span<std::int32_t>(poisoned));
  EXPECT_FALSE(course::verify_integers<std::int32_t>(poisoned, reference, course::IntegerTolerance::at_most(0.5)).passed)
      << "an unwritten integer output (-1 everywhere) fails";
}
