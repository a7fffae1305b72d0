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
#pragma once

#include <cuda_runtime_api.h>

#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "course/ceilings.hpp"
#include "course/cli.hpp"
#include "course/device.hpp"
#include "course/device_buffer.hpp"
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

// A host output: poisoned, then verified against a reference.
template <class T>
Check check_host(std::span<T> output, ReferenceBlock reference, Tolerance tolerance) {
  return {[output] { poison(output); },
          [output, reference = std::move(reference), tolerance] {
            return verify(std::span<const T>(output), reference, tolerance);
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

struct Variant {
  std::string name;                    // the row's name, written once
  Target target = Target::cpu;
  Role role = Role::detail;
  ThroughputUnit unit;                 // empty name: the lesson's default unit
  double work = 0;                     // per run, in unit.work_name (0: no throughput)
  std::string ceiling;                 // the ceiling's name ("d2d_copy", "fp32_fma", ...), or ""
  std::function<void(cudaStream_t)> run;  // does the work once (GPU: enqueues it in the stream)
  Check check;                         // empty: the row is not verified (and says so)
  Timing timing = Timing::automatic;
  bool flush_l2 = true;                // GPU event timing: flush L2 before each repetition (if --flush-l2)
  bool timed = true;                   // false: verified only (a tiny demo), no time
  std::optional<RepeatOptions> repeat; // default: --warmup/--reps (GPU) or --cpu-reps (CPU)
  std::string note;                    // printed under the table
  std::function<std::string()> note_after_run;  // a note known only after the run (e.g. the grid)
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

  // Runs every variant in the order added.
  void run_variants();
  Report& report();
  // Prints the table, writes the JSON (--json), returns the exit code (0 or 1).
  int finish();

 private:
  struct State;
  std::unique_ptr<State> state_;
  void ensure_gpu_ready();
  void ensure_ceilings(Target target);
  void run_one(const Variant& variant);
};

}  // namespace course
