// The shared command line.
#include "course/cli.hpp"

#include <omp.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdint>
#include <filesystem>
#include <stdexcept>

#include "course/device.hpp"
#include "course/errors.hpp"
#include "course/files.hpp"
#include "course/threads.hpp"
#include "course/watchdog.hpp"

namespace course {

namespace {
std::string long_name(const std::string& flags) {
  const std::size_t at = flags.rfind("--");
  return at == std::string::npos ? flags : flags.substr(at + 2);
}

std::string one_line(std::string text) {
  for (char& c : text) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  while (!text.empty() && text.back() == ' ') text.pop_back();
  return text;
}

std::string flag_name(const CLI::Option& option) {
  return option.get_lnames().empty() ? option.get_name() : "--" + option.get_lnames().front();
}

// Integer flags take decimal digits only. CLI11 alone reads "1e3" as 1000 and "0x10" as 16,
// calls "abc" "not in range", and clamps a seed above 2^64-1: the course says what it wants.
void check_whole_numbers(const CLI::App& app) {
  for (const CLI::Option* option : app.get_options()) {
    std::string type = option->get_type_name();  // "INT:INT in [1 - 100]": the type, then validators
    type = type.substr(0, type.find(':'));
    if (type != "INT" && type != "UINT") continue;
    for (const std::string& value : option->results()) {
      const bool is_unsigned = type == "UINT";
      const char* first = value.data() + (!is_unsigned && value.rfind('-', 0) == 0 ? 1 : 0);
      const char* last = value.data() + value.size();
      const bool digits = first != last && std::all_of(first, last, [](char c) { return c >= '0' && c <= '9'; });
      if (!digits) {
        throw UsageError(flag_name(*option) + ": '" + value + "' is not a whole number" + (is_unsigned ? " of 0 or more" : "") +
                         " (decimal digits only)");
      }
      std::uint64_t parsed = 0;
      if (is_unsigned && std::from_chars(first, last, parsed).ec == std::errc::result_out_of_range) {
        throw UsageError(flag_name(*option) + ": " + value + " is above the largest value, " +
                         std::to_string(UINT64_MAX));
      }
    }
  }
}

// A value given to a flag that needs one must be there: "" is not a number or a path, and a
// value that starts with "--" is another flag swallowed as the value ("--json --skip-gpu" would
// write a file named --skip-gpu and run the GPU part). Flags (no value) are not looked at.
void check_values(const CLI::App& app) {
  for (const CLI::Option* option : app.get_options()) {
    if (option->get_type_size_max() == 0) continue;
    const std::string flag = option->nonpositional() ? flag_name(*option) : option->get_name();
    std::string type = option->get_type_name();
    type = type.substr(0, type.find(':'));
    const bool numeric = type == "INT" || type == "UINT" || type == "FLOAT";
    for (const std::string& value : option->results()) {
      if (value.empty()) throw UsageError(flag + ": the value is empty; give one");
      // "--json -k": a short flag swallowed as a file name (a number such as -1 stays a value).
      if (!numeric && value.size() > 1 && value[0] == '-' && std::isalpha(static_cast<unsigned char>(value[1]))) {
        throw UsageError(flag + ": '" + value + "' is a flag, not a value: give " + flag + " its value first" +
                         " (for a file whose name starts with '-', write ./" + value + ")");
      }
      if (value.rfind("--", 0) == 0) {
        throw UsageError(flag + ": '" + value + "' is a flag, not a value: give " + flag + " its value first");
      }
    }
  }
}

// CLI11's "--length: 1 required INT:INT in [1 - 1073741824] missing" ("--length" last, or
// "--length="): "--length: needs a value".
std::string mismatch_message(const std::string& what) {
  const std::size_t colon = what.find(": ");
  if (colon == std::string::npos || what.find(": 1 required ") == std::string::npos || !what.ends_with(" missing")) {
    return what;
  }
  return what.substr(0, colon) + ": needs a value";
}

// CLI11's "Could not convert: -a = abc": "-a: 'abc' is not a number", the flag first as everywhere.
std::string conversion_message(const CLI::App& app, const std::string& what) {
  const std::string head = "Could not convert: ";
  const std::size_t equals = what.find(" = ");
  if (what.rfind(head, 0) != 0 || equals == std::string::npos) return what;
  const std::string name = what.substr(head.size(), equals - head.size());
  const CLI::Option* option = app.get_option_no_throw(name);
  const std::string type = option ? option->get_type_name().substr(0, option->get_type_name().find(':')) : "";
  const std::string value = what.substr(equals + 3);
  const std::size_t sign = value.rfind('-', 0) == 0 ? 1 : 0;
  const bool digits = value.size() > sign && value.find_first_not_of("0123456789", sign) == std::string::npos;
  if (digits && (type == "INT" || type == "UINT")) return name + ": " + value + " is out of range (too large a number)";
  return name + ": '" + value + "' is not " +
         (type == "FLOAT" ? "a number" : type == "INT" || type == "UINT" ? "a whole number" : "a valid value");
}

// "-n 1000" where the lesson's size flag is -l: name the unknown flag and the size flag.
std::string extras_message(const CLI::App& app, const std::vector<std::string>& extras) {
  const std::string first = extras.empty() ? "" : extras.front();
  std::string size_flags;
  if (const CLI::Option* size = app.get_option_no_throw("--size")) size_flags = size->get_name(false, true);
  if (first.rfind('-', 0) == 0) {
    return "unknown flag " + first + (size_flags.empty() ? "" : " (the size flag here is " + size_flags + ")");
  }
  return "unexpected argument '" + first + "'";
}
}  // namespace

int CommonOptions::cpu_threads() const { return omp_get_max_threads(); }

GpuStatus open_gpu(const CommonOptions& options, bool create_context) {
  if (options.skip_gpu) {
    GpuStatus status;
    status.reason = "--skip-gpu";
    return status;
  }
  GpuStatus status = create_context ? open_gpu(options.device, options.require_gpu)
                                    : probe_gpu(options.device, options.require_gpu);
  if (!status.usable && options.skip_cpu) {
    // Only the GPU part was asked for: running nothing and exiting 0 would look like success.
    throw ResourceError("a GPU is required by --skip-cpu (it runs only the GPU part) but none is usable: " +
                        status.reason);
  }
  return status;
}

std::int64_t CommonOptions::dim(const std::string& name) const {
  for (const auto& [dim_name, value] : dims) {
    if (dim_name == name) return value;
  }
  throw std::out_of_range("no dimension named " + name);
}

LessonCli::LessonCli(std::string name, std::string description, SizeOption size)
    : LessonCli(std::move(name), std::move(description), std::vector<SizeOption>{std::move(size)}) {}

LessonCli::LessonCli(std::string name, std::string description, std::vector<SizeOption> dims,
                     const std::string& size_flags, const std::string& size_description)
    : name_(std::move(name)), app_(std::move(description), name_), dims_(std::move(dims)) {
  if (dims_.empty()) throw std::logic_error("LessonCli: a lesson has at least one dimension");
  size_name_ = long_name(dims_.front().flags);
  dim_values_.resize(dims_.size());
  const bool one_dimension = dims_.size() == 1;
  for (std::size_t i = 0; i < dims_.size(); ++i) {
    const SizeOption& dim = dims_[i];
    dim_values_[i] = dim.default_value;
    // With one dimension, --size is simply another name of its flag.
    std::string flags = dim.flags;
    if (one_dimension && !size_flags.empty() && flags.find("--size") == std::string::npos) flags += "," + size_flags;
    dim_flags_.push_back(app_.add_option(flags, dim_values_[i], dim.description)
                             ->check(CLI::Range(dim.min_value, dim.max_value))
                             ->capture_default_str());
  }
  if (!one_dimension && !size_flags.empty()) {
    std::int64_t low = dims_.front().min_value, high = dims_.front().max_value;
    for (const SizeOption& dim : dims_) {
      if (!dim.set_by_size) continue;
      low = std::max(low, dim.min_value);
      high = std::min(high, dim.max_value);
    }
    size_flag_ = app_.add_option(size_flags, size_value_,
                                 size_description.empty() ? "sets every dimension at once" : size_description)
                     ->check(CLI::Range(low, high));
  }
  options_.size = dims_.front().default_value;
  add_common_options();
}

void LessonCli::add_common_options() {
  app_.add_option("--reps", options_.reps, "timed GPU repetitions (the median is reported)")
      ->check(CLI::Range(1, 100000))
      ->capture_default_str();
  app_.add_option("--warmup", options_.warmup, "untimed runs before timing")
      ->check(CLI::Range(0, 1000))
      ->capture_default_str();
  app_.add_option("--cpu-reps", options_.cpu_reps, "timed CPU repetitions")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  app_.add_option("--threads", options_.threads, "CPU threads for the OpenMP version (0 = all cores)")
      ->check(CLI::Range(0, 4096))
      ->capture_default_str();
  app_.add_option("--device", options_.device, "index of the GPU to use")->check(CLI::Range(0, 1023))->capture_default_str();
  app_.add_option("--seed", options_.seed, "seed of the random inputs (0 to 2^64-1)")->capture_default_str();
  app_.add_flag("--skip-cpu", options_.skip_cpu, "run only the GPU versions (the reference is still computed)");
  app_.add_flag("--skip-gpu", options_.skip_gpu, "run only the CPU versions");
  app_.add_flag("--require-gpu", options_.require_gpu,
                "fail (exit 3) instead of skipping the GPU part when no GPU is usable (also: COURSE_REQUIRE_GPU=1)");
  // Two plain flags rather than CLI11's "--flush-l2,!--no-flush-l2", whose help reads "{false}".
  app_.add_flag_callback("--flush-l2", [this] { options_.flush_l2 = true; },
                         "flush the GPU's L2 cache before each timed repetition (the default)");
  app_.add_flag_callback("--no-flush-l2", [this] { options_.flush_l2 = false; },
                         "keep the L2 cache warm between GPU repetitions");
  app_.add_option("--json", options_.json_path, "write the results as JSON to this file");
  app_.add_option("--timeout", options_.timeout,
                  "seconds a GPU row's run (its timed runs: 10x their expected time, at least this), an NVRTC "
                  "compile or an FFTW plan may take before the run is stopped with exit 3 (0 = no limit)")
      ->check(CLI::Validator(
          [](std::string& text) -> std::string {
            double value = -1;
            const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
            const bool fits = error == std::errc() && end == text.data() + text.size() && value >= 0 && value <= 604800;
            return fits ? std::string() : "'" + text + "' is not a number of seconds from 0 to 604800 (0: no limit)";
          },
          "SECONDS"))
      ->capture_default_str();
  app_.footer(
      "Exit codes: 0 all results verified, 1 a result failed verification, 2 bad command line, "
      "3 runtime error (CUDA error, out of memory, GPU required but absent).");
}

CLI::Validator multiple_of(int step, int most) {
  const std::string rule = "a multiple of " + std::to_string(step) + " from " + std::to_string(step) + " to " +
                           std::to_string(most);
  return CLI::Validator(
      [step, most, rule](std::string& text) -> std::string {
        long long value = 0;
        const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
        const bool fits = error == std::errc() && end == text.data() + text.size() && value >= step &&
                          value <= most && value % step == 0;
        return fits ? std::string() : "Value " + text + " is not " + rule;
      },
      "MULTIPLE OF " + std::to_string(step) + " IN [" + std::to_string(step) + " - " + std::to_string(most) + "]");
}

void parse_command_line(CLI::App& app, int argc, const char* const* argv) {
  try {
    app.parse(argc, argv);
    check_values(app);
    check_whole_numbers(app);
  } catch (const CLI::CallForHelp&) {
    throw HelpRequested(app.help());
  } catch (const CLI::CallForAllHelp&) {
    throw HelpRequested(app.help("", CLI::AppFormatMode::All));
  } catch (const CLI::ExtrasError&) {
    throw UsageError(extras_message(app, app.remaining()));
  } catch (const CLI::ArgumentMismatch& error) {
    check_values(app);
    throw UsageError(mismatch_message(one_line(error.what())));
  } catch (const CLI::ConversionError& error) {
    check_values(app);
    check_whole_numbers(app);
    throw UsageError(conversion_message(app, one_line(error.what())));
  } catch (const CLI::ParseError& error) {
    // A swallowed flag or an empty value, then "abc" as "not a whole number", before CLI11's
    // own wording ("not in range", "could not be converted").
    check_values(app);
    check_whole_numbers(app);
    throw UsageError(one_line(error.what()));
  }
}

const CommonOptions& LessonCli::parse(int argc, const char* const* argv) {
  command_line_.clear();
  for (int i = 0; i < argc; ++i) command_line_ += (i ? " " : "") + std::string(argv[i]);
  parse_command_line(app_, argc, argv);
  if (app_.count("--flush-l2") > 0 && app_.count("--no-flush-l2") > 0) {
    throw UsageError("--flush-l2 and --no-flush-l2 together: choose one");
  }
  if (options_.skip_cpu && options_.skip_gpu) {
    throw UsageError("--skip-cpu and --skip-gpu together leave nothing to run");
  }
  // Before any work: a run of minutes must not end in "cannot write", or block on a FIFO.
  if (app_.count("--json") > 0) check_output_path("--json", options_.json_path);
  options_.dims.clear();
  for (std::size_t i = 0; i < dims_.size(); ++i) {
    if (size_flag_ && size_flag_->count() > 0 && dims_[i].set_by_size && dim_flags_[i]->count() == 0) {
      dim_values_[i] = size_value_;
    }
    options_.dims.emplace_back(long_name(dims_[i].flags), dim_values_[i]);
  }
  options_.size = dim_values_.front();
  options_.require_gpu = options_.require_gpu || gpu_required_by_environment();
  set_watchdog_limit(options_.timeout);
  apply_cpu_threads(options_.threads);  // --threads, or OMP_NUM_THREADS: refused beyond what the machine runs
  return options_;
}

}  // namespace course
