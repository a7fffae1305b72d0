// The command line every lesson shares, on CLI11.
//
// Teaches: a program that takes sizes from a user must check them, and say exactly what was
// wrong: "--length: Value 0 not in range [1 - 1099511627776]" and exit code 2, never a crash.
//
// Shared flags (each lesson adds its own on cli.app() before parse):
//   <size flag>          the problem size; the lesson names it (-l,--length for vectors), and
//                        --size is always an alias for it
//   --reps N             timed GPU repetitions (default 20)     --warmup N   untimed runs (3)
//   --cpu-reps N         timed CPU repetitions (default 3)      --threads N  CPU threads (0 = all)
//   --device N           which GPU                              --seed N     input seed
//   --skip-cpu/--skip-gpu                                       --require-gpu no GPU is an error
//   --no-flush-l2        keep L2 warm between GPU repetitions   --json PATH  write the results
//   --timeout S          a GPU row, compile or plan running past S seconds ends the run (exit 3;
//                        course/watchdog.hpp)
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <exception>
#include <string>
#include <utility>
#include <vector>

#include "course/device.hpp"
#include "course/timing.hpp"
#include "course/watchdog.hpp"

namespace course {

// One named dimension of the problem: the length of a vector, a matrix's M, N or K, an
// image's width. Its long flag names it in the JSON ("length", "m", "width").
struct SizeOption {
  std::string flags;          // CLI11 names, e.g. "-l,--length" or "--m"
  std::string description;
  std::int64_t default_value;
  std::int64_t max_value;
  std::int64_t min_value = 1;
  bool set_by_size = true;    // --size sets it (unless its own flag was given)
};

struct CommonOptions {
  std::int64_t size = 0;      // the first dimension's value (a vector's length)
  std::vector<std::pair<std::string, std::int64_t>> dims;  // every dimension, in declaration order
  int reps = 20;
  int warmup = 3;
  int cpu_reps = 3;
  int threads = 0;
  int device = 0;
  bool skip_cpu = false;
  bool skip_gpu = false;
  bool require_gpu = false;   // the flag, or COURSE_REQUIRE_GPU in the environment
  bool flush_l2 = true;
  std::uint64_t seed = 42;
  std::string json_path;
  double timeout = kDefaultTimeoutSeconds;       // --timeout: seconds a GPU row's run, a compile or a plan may take (0: no limit)

  std::int64_t dim(const std::string& name) const;  // throws std::out_of_range for an unknown name
  RepeatOptions gpu_repeat() const { return {warmup, reps}; }
  RepeatOptions cpu_repeat() const { return {warmup > 0 ? 1 : 0, cpu_reps}; }
  int cpu_threads() const;    // the OpenMP thread count in effect
};

// The GPU the command line asks for: --device, failing if --require-gpu (or COURSE_REQUIRE_GPU)
// and none is usable; not opened at all with --skip-gpu (the status then says so).
// With create_context false the GPU is only probed (no context yet: lesson 08's driver path
// creates it); the same rules apply either way.
GpuStatus open_gpu(const CommonOptions& options, bool create_context = true);

// A CLI11 check for a count that must be a multiple of `step` from `step` to `most` (a tile of
// float4 groups: --tile 768). Its error names the rule: "Value 6 is not a multiple of 4 from 4 to 16384".
CLI::Validator multiple_of(int step, int most);

// --help: the text to print; run_lesson prints it and exits 0.
class HelpRequested : public std::exception {
 public:
  explicit HelpRequested(std::string text) : text_(std::move(text)) {}
  const char* what() const noexcept override { return text_.c_str(); }

 private:
  std::string text_;
};

// Parses `app` by the course's rules, for lessons and tools alike: integer flags take decimal
// digits only; a value may be neither empty nor another flag ("--json --skip-gpu"); every error
// is one line naming the flag. Throws UsageError, or HelpRequested for --help.
void parse_command_line(CLI::App& app, int argc, const char* const* argv);

class LessonCli {
 public:
  LessonCli(std::string name, std::string description, SizeOption size);
  // Several dimensions; `size_flags` (e.g. "-n,--size") is a shortcut that sets every dimension
  // marked set_by_size whose own flag was not given ("" for none).
  LessonCli(std::string name, std::string description, std::vector<SizeOption> dims,
            const std::string& size_flags = "--size", const std::string& size_description = "");

  CLI::App& app() { return app_; }
  // Throws UsageError (one line naming the flag) or HelpRequested. Checks the --json path (not
  // opening it) and sets the OpenMP threads (course/threads.hpp: too many is a UsageError).
  const CommonOptions& parse(int argc, const char* const* argv);
  const CommonOptions& options() const { return options_; }
  const std::string& name() const { return name_; }
  const std::string& size_name() const { return size_name_; }  // "length"
  const std::string& command_line() const { return command_line_; }

 private:
  void add_common_options();

  std::string name_, size_name_, command_line_;
  CLI::App app_;
  CommonOptions options_;
  std::vector<SizeOption> dims_;
  std::vector<std::int64_t> dim_values_;  // bound to the dimension flags (sized once: stable addresses)
  std::vector<CLI::Option*> dim_flags_;
  std::int64_t size_value_ = 0;
  CLI::Option* size_flag_ = nullptr;
};

}  // namespace course
