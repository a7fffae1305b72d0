// The lesson harness: poison -> run -> verify -> time -> row, for every declared variant.
#include "course/harness.hpp"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <iostream>
#include <stdexcept>

#include "course/check.hpp"
#include "course/errors.hpp"
#include "course/progress.hpp"
#include "course/stream.hpp"

namespace course {

struct Lesson::State {
  LessonCli cli;
  std::optional<Report> report;
  GpuStatus gpu;
  std::string title;
  ThroughputUnit unit = units::bandwidth();
  std::vector<Variant> variants;
  struct PendingCeiling {
    Target target;
    std::function<Ceiling()> measure;
  };
  std::vector<PendingCeiling> ceilings;
  bool cpu_ceilings_done = false, gpu_ceilings_done = false;
  bool gpu_ready = false, parsed = false, defer_context = false;
  std::optional<Stream> stream;
  std::optional<L2Flusher> flusher;
  std::vector<std::pair<std::string, std::string>> declared_sweeps;  // name, description
  std::vector<std::string> requested_sweeps;                         // --sweep NAME...
  std::vector<Sweep> sweeps;
  std::string help_text;                                             // appended to --help
  std::size_t sweep_max_points = 0;                                  // COURSE_SWEEP_MAX_POINTS; 0: all

  template <class... Args>
  explicit State(Args&&... args) : cli(std::forward<Args>(args)...) {}
};

Lesson::Lesson(std::string name, std::string description, SizeOption size)
    : state_(std::make_unique<State>(std::move(name), std::move(description), std::move(size))) {}

Lesson::Lesson(std::string name, std::string description, std::vector<SizeOption> dims, const std::string& size_flags,
               const std::string& size_description)
    : state_(std::make_unique<State>(std::move(name), std::move(description), std::move(dims), size_flags,
                                     size_description)) {}

Lesson::~Lesson() {
  // What setup steps made may use the GPU's stream or buffers: destroy it first, newest first.
  while (!steps_.empty()) steps_.pop_back();
  state_->sweeps.clear();
}

CLI::App& Lesson::cli() { return state_->cli.app(); }

void Lesson::add_kernel_option(std::vector<std::string>& selected, const std::vector<std::string>& names) {
  std::vector<std::string> choices = names;
  choices.emplace_back("all");
  std::string list;
  for (const std::string& name : choices) list += (list.empty() ? "" : ", ") + name;
  cli().add_option("-k,--kernel", selected, "kernel(s) to run, repeatable: " + list + " (default all)")
      ->check(CLI::IsMember(choices));
}

void Lesson::append_help(const std::string& text) {
  state_->help_text += (state_->help_text.empty() ? "" : "\n") + text;
}

void Lesson::declare_sweep(const std::string& name, const std::string& description) {
  if (state_->parsed) throw std::logic_error("Lesson::declare_sweep must come before parse");
  state_->declared_sweeps.emplace_back(name, description);
}

bool Lesson::sweep_requested(const std::string& name) const {
  const auto& requested = state_->requested_sweeps;
  return std::find(requested.begin(), requested.end(), name) != requested.end();
}

void Lesson::add_sweep(Sweep sweep) {
  const auto& declared = state_->declared_sweeps;
  const bool known = std::any_of(declared.begin(), declared.end(), [&](const auto& d) { return d.first == sweep.name; });
  if (!known) throw std::logic_error("Lesson::add_sweep: sweep '" + sweep.name + "' was not declared before parse");
  if (!sweep.points) throw std::logic_error("Lesson::add_sweep: sweep '" + sweep.name + "' has no points");
  state_->sweeps.push_back(std::move(sweep));
}

namespace {

// COURSE_SWEEP_MAX_POINTS=N runs only the first N values of every sweep (the quick mode of the
// documented commands sets it; the sweep's title says so). Unset or empty: every value. Anything
// but a whole number from 1 to 1000000 is a UsageError (exit 2), raised by Lesson::parse.
std::size_t sweep_max_points_from_environment() {
  const char* variable = std::getenv("COURSE_SWEEP_MAX_POINTS");
  if (variable == nullptr || *variable == '\0') return 0;
  const std::string text(variable);
  std::size_t limit = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), limit);
  if (error != std::errc() || end != text.data() + text.size() || limit < 1 || limit > 1000000) {
    std::string shown = text.substr(0, 40);  // one line, whatever the variable holds
    for (char& c : shown) c = (c >= 0x20 && c < 0x7f) ? c : '?';
    throw UsageError("COURSE_SWEEP_MAX_POINTS=" + shown + ": not a whole number from 1 to 1000000; unset it to run every point");
  }
  return limit;
}

}  // namespace

const CommonOptions& Lesson::parse(int argc, const char* const* argv) {
  if (!state_->declared_sweeps.empty()) {
    std::vector<std::string> names;
    std::string help = "also run a sweep, repeatable:";
    for (const auto& [name, description] : state_->declared_sweeps) {
      names.push_back(name);
      help += " " + name + " (" + description + ")";
    }
    cli().add_option("--sweep", state_->requested_sweeps, help)->check(CLI::IsMember(names));
  }
  if (!state_->help_text.empty()) cli().footer(state_->help_text + "\n" + cli().get_footer());
  const CommonOptions& options = state_->cli.parse(argc, argv);
  state_->sweep_max_points = sweep_max_points_from_environment();
  state_->gpu = open_gpu(options, /*create_context=*/!state_->defer_context);
  state_->report.emplace(state_->cli, state_->title, state_->unit);
  state_->report->set_gpu(state_->gpu);
  state_->parsed = true;
  return options;
}

void Lesson::defer_gpu_context() {
  if (state_->parsed) throw std::logic_error("Lesson::defer_gpu_context must come before parse");
  state_->defer_context = true;
}

const CommonOptions& Lesson::options() const { return state_->cli.options(); }
const GpuStatus& Lesson::gpu() const { return state_->gpu; }
bool Lesson::has_gpu() const { return state_->gpu.usable; }

Report& Lesson::report() {
  if (!state_->report) throw std::logic_error("Lesson::report before parse");
  return *state_->report;
}

void Lesson::record(const std::string& key, nlohmann::json value) {
  report().extra()[key] = std::move(value);
}

void Lesson::set_title(std::string title) {
  state_->title = title;
  if (state_->report) state_->report->set_title(std::move(title));
}

void Lesson::set_unit(ThroughputUnit unit) {
  if (state_->report) throw std::logic_error("Lesson::set_unit must come before parse");
  state_->unit = std::move(unit);
}

void Lesson::require_device_memory(std::size_t bytes, const std::string& what) const {
  if (has_gpu()) course::require_device_memory(bytes, what);
}

void Lesson::add_ceiling(Target target, std::function<Ceiling()> measure) {
  state_->ceilings.push_back({target, std::move(measure)});
}

void Lesson::add_device_copy_ceiling(double bytes, bool also_warm_l2) {
  add_ceiling(Target::gpu, [this, bytes] {
    return measure_device_copy(static_cast<std::size_t>(bytes), options().gpu_repeat(), options().flush_l2);
  });
  if (also_warm_l2) {
    add_ceiling(Target::gpu, [this, bytes] {
      Ceiling warm = measure_device_copy(static_cast<std::size_t>(bytes), options().gpu_repeat(), false);
      warm.name = "d2d_copy_warm_l2";
      return warm;
    });
  }
}

void Lesson::add_fma_ceiling(Precision precision) {
  add_ceiling(Target::gpu, [this, precision] { return measure_fma_throughput(precision, options().gpu_repeat()); });
}

void Lesson::add_host_copy_ceiling(double bytes) {
  add_ceiling(Target::cpu, [this, bytes] {
    // At least 10 repetitions, whatever --cpu-reps says: every CPU row is divided by this one
    // number, and a shared host's memory is noisy. A copy is cheap next to the rows it serves.
    RepeatOptions repeat = options().cpu_repeat();
    repeat.warmup = 1;
    repeat.reps = std::max(repeat.reps, 10);
    return measure_host_copy(static_cast<std::size_t>(bytes), repeat);
  });
}

void Lesson::check_variant(const Variant& variant) {
  const std::string name = "variant '" + variant.name + "'";
  if (variant.name.empty()) throw std::logic_error("Lesson::add: a variant needs a name");
  if (!variant.run && variant.skip.empty()) throw std::logic_error("Lesson::add: " + name + " has nothing to run");
  if (variant.check.verify && !variant.checks.empty()) {
    throw std::logic_error("Lesson::add: " + name + " has both check and checks: put every output in checks");
  }
  if (variant.expected_to_fail && !variant.check.verify && variant.checks.empty()) {
    throw std::logic_error("Lesson::add: " + name + " is expected to fail but has no check");
  }
  for (SetupStep& step : variant.setup) {
    const bool owned = std::any_of(steps_.begin(), steps_.end(), [&](const auto& s) { return s.get() == &step; });
    if (!owned) throw std::logic_error("Lesson::add: " + name + " names a setup step this lesson does not have");
    if (step.name().empty() && step.claimed_) {
      throw std::logic_error("Lesson::add: " + name + " names another row's own (unnamed) setup step: give it a name to share it");
    }
    step.claimed_ = true;
  }
}

Variant& Lesson::add(Variant variant) {
  check_variant(variant);
  state_->variants.push_back(std::move(variant));
  return state_->variants.back();
}

Variant Lesson::apply_traits(Variant variant, const KernelTraits& traits) const {
  if (traits.headline) variant.role = Role::gpu_kernel;
  if (traits.max_reps > 0) {
    const bool gpu = variant.target == Target::gpu;
    RepeatOptions repeat = variant.repeat ? *variant.repeat : (gpu ? options().gpu_repeat() : options().cpu_repeat());
    repeat.reps = std::min(repeat.reps, traits.max_reps);
    repeat.warmup = std::min(repeat.warmup, 1);  // a slow kernel's single warm-up is enough
    variant.repeat = repeat;
  }
  variant.expected_to_fail = variant.expected_to_fail || traits.expected_to_fail;
  if (variant.target == Target::gpu && has_gpu() && gpu().device) {
    const std::string reason = unsupported_reason(traits, gpu().device->cc_major, gpu().device->cc_minor);
    if (!reason.empty() && variant.skip.empty()) variant.skip = reason;
  }
  return variant;
}

cudaStream_t Lesson::stream() {
  ensure_gpu_ready();
  return state_->stream->get();
}

void Lesson::ensure_gpu_ready() {
  if (state_->gpu_ready) return;
  if (!has_gpu()) throw std::logic_error("Lesson: GPU work asked for without a usable GPU");
  state_->stream.emplace();
  if (options().flush_l2) state_->flusher.emplace();
  state_->gpu_ready = true;
}

void Lesson::ensure_ceilings(Target target) {
  bool& done = target == Target::gpu ? state_->gpu_ceilings_done : state_->cpu_ceilings_done;
  if (done) return;
  done = true;
  for (const auto& pending : state_->ceilings) {
    if (pending.target == target) report().add_ceiling(pending.measure());
  }
}

// The variant's steps that have not run yet, in its order, each timed apart: a named one on its
// own line, an unnamed one (the row's own) in the row's setup column.
void Lesson::run_setup(const Variant& variant, Row& row) {
  for (SetupStep& step : variant.setup) {
    if (step.done_) continue;
    step.done_ = true;
    HostTimer timer;
    step.run();
    const double ms = timer.elapsed_ms();
    if (step.name().empty()) {
      row.setup_ms = row.setup_ms.value_or(0) + ms;
    } else {
      report().add_setup({step.name(), ms, variant.name});
    }
  }
}

Row Lesson::measure(const Variant& variant) {
  const CommonOptions& options = this->options();
  const bool gpu = variant.target == Target::gpu;
  Row row{variant.name, variant.target, variant.role};
  row.group = variant.group;
  row.unit = variant.unit;
  row.note = variant.note;
  row.expected_to_fail = variant.expected_to_fail;
  row.skipped = !variant.skip.empty() ? variant.skip
                : gpu && !has_gpu()   ? state_->gpu.reason
                : !gpu && options.skip_cpu ? "--skip-cpu" : "";
  if (!row.skipped.empty()) return row;
  // The watchdog (course/watchdog.hpp) stops a GPU row that never ends: a kernel in an endless
  // loop would otherwise hold the GPU until someone kills the program. CPU rows are not limited.
  const double limit = gpu ? options.timeout : 0;
  const std::string row_name = "GPU row '" + variant.name + "'";
  {
    WatchdogScope watchdog(row_name + " (GPU setup and ceilings)", limit);
    if (gpu) ensure_gpu_ready();
    ensure_ceilings(variant.target);
  }
  {
    // A row's setup may do long host work before any GPU work (lesson 04 computes its
    // double-precision reference there: over a minute at 16384^3), so it gets 10 times the limit.
    WatchdogScope watchdog(row_name + " (its setup)", 10 * limit);
    run_setup(variant, row);
  }
  cudaStream_t stream = gpu ? state_->stream->get() : nullptr;
  auto run_and_wait = [&] {
    variant.run(stream);
    if (gpu) state_->stream->synchronize();
  };

  // The verified run: outputs poisoned first, so an element nothing wrote fails.
  bool poisoned = false;
  auto poison = [&](const Check& check) {
    if (check.poison) check.poison();
    poisoned = poisoned || check.poison;
  };
  poison(variant.check);
  for (const OutputCheck& output : variant.checks) poison(output.check);
  if (poisoned && gpu) CUDA_CHECK(cudaDeviceSynchronize());  // DeviceBuffer::poison runs in the legacy stream
  double verified_seconds = 0;
  {
    WatchdogScope watchdog(row_name, limit);
    HostTimer timer;
    run_and_wait();
    verified_seconds = timer.elapsed_ms() / 1e3;
  }
  if (variant.check.verify) row.check = variant.check.verify();
  for (const OutputCheck& output : variant.checks) {
    if (output.check.verify) row.outputs.push_back({output.output, output.check.verify()});
  }
  if (!row.outputs.empty()) row.check = combine_outputs(row.outputs);
  if (variant.note_after_run) {
    const std::string note = variant.note_after_run();
    row.note = row.note.empty() ? note : row.note + "; " + note;
  }

  if (variant.timed) {
    const RepeatOptions repeat = variant.repeat ? *variant.repeat : (gpu ? options.gpu_repeat() : options.cpu_repeat());
    const Timing timing = variant.timing == Timing::automatic ? (gpu ? Timing::events : Timing::host) : variant.timing;
    // A row of long repetitions says how far it is (course/progress.hpp; quiet when quick). Host
    // timing counts each run (a clock read beside runs of milliseconds); event-timed runs are not
    // counted (the rows' line covers them), so nothing runs between a start event and its launch.
    Progress progress(variant.name, static_cast<std::uint64_t>(repeat.warmup + repeat.reps), "timed runs");
    // The timed runs together: 10x what the verified run took, each, and never less than --timeout.
    const double runs = repeat.warmup + repeat.reps + 1.0;  // + 1: the flushes and events around them
    WatchdogScope watchdog(row_name + " (its timed runs)", limit > 0 ? std::max(limit, 10 * verified_seconds * runs) : 0);
    if (timing == Timing::events) {
      if (!gpu) throw std::logic_error("variant '" + variant.name + "': event timing needs a GPU variant");
      const L2Flusher* flusher = variant.flush_l2 && state_->flusher ? &*state_->flusher : nullptr;
      row.time = time_device(repeat, stream, [&] { variant.run(stream); }, flusher);
    } else {
      row.time = time_host(repeat, [&] {
        run_and_wait();
        progress.advance();
      });
    }
    row.work = variant.work;
    row.ceiling = variant.ceiling;
  }
  return row;
}

void Lesson::run_sweep(const Sweep& sweep) {
  SweepResult result{sweep.name, sweep.axis, sweep.title, "", {}};
  const bool gpu = sweep.target == Target::gpu;
  if (gpu && !has_gpu()) {
    result.skipped = state_->gpu.reason;
  } else if (!gpu && options().skip_cpu) {
    result.skipped = "--skip-cpu";
  } else {
    // COURSE_SWEEP_MAX_POINTS keeps the axis's first values (the smallest sizes: the quick mode
    // of the documented commands); the title says what was left out.
    std::vector<std::int64_t> values = sweep.values;
    const std::size_t limit = state_->sweep_max_points;
    if (limit > 0 && values.size() > limit) {
      result.title += (result.title.empty() ? "" : " ") + std::string("(the first ") + std::to_string(limit) + " of " +
                      std::to_string(values.size()) + " values of " + sweep.axis + ": COURSE_SWEEP_MAX_POINTS)";
      values.resize(limit);
    }
    Progress progress("sweep " + sweep.name, values.size(), "values of " + sweep.axis);
    for (const std::int64_t value : values) {
      const std::size_t kept = steps_.size();  // the steps made for this value go after its points
      {
        const std::vector<Variant> points = sweep.points(value);
        for (const Variant& variant : points) check_variant(variant);
        for (const Variant& variant : points) result.points.push_back({value, measure(variant)});
      }
      while (steps_.size() > kept) steps_.pop_back();
      progress.advance();
    }
  }
  report().add_sweep(std::move(result));
}

void Lesson::run_variants() {
  if (!state_->parsed) throw std::logic_error("Lesson::run_variants before parse");
  // Rows that will run (a skipped one takes no time, so it is not counted in the estimate).
  auto runs = [&](const Variant& variant) {
    const bool gpu = variant.target == Target::gpu;
    return variant.skip.empty() && (gpu ? has_gpu() : !options().skip_cpu);
  };
  const auto& variants = state_->variants;
  Progress progress("rows", static_cast<std::uint64_t>(std::count_if(variants.begin(), variants.end(), runs)), "rows");
  for (const Variant& variant : variants) {
    report().add(measure(variant));
    if (runs(variant)) progress.advance();
  }
  for (const std::string& name : state_->requested_sweeps) {
    const auto& sweeps = state_->sweeps;
    if (std::none_of(sweeps.begin(), sweeps.end(), [&](const Sweep& sweep) { return sweep.name == name; })) {
      throw std::logic_error("--sweep " + name + " was given but the lesson added no sweep of that name");
    }
  }
  for (const Sweep& sweep : state_->sweeps) {
    if (sweep_requested(sweep.name)) run_sweep(sweep);
  }
}

int Lesson::finish() {
  Report& report = this->report();
  report.print(std::cout);
  std::cout.flush();
  const bool printed = static_cast<bool>(std::cout);
  if (!options().json_path.empty()) report.write_json(options().json_path);
  // stdout on a full disk or a closed pipe: the table is lost, which is not a success.
  if (!printed) throw Error("cannot write the results table to standard output (a full disk or a closed pipe?)");
  return report.exit_code();
}

}  // namespace course
