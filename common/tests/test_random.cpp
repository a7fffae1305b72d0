// Seeded inputs: reproducible, independent of the thread count, and really random; COURSE_SEED
// replays a failing test's seed.
#include <gtest/gtest.h>

#include <omp.h>

#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

#include "course/errors.hpp"
#include "course/random.hpp"

namespace {

TEST(Random, SameSeedSameValuesAnyThreadCount) {
  const std::size_t n = 300001;
  std::vector<float> one_thread(n), many_threads(n);
  const int threads = omp_get_max_threads();
  omp_set_num_threads(1);
  course::fill_normal(one_thread, 42);
  omp_set_num_threads(4);
  course::fill_normal(many_threads, 42);
  omp_set_num_threads(threads);
  EXPECT_EQ(one_thread, many_threads);
}

TEST(Random, DifferentSeedsDiffer) {
  std::vector<float> a(1000), b(1000);
  course::fill_normal(a, 1);
  course::fill_normal(b, 2);
  EXPECT_NE(a, b);
  if (std::getenv("COURSE_SEED") == nullptr) {
    EXPECT_NE(course::fresh_seed(), course::fresh_seed());
  }
}

// COURSE_SEED fixes fresh_seed() (to replay a failure); anything but a whole number is an error.
TEST(Random, CourseSeedReplaysAFailure) {
  const char* before = std::getenv("COURSE_SEED");
  const std::string saved = before != nullptr ? before : "";
  ::setenv("COURSE_SEED", "10463118534478130351", 1);
  EXPECT_EQ(course::fresh_seed(), 10463118534478130351ull);
  EXPECT_EQ(course::fresh_seed(), 10463118534478130351ull) << "every call, not only the first";
  for (const char* bad : {"abc", "12x", "-1", "18446744073709551616", " 5"}) {
    ::setenv("COURSE_SEED", bad, 1);
    try {
      course::fresh_seed();
      ADD_FAILURE() << "COURSE_SEED='" << bad << "' accepted";
    } catch (const course::Error& error) {
      EXPECT_NE(std::string(error.what()).find(std::string("COURSE_SEED '") + bad + "'"), std::string::npos)
          << error.what();
    }
  }
  ::unsetenv("COURSE_SEED");
  EXPECT_NE(course::fresh_seed(), course::fresh_seed());
  if (before != nullptr) ::setenv("COURSE_SEED", saved.c_str(), 1);
}

TEST(Random, NormalHasTheRightMoments) {
  std::vector<float> values(1 << 20);
  course::fill_normal(values, 7);
  double sum = 0, sum_sq = 0;
  for (float v : values) {
    ASSERT_TRUE(std::isfinite(v));
    sum += v;
    sum_sq += static_cast<double>(v) * v;
  }
  const double mean = sum / static_cast<double>(values.size());
  const double variance = sum_sq / static_cast<double>(values.size()) - mean * mean;
  EXPECT_NEAR(mean, 0.0, 0.01);
  EXPECT_NEAR(variance, 1.0, 0.01);
}

TEST(Random, UniformStaysInRange) {
  std::vector<float> values(100000);
  course::fill_uniform(values, 3, -2.0f, 5.0f);
  float low = values[0], high = values[0];
  for (float v : values) {
    low = std::min(low, v);
    high = std::max(high, v);
  }
  EXPECT_GE(low, -2.0f);
  EXPECT_LT(high, 5.0f);
  EXPECT_LT(low, -1.9f);
  EXPECT_GT(high, 4.9f);
}

}  // namespace
