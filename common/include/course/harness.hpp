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
//   setup         Variant::setup, or add_setup shared by several variants: run once, untimed by
//                 the rows' timers, timed on the host and reported (plans, compiles, handles),
//                 what it creates held in lesson.slot<T>() and destroyed before the GPU's stream;
//   outputs       Variant::checks: several named outputs, the row passes only if all pass.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
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

// A setup step several variants share (Lesson::add_setup): it runs once, before the first of them.
struct SetupStep {
  int id = -1;  // -1: none
};

struct Variant {
  std::string name;                    // the row's name, written once
  Target target = Target::cpu;
  Role role = Role::detail;
  std::string group;                   // "" when the lesson has one group; "FP32", "FP64", ...
  ThroughputUnit unit;                 // empty name: the lesson's default unit
  double work = 0;                     // per run, in unit.work_name (0: no throughput)
  std::string ceiling;                 // the ceiling's name ("d2d_copy", "fp32_fma", ...), or ""
  std::function<void()> setup;         // untimed, once, before the verified run; its time is reported
  SetupStep setup_step;                // a shared setup (add_setup) this variant needs first
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
// runs (after the rows), so they may use what the rows' setup created.
struct Sweep {
  std::string name;                    // as --sweep takes it: "launch" (declared with declare_sweep)
  std::string axis;                    // what the values are: "threads per block", "K"
  std::vector<std::int64_t> values;
  std::function<std::vector<Variant>(std::int64_t value)> points;  // the variants run at one value
  Target target = Target::gpu;         // what the points need: without it the sweep is listed as skipped
  std::string title;                   // one line above its table
};

// What a setup step creates, owned by the lesson (Lesson::slot<T>): empty until emplace().
class SlotBase {
 public:
  virtual ~SlotBase() = default;
};
template <class T>
class Slot : public SlotBase {
 public:
  template <class... Args>
  T& emplace(Args&&... args) {
    value_.emplace(std::forward<Args>(args)...);
    return *value_;
  }
  void reset() { value_.reset(); }
  bool has_value() const { return value_.has_value(); }
  explicit operator bool() const { return value_.has_value(); }
  T& get() {
    if (!value_) throw std::logic_error("a lesson slot was used before the setup step that fills it ran");
    return *value_;
  }
  T& operator*() { return get(); }
  T* operator->() { return &get(); }

 private:
  std::optional<T> value_;
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

  // Runs once, before the first GPU variant or ceiling, and only when a GPU is usable:
  // allocate device buffers, copy inputs in.
  void on_gpu(std::function<void()> setup);
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

  // A setup step shared by several variants (Variant::setup_step): it runs once, before the
  // first of them, untimed by their timers; its time is reported once ("setup" in the table).
  SetupStep add_setup(std::string name, std::function<void()> setup);
  // A place for what a setup step creates (a plan, a handle, pinned arrays): empty until the
  // step emplaces it; destroyed by the lesson, newest first, before its GPU stream.
  template <class T>
  Slot<T>& slot() {
    auto owned = std::make_unique<Slot<T>>();
    Slot<T>& slot = *owned;
    slots_.push_back(std::move(owned));
    return slot;
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
  std::vector<std::unique_ptr<SlotBase>> slots_;  // destroyed first, newest first (~Lesson)
  bool sweep_requested(const std::string& name) const;  // --sweep NAME was given
  void ensure_gpu_ready();
  void ensure_ceilings(Target target);
  Variant apply_traits(Variant variant, const KernelTraits& traits) const;
  void run_setup(const Variant& variant, Row& row);
  Row measure(const Variant& variant);
  void run_sweep(const Sweep& sweep);
};

}  // namespace course
