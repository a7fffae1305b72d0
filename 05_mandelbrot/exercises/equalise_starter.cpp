// Exercise 2 (lesson 05, runs without a GPU): histogram equalisation of the escape counts.
//
// Write equalised_level_starter: the grey level of a pixel whose escape count is `count`, given
// the prefix sum (CDF) of the counts' histogram: cdf[c] = the number of pixels whose count is at
// most c, for c = 0 .. max_iters (bin max_iters is the set's interior).
//   - a pixel of the interior (count == max_iters) is black: level 0;
//   - any other pixel gets 1 + floor(254 * share), where share = cdf[count] / cdf[max_iters - 1]
//     is the fraction of the pixels OUTSIDE the set whose count is at most `count`;
//   - if no pixel lies outside the set, return 0.
// Compute in 64-bit integers (254 * cdf overflows 32 bits beyond 16.9 million pixels).
//
// As shipped, it spreads the levels evenly over the COUNTS (a linear scale), the colouring that
// turns a deep zoom into one flat colour; the check fails until the levels follow the CDF.
// Check it:   ./scripts/check_exercise.sh 05 equalise
#include "exercises/exercises.hpp"

namespace mandelbrot::exercises {

std::uint8_t equalised_level_starter(std::uint32_t count, std::span<const std::uint32_t> cdf, int max_iters) {
  (void)cdf;  // TODO: use the CDF instead of the count itself
  const auto interior = static_cast<std::uint32_t>(max_iters);
  if (count >= interior) return 0;
  return static_cast<std::uint8_t>(1 + 254 * static_cast<std::uint64_t>(count) / interior);
}

}  // namespace mandelbrot::exercises
