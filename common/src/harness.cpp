// The lesson harness: poison -> run -> verify -> time -> row, for every declared variant.
#include "course/harness.hpp"

#include <algorithm>
#include <iostream>
#include <stdexcept>

#include "course/check.hpp"
#include "course/errors.hpp"
#include "course/stream.hpp"

namespace course {

struct Lesson::State {
  LessonCli cli;
  std::optional<Report> report;
  GpuStatus gpu;
  std::string title;
  ThroughputUnit unit = units::bandwidth();
  std::vector<Variant> variants;
  std::function<void()> gpu_setup;
  struct PendingCeiling {
    Target target;
    std::function<Ceiling()> measure;
  };
  std::vector<PendingCeiling> ceilings;
  bool cpu_ceilings_done = false, gpu_ceilings_done = false;
  bool gpu_ready = false, parsed = false, defer_context = false;
  std::optional<Stream> stream;
  std::optional<L2Flusher> flusher;

  template <class... Args>
  explicit State(Args&&... args) : cli(std::forward<Args>(args)...) {}
};

Lesson::Lesson(std::string name, std::string description, SizeOption size)
    : state_(std::make_unique<State>(std::move(name), std::move(description), std::move(size))) {}

Lesson::Lesson(std::string name, std::string description, std::vector<SizeOption> dims, const std::string& size_flags,
               const std::string& size_description)
    : state_(std::make_unique<State>(std::move(name), std::move(description), std::move(dims), size_flags,
                                     size_description)) {}

Lesson::~Lesson() = default;

CLI::App& Lesson::cli() { return state_->cli.app(); }

void Lesson::add_kernel_option(std::vector<std::string>& selected, const std::vector<std::string>& names) {
  std::vector<std::string> choices = names;
  choices.emplace_back("all");
  std::string list;
  for (const std::string& name : choices) list += (list.empty() ? "" : ", ") + name;
  cli().add_option("-k,--kernel", selected, "kernel(s) to run, repeatable: " + list + " (default all)")
      ->check(CLI::IsMember(choices));
}

const CommonOptions& Lesson::parse(int argc, const char* const* argv) {
  const CommonOptions& options = state_->cli.parse(argc, argv);
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

void Lesson::on_gpu(std::function<void()> setup) { state_->gpu_setup = std::move(setup); }

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

Variant& Lesson::add(Variant variant) {
  if (variant.name.empty()) throw std::logic_error("Lesson::add: a variant needs a name");
  if (!variant.run) throw std::logic_error("Lesson::add: variant '" + variant.name + "' has nothing to run");
  state_->variants.push_back(std::move(variant));
  return state_->variants.back();
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
  state_->gpu_ready = true;  // before the setup, which may ask for stream()
  if (state_->gpu_setup) state_->gpu_setup();
}

void Lesson::ensure_ceilings(Target target) {
  bool& done = target == Target::gpu ? state_->gpu_ceilings_done : state_->cpu_ceilings_done;
  if (done) return;
  done = true;
  for (const auto& pending : state_->ceilings) {
    if (pending.target == target) report().add_ceiling(pending.measure());
  }
}

void Lesson::run_one(const Variant& variant) {
  const CommonOptions& options = this->options();
  const bool gpu = variant.target == Target::gpu;
  Row row{variant.name, variant.target, variant.role};
  row.unit = variant.unit;
  row.note = variant.note;

  if (gpu && !has_gpu()) {
    row.skipped = state_->gpu.reason;
    report().add(std::move(row));
    return;
  }
  if (!gpu && options.skip_cpu) {
    row.skipped = "--skip-cpu";
    report().add(std::move(row));
    return;
  }
  if (gpu) ensure_gpu_ready();
  ensure_ceilings(variant.target);
  cudaStream_t stream = gpu ? state_->stream->get() : nullptr;
  auto run_and_wait = [&] {
    variant.run(stream);
    if (gpu) state_->stream->synchronize();
  };

  // The verified run: outputs poisoned first, so an element nothing wrote fails.
  if (variant.check.poison) {
    variant.check.poison();
    if (gpu) CUDA_CHECK(cudaDeviceSynchronize());  // DeviceBuffer::poison runs in the legacy stream
  }
  run_and_wait();
  if (variant.check.verify) row.check = variant.check.verify();
  if (variant.note_after_run) {
    const std::string note = variant.note_after_run();
    row.note = row.note.empty() ? note : row.note + "; " + note;
  }

  if (variant.timed) {
    const RepeatOptions repeat = variant.repeat ? *variant.repeat : (gpu ? options.gpu_repeat() : options.cpu_repeat());
    const Timing timing = variant.timing == Timing::automatic ? (gpu ? Timing::events : Timing::host) : variant.timing;
    if (timing == Timing::events) {
      if (!gpu) throw std::logic_error("variant '" + variant.name + "': event timing needs a GPU variant");
      const L2Flusher* flusher = variant.flush_l2 && state_->flusher ? &*state_->flusher : nullptr;
      row.time = time_device(repeat, stream, [&] { variant.run(stream); }, flusher);
    } else {
      row.time = time_host(repeat, run_and_wait);
    }
    row.work = variant.work;
    row.ceiling = variant.ceiling;
  }
  report().add(std::move(row));
}

void Lesson::run_variants() {
  if (!state_->parsed) throw std::logic_error("Lesson::run_variants before parse");
  for (const Variant& variant : state_->variants) run_one(variant);
}

int Lesson::finish() {
  Report& report = this->report();
  report.print(std::cout);
  if (!options().json_path.empty()) report.write_json(options().json_path);
  return report.exit_code();
}

}  // namespace course
