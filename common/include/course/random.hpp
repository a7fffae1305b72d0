// Seeded random inputs that do not depend on the number of threads that made them.
//
// Teaches: tests and benchmarks need inputs that are random (no accidental structure, no
// zeros that hide unwritten outputs) yet reproducible. The vector is cut into fixed blocks,
// each with its own generator seeded from (seed, block), so the values are the same whether
// one thread or sixty-four fill it.
#pragma once

#include <cstdint>
#include <span>

namespace course {

void fill_normal(std::span<float> values, std::uint64_t seed, float mean = 0.0f, float stddev = 1.0f);
void fill_normal(std::span<double> values, std::uint64_t seed, double mean = 0.0, double stddev = 1.0);
void fill_uniform(std::span<float> values, std::uint64_t seed, float low, float high);
void fill_uniform(std::span<double> values, std::uint64_t seed, double low, double high);
// Whole numbers in [low, high], stored as float: small integers make sums and products exact
// in float, so a test can demand the bit-exact answer from every kernel.
void fill_small_integers(std::span<float> values, std::uint64_t seed, int low, int high);

// A seed that differs from run to run, for tests that want fresh inputs each time (print it in
// the failure message so a failing case can be replayed). With the environment variable
// COURSE_SEED set to a whole number, every call returns that number instead: run the one failing
// test again with the seed its message printed, e.g.
//   COURSE_SEED=10463118534478130351 ./04_shared_matmul_tests --gtest_filter='*AwkwardShapes*/vectorized'
// A COURSE_SEED that is not a whole number 0..2^64-1 throws course::Error.
std::uint64_t fresh_seed();

}  // namespace course
