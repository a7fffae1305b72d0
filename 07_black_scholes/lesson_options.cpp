// Lesson 07: the lesson's own flags, checked where they enter (lesson_options.hpp).
#include "lesson_options.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace black_scholes {

namespace {

// A finite number in [low, high]: NaN, infinities and words are refused with the flag's name.
CLI::Validator number_between(double low, double high) {
  char range[64];
  std::snprintf(range, sizeof range, "%g to %g", low, high);
  auto check = [low, high, range = std::string(range)](std::string& text) -> std::string {
    char* end = nullptr;
    const double value = std::strtod(text.c_str(), &end);
    const bool number = end != text.c_str() && *end == '\0' && std::isfinite(value);
    return number && value >= low && value <= high ? "" : "'" + text + "' is not a number from " + range;
  };
  return CLI::Validator(check, std::string("NUMBER in ") + range);
}

}  // namespace

void add_flags(course::Lesson& lesson, Settings& s) {
  CLI::App& cli = lesson.cli();
  cli.add_option("--rate", s.market.rate, "risk-free rate per year, continuously compounded")
      ->check(number_between(-1, 1))->capture_default_str();
  cli.add_option("--volatility", s.market.volatility, "volatility per square root of a year")
      ->check(number_between(1e-4, 10))->capture_default_str();
  auto* precision = cli.add_option("--precision", s.precision, "float, double or both")
                        ->check(CLI::IsMember({"float", "double", "both"}))->capture_default_str();
  auto* iterations = cli.add_option("--iterations", s.iterations,
                                    "timed runs of every row (default: --reps for GPU rows, --cpu-reps for CPU rows)")
                         ->check(CLI::Range(1, 1000000));
  auto* block = cli.add_option("--block", s.block, "threads per block of classic and ilp (0: 256)")
                    ->check(CLI::Range(0, 1024));
  lesson.add_kernel_option(s.kernels, kernels());
  cli.add_flag("--classic", s.classic, "the classic's run: 4,000,000 options, double, block 1024, 10 iterations")
      ->excludes(cli.get_option("--options"))->excludes(precision)->excludes(iterations)->excludes(block);
}

void apply_classic(Settings& s) {
  if (s.classic) {
    s.precision = "double";
    s.block = kClassicBlock;
    s.iterations = kClassicIterations;
  }
}

}  // namespace black_scholes
