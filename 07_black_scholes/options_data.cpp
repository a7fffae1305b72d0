// Lesson 07: the options the lesson prices, drawn as the classic drew them.
//
// Teaches: benchmark inputs should be random (no structure a kernel or a cache could exploit by
// accident) yet reproducible, and the same whatever the number of threads that made them
// (course::fill_uniform seeds each block of the array from the seed and the block's index). The
// float options are the double ones rounded once, so both precisions price the same market and
// their results can be read side by side.
#include <algorithm>

#include "black_scholes.hpp"
#include "course/random.hpp"

namespace black_scholes {

OptionSet<double> make_options(std::size_t count, std::uint64_t seed) {
  OptionSet<double> options;
  options.price.resize(count);
  options.strike.resize(count);
  options.years.resize(count);
  // One stream per quantity: seeds far apart (the golden-ratio increment SplitMix64 also uses).
  constexpr std::uint64_t kStride = 0x9E3779B97F4A7C15ull;
  course::fill_uniform(std::span<double>(options.price), seed, kPriceRange.low, kPriceRange.high);
  course::fill_uniform(std::span<double>(options.strike), seed + kStride, kStrikeRange.low, kStrikeRange.high);
  course::fill_uniform(std::span<double>(options.years), seed + 2 * kStride, kYearsRange.low, kYearsRange.high);
  return options;
}

OptionSet<float> round_to_float(const OptionSet<double>& options) {
  OptionSet<float> rounded;
  auto convert = [](const std::vector<double>& from, std::vector<float>& to) {
    to.resize(from.size());
#pragma omp parallel for schedule(static)
    for (std::size_t i = 0; i < from.size(); ++i) to[i] = static_cast<float>(from[i]);
  };
  convert(options.price, rounded.price);
  convert(options.strike, rounded.strike);
  convert(options.years, rounded.years);
  return rounded;
}

}  // namespace black_scholes
