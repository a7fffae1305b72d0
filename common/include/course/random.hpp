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

// A seed that differs from run to run, for tests that want fresh inputs each time
// (print it in the failure message so a failing case can be replayed).
std::uint64_t fresh_seed();

}  // namespace course
