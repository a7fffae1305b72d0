// Block-seeded random fills: the same values for any thread count.
#include "course/random.hpp"

#include <omp.h>

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <random>
#include <string>

#include "course/errors.hpp"

#include "course/progress.hpp"
#include "course/threads.hpp"

namespace course {

namespace {

constexpr std::size_t kBlock = 1 << 16;

// SplitMix64: turns (seed, block) into well-mixed, independent generator seeds.
std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

template <class T, class Distribution>
void fill_blocks(std::span<T> values, std::uint64_t seed, Distribution distribution_prototype) {
  const std::size_t n = values.size();
  const std::size_t blocks = (n + kBlock - 1) / kBlock;
  Progress progress("random inputs", n, "values");  // 2^31 values take a while: a line every few seconds
  // Capped: a fill may run before the thread count was checked (in a test, with OMP_NUM_THREADS huge).
#pragma omp parallel for schedule(static) num_threads(loop_threads(blocks))
  for (std::size_t b = 0; b < blocks; ++b) {
    std::mt19937_64 generator(splitmix64(seed ^ splitmix64(b)));
    Distribution distribution = distribution_prototype;
    const std::size_t end = std::min(n, (b + 1) * kBlock);
    for (std::size_t i = b * kBlock; i < end; ++i) values[i] = static_cast<T>(distribution(generator));
    progress.advance(end - b * kBlock);
  }
}

}  // namespace

void fill_normal(std::span<float> values, std::uint64_t seed, float mean, float stddev) {
  fill_blocks(values, seed, std::normal_distribution<float>(mean, stddev));
}

void fill_uniform(std::span<float> values, std::uint64_t seed, float low, float high) {
  fill_blocks(values, seed, std::uniform_real_distribution<float>(low, high));
}

void fill_normal(std::span<double> values, std::uint64_t seed, double mean, double stddev) {
  fill_blocks(values, seed, std::normal_distribution<double>(mean, stddev));
}

void fill_uniform(std::span<double> values, std::uint64_t seed, double low, double high) {
  fill_blocks(values, seed, std::uniform_real_distribution<double>(low, high));
}

void fill_small_integers(std::span<float> values, std::uint64_t seed, int low, int high) {
  fill_blocks(values, seed, std::uniform_int_distribution<int>(low, high));
}

std::uint64_t fresh_seed() {
  // COURSE_SEED replays a failure: the seed its message printed, for every call.
  if (const char* fixed = std::getenv("COURSE_SEED"); fixed != nullptr && *fixed != '\0') {
    const std::string text(fixed);
    std::uint64_t seed = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), seed);
    if (error != std::errc() || end != text.data() + text.size()) {
      throw Error("COURSE_SEED '" + text + "' is not a whole number from 0 to 18446744073709551615");
    }
    return seed;
  }
  std::random_device device;
  return (static_cast<std::uint64_t>(device()) << 32) ^ device();
}

}  // namespace course
