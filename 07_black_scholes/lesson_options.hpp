// Lesson 07: the lesson's own flags (lesson_options.cpp), for main.cpp.
//
// Teaches: a value is checked where it enters. --rate and --volatility take finite numbers in a
// range only (NaN, infinities and words are refused with the flag's name: exit 2); --classic is
// a preset, the classic's run, and refuses the flags it would set rather than overriding them
// silently; --iterations replaces the shared repetitions (--reps, --cpu-reps) of every row.
// Only main.cpp includes this header (it carries the harness); the tests use black_scholes.hpp.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "black_scholes.hpp"
#include "course/harness.hpp"

namespace black_scholes {

struct Settings {
  Market market;
  std::string precision = "both";
  int iterations = 0;  // 0: the shared --reps (GPU) and --cpu-reps (CPU)
  int block = 0;       // 0: each kernel's own choice
  bool classic = false;
  std::vector<std::string> kernels;
  // --iterations as the harness's repetitions (warm-up runs as usual); unset: the shared flags.
  std::optional<course::RepeatOptions> repeat(const course::RepeatOptions& usual) const {
    return iterations > 0 ? std::optional(course::RepeatOptions{usual.warmup, iterations}) : std::nullopt;
  }
};

// --rate, --volatility, --precision, --iterations, --block, --kernel and --classic, in this order
// in --help; --classic excludes --options and the three flags it sets.
void add_flags(course::Lesson& lesson, Settings& settings);

// After parsing: with --classic, the classic's precision (double), block (kClassicBlock) and timed
// runs (kClassicIterations); its kClassicOptions options are main.cpp's size. Without, nothing.
void apply_classic(Settings& settings);

}  // namespace black_scholes
