// The lesson harness: a lesson declares what it runs, the harness runs it the same honest way.
//
// Teaches (how every lesson is built): a lesson's main.cpp says what is computed, on which
// data, by which variants, held against which ceilings. For every variant the harness then does
// the sequence each lesson used to write by hand, and writes it once:
//
//   poison the output -> run once -> verify against the reference -> time (warm-up, median;
//   GPU: events, L2 flushed) -> one row of the report
//
// and when there is no usable GPU it lists the GPU variants as skipped, with the reason, so a
// row's name is written once. Ceilings (device copy, FMA throughput, host copy, ...) are
// measured in the same run, right before the first variant that needs that device.
//
//   course::Lesson lesson("01_vector_exp", "y = exp(x) for a vector of floats",
//                         {{"-l,--length", "number of elements", 10'000'000, 1ll << 36}});
//   const course::CommonOptions& options = lesson.parse(argc, argv);
//   ...
//   lesson.add({.name = "CPU std::exp, 1 thread", .role = course::Role::cpu_serial, .work = bytes,
//               .run = [&](cudaStream_t) { exp_serial(x, y); },
//               .check = course::check_host<float>(y, reference, course::Tolerance::ulps(1))});
//   lesson.add({.name = "GPU expf", .target = course::Target::gpu, .work = bytes, .ceiling = "d2d_copy",
//               .run = [&](cudaStream_t s) { launch_exp(d_x.data(), d_y.data(), n, s); },
//               .check = course::check_device<float>(d_y, y, reference, course::Tolerance::ulps(2))});
//   lesson.run_variants();
//   return lesson.finish();   // the table, the JSON, the exit code
//
// Beyond single rows, a lesson is a table of experiments (docs/contributing.md, "How a lesson is built"):
//   add_kernels   one row per selected registry kernel and per precision it is built for, the
//                 headline, repetition cap and expected failure taken from its traits;
//   groups        Variant::group ("FP32", "FP64"): roles, speedups and the summary per group;
//   sweeps        declare_sweep before parse (the --sweep NAME flag), add_sweep after: one
//                 kernel at every value of an axis, each point verified and timed like a row,
//                 and a failed point fails the run;
//   setup         lesson.add_setup(name, make): untimed work (plans, compiles, handles, inputs
//                 copied to the device) that variants name in Variant::setup; see below.
//   outputs       Variant::checks: several named outputs, the row passes only if all pass.
//
// Setup, the one way: add_setup(name, make) returns a step that owns what make() returns; rows
// name the steps they need, and their run lambdas use the product through the step:
//
//   auto& plan = lesson.add_setup("cuFFT plan", [&] { return FftPlan(shape, lesson.stream()); });
//   lesson.add({.name = "GPU cuFFT", .target = course::Target::gpu, .setup = {plan},
//               .run = [&plan](cudaStream_t s) { plan->execute(s); }, ...});
//
// A step runs once, before the first variant that names it (after the GPU and the ceilings are
// ready), untimed by the rows' timers. Its host time is reported once: a step with a name on a
// "setup" line above the table (setup_steps in the JSON), a step with an empty name in its one
// row's "setup" column (setup_ms). make() may return nothing (the step fills the lesson's own
// data, such as device buffers). The lesson owns the products and destroys them newest first,
// before its GPU stream; a step made while a sweep builds its points at one value is destroyed
// once those points have run.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "course/ceilings.hpp"
#include "course/cli.hpp"
#include "course/device.hpp"
#include "course/device_buffer.hpp"
#include "course/kernel_registry.hpp"
#include "course/report.hpp"
#include "course/timing.hpp"
#include "course/verify.hpp"

namespace course {

// How a variant's output is checked: poison it before the verified run, verify it after
// (the GPU stream is synchronized in between).
struct Check {
  std::function<void()> poison;
  std::function<VerifyResult()> verify;
};

// One of several outputs of a variant (Variant::checks), by name: {"call", check_host(...)}.
struct OutputCheck {
  std::string output;
  Check check;
};

// A host output: poisoned, then verified against a reference.
template <class T>
Check check_host(std::span<T> output, ReferenceBlock reference, Tolerance tolerance) {
  return {[output] { poison(output); },
          [output, reference = std::move(reference), tolerance] {
            return verify(std::span<const T>(output), reference, tolerance);
          }};
}
// A double output against a reference in long double.
inline Check check_host(std::span<double> output, LongReferenceBlock reference, Tolerance tolerance) {
  return {[output] { poison(output); },
          [output, reference = std::move(reference), tolerance] {
            return verify(std::span<const double>(output), reference, tolerance);
          }};
}

// A device output: the device buffer is poisoned (0xFF bytes: NaN, or -1), then copied into
// `host` and verified.
template <class T>
Check check_device(DeviceBuffer<T>& output, std::span<T> host, ReferenceBlock reference, Tolerance tolerance) {
  return {[&output] { output.poison(); },
          [&output, host, reference = std::move(reference), tolerance] {
            output.copy_to_host(host);
            return verify(std::span<const T>(host), reference, tolerance);
          }};
}

inline Check check_device(DeviceBuffer<double>& output, std::span<double> host, LongReferenceBlock reference,
                          Tolerance tolerance) {
  return {[&output] { output.poison(); },
          [&output, host, reference = std::move(reference), tolerance] {
            output.copy_to_host(host);
            return verify(std::span<const double>(host), reference, tolerance);
          }};
}

// Integer outputs against an integer reference.
template <class T>
Check check_host_integers(std::span<T> output, std::span<const T> reference, IntegerTolerance tolerance) {
  return {[output] { poison(output); },
          [output, reference, tolerance] { return verify_integers(std::span<const T>(output), reference, tolerance); }};
}
template <class T>
Check check_device_integers(DeviceBuffer<T>& output, std::span<T> host, std::span<const T> reference,
                            IntegerTolerance tolerance) {
  return {[&output] { output.poison(); },
          [&output, host, reference, tolerance] {
            output.copy_to_host(host);
            return verify_integers(std::span<const T>(host), reference, tolerance);
          }};
}

// How a variant is timed.
enum class Timing {
  automatic,  // CPU: host clock; GPU: events in the lesson's stream
  events,     // GPU work enqueued by run(): CUDA events around it
  host,       // host clock around run(); for GPU variants the stream is synchronized inside
};

// A setup step (Lesson::add_setup), as variants name it in Variant::setup.
class SetupStep {
 public:
  virtual ~SetupStep() = default;
  SetupStep(const SetupStep&) = delete;
  SetupStep& operator=(const SetupStep&) = delete;

 protected:
  explicit SetupStep(std::string name) : name_(std::move(name)) {}
  const std::string& name() const { return name_; }  // "": its row's own step

 private:
  friend class Lesson;
  virtual void run() = 0;
  std::string name_;
  bool done_ = false;     // it ran (once)
  bool claimed_ = false;  // an unnamed step: a variant names it already
};

// A step whose make() returns a T: the product, owned by the lesson once the step has run (T
// need not be movable: make() returns it by value and it is made in place).
template <class T>
class Setup : public SetupStep {
 public:
  T& get() {
    if (!value_) throw std::logic_error("setup step '" + name() + "' used before it ran: name it in the row's .setup");
    return *value_;
  }
  T* operator->() { return &get(); }

 protected:
  using SetupStep::SetupStep;
  std::unique_ptr<T> value_;
};

// A step whose make() returns nothing: it fills the lesson's own data.
template <>
class Setup<void> : public SetupStep {
 protected:
  using SetupStep::SetupStep;
};

namespace detail {
template <class T, class Make>
class SetupOf final : public Setup<T> {
 public:
  SetupOf(std::string name, Make make) : Setup<T>(std::move(name)), make_(std::move(make)) {}

 private:
  void run() override {
    if constexpr (std::is_void_v<T>) {
      make_();
    } else {
      this->value_.reset(new T(make_()));  // made in place: T need not be movable
    }
  }
  Make make_;
};
}  // namespace detail

struct Variant {
  std::string name;                    // the row's name, written once
  Target target = Target::cpu;
  Role role = Role::detail;
  std::string group;                   // "" when the lesson has one group; "FP32", "FP64", ...
  ThroughputUnit unit;                 // empty name: the lesson's default unit
  double work = 0;                     // per run, in unit.work_name (0: no throughput)
  std::string ceiling;                 // the ceiling's name ("d2d_copy", "fp32_fma", ...), or ""
  std::vector<std::reference_wrapper<SetupStep>> setup;  // the steps (add_setup) it needs, run first in this order
  std::function<void(cudaStream_t)> run;  // does the work once (GPU: enqueues it in the stream)
  Check check;                         // one output; empty (and no checks): the row is not verified
  std::vector<OutputCheck> checks;     // several outputs instead: the row passes only if all pass
  Timing timing = Timing::automatic;
  bool flush_l2 = true;                // GPU event timing: flush L2 before each repetition (if --flush-l2)
  bool timed = true;                   // false: verified only (a tiny demo), no time
  std::optional<RepeatOptions> repeat; // default: --warmup/--reps (GPU) or --cpu-reps (CPU)
  bool expected_to_fail = false;       // a teaching row: its check must fail; passing fails the run
  std::string skip;                    // non-empty: not run, listed as skipped with this reason
  std::string note;                    // printed under the table
  std::function<std::string()> note_after_run;  // a note known only after the run (e.g. the grid)
};

// A sweep: the same work at every value of an axis. Each point is a Variant and goes through
// the same poison -> run -> verify -> time path as a row; the points are built when the sweep
// runs (after the rows), so they may use what the rows' setup created. The lesson destroys its
// sweeps (and what `points` holds) right after its setup steps, before its GPU stream.
struct Sweep {
  std::string name;                    // as --sweep takes it: "launch" (declared with declare_sweep)
  std::string axis;                    // what the values are: "threads per block", "K"
  std::vector<std::int64_t> values;
  std::function<std::vector<Variant>(std::int64_t value)> points;  // the variants run at one value
  Target target = Target::gpu;         // what the points need: without it the sweep is listed as skipped
  std::string title;                   // one line above its table
};

class Lesson {
 public:
  Lesson(std::string name, std::string description, SizeOption size);
  Lesson(std::string name, std::string description, std::vector<SizeOption> dims,
         const std::string& size_flags = "--size", const std::string& size_description = "");
  ~Lesson();
  Lesson(const Lesson&) = delete;
  Lesson& operator=(const Lesson&) = delete;

  // ---- before parse: the lesson's own flags ----
  CLI::App& cli();
  // -k/--kernel NAME, repeatable, or "all" (the default): fills `selected` with the names given.
  void add_kernel_option(std::vector<std::string>& selected, const std::vector<std::string>& names);
  // The same for a registry, whose kernels --help then lists with their summaries and tuning.
  template <class Launcher>
  void add_kernel_option(std::vector<std::string>& selected, std::span<const KernelEntry<Launcher>> kernels) {
    add_kernel_option(selected, kernel_names(kernels));
    append_help(kernel_help(kernels));
  }
  void append_help(const std::string& text);  // a paragraph at the end of --help
  // --sweep NAME (repeatable): declares a sweep the lesson can run; add_sweep gives its points.
  void declare_sweep(const std::string& name, const std::string& description);

  // For a lesson that opens the GPU through the driver API itself (lesson 08): parse() then only
  // probes the GPU (no context is created), and the runtime shares the primary context at its
  // first call. Call before parse().
  void defer_gpu_context();

  // Parses the command line (UsageError on a bad one) and opens the GPU, unless --skip-gpu.
  const CommonOptions& parse(int argc, const char* const* argv);
  const CommonOptions& options() const;
  const GpuStatus& gpu() const;
  bool has_gpu() const;  // usable and not skipped

  // ---- after parse: data, ceilings, variants ----
  void set_title(std::string title);                    // "y = exp(x) over 10,000,000 floats"
  void set_unit(ThroughputUnit unit);                   // the default unit of rows (GB/s if never set)
  // Fails early (ResourceError, exit 3) if the GPU part would not fit; does nothing without a GPU.
  void require_device_memory(std::size_t bytes, const std::string& what) const;

  // A ceiling measured before the first variant of its target runs (GPU ones only with a GPU).
  void add_ceiling(Target target, std::function<Ceiling()> measure);
  // The usual ones: a device-to-device copy moving `bytes` (also "d2d_copy_warm_l2" when the
  // L2 is flushed), FP32 or FP64 FMA throughput, and a multi-threaded host copy.
  void add_device_copy_ceiling(double bytes, bool also_warm_l2 = false);
  void add_fma_ceiling(Precision precision);
  void add_host_copy_ceiling(double bytes);

  Variant& add(Variant variant);
  cudaStream_t stream();  // the stream GPU variants run in (created with the GPU)

  // One row per kernel that --kernel selected (select_kernels) and per precision its traits
  // list: make(kernel, precision) builds the row; then the traits apply: role gpu_kernel for the
  // headline of that precision, the group "FP32"/"FP64" for a typed registry (where make left
  // it empty), the repetition cap, expected_to_fail. Returns the selected entries.
  template <class Launcher, class MakeVariant>
  std::vector<const KernelEntry<Launcher>*> add_kernels(std::span<const KernelEntry<Launcher>> kernels,
                                                        const std::vector<std::string>& selected, MakeVariant make) {
    for (const Precision precision : {Precision::fp32, Precision::fp64}) {
      bool any = false;  // a registry with kernels for a precision has exactly one headline there
      for (const auto& kernel : kernels) any = any || includes(kernel.traits.precisions, precision);
      if (any) (void)headline_kernel(kernels, precision);
    }
    const auto chosen = select_kernels(kernels, selected);
    for (const KernelEntry<Launcher>* kernel : chosen) {
      for (const Precision precision : precisions_in(kernel->traits.precisions)) {
        Variant variant = make(*kernel, precision);
        if (is_typed_launcher_v<Launcher> && variant.group.empty()) variant.group = precision_name(precision);
        add(apply_traits(std::move(variant), kernel->traits));
      }
    }
    return chosen;
  }

  // A setup step (see the top of this file): variants name it in Variant::setup; it runs
  // make() once, before the first of them, and owns what make() returns.
  template <class Make>
  Setup<std::invoke_result_t<Make&>>& add_setup(std::string name, Make make) {
    using T = std::invoke_result_t<Make&>;
    auto owned = std::make_unique<detail::SetupOf<T, Make>>(std::move(name), std::move(make));
    Setup<T>& step = *owned;
    steps_.push_back(std::move(owned));
    return step;
  }

  // Its values and points; runs after the rows, and only if --sweep named it.
  void add_sweep(Sweep sweep);

  // Runs every variant in the order added, then the sweeps that --sweep asked for.
  void run_variants();
  Report& report();
  // Lesson-specific data (a timeline, a demonstration's result): written under "extra" in the
  // JSON as report["extra"][key]; recording a key again replaces it.
  void record(const std::string& key, nlohmann::json value);
  // Prints the table, writes the JSON (--json), returns the exit code (0 or 1).
  int finish();

 private:
  struct State;
  std::unique_ptr<State> state_;
  std::vector<std::unique_ptr<SetupStep>> steps_;  // destroyed first, newest first (~Lesson)
  bool sweep_requested(const std::string& name) const;  // --sweep NAME was given
  void ensure_gpu_ready();
  void ensure_ceilings(Target target);
  Variant apply_traits(Variant variant, const KernelTraits& traits) const;
  void check_variant(const Variant& variant);
  void run_setup(const Variant& variant, Row& row);
  Row measure(const Variant& variant);
  void run_sweep(const Sweep& sweep);
};

}  // namespace course
