// 03_streams: overlapping copies with compute. y = f(x), f = `intensity` steps of v = v * a + b,
// on the CPU and on the GPU, where the GPU must first get x and then give y back.
//
// Usage: 03_streams [-l N] [--streams S] [--chunks C] [--intensity K] [--kernel NAME] [shared flags: --help]
//   03_streams                       2^24 elements, 16 chunks over 4 streams, 100 steps each
//   03_streams --intensity 0         a pure copy: the transfers are everything
//   03_streams --intensity 2000      the kernel longer than the copies: the bottleneck moves to the SMs
//   03_streams --chunks 64 --streams 8
//   03_streams --json run.json       then: scripts/plot.py run.json --out plots (the timeline)
// The harness verifies, times and reports every row declared here; then the pipeline analysis
// (pipeline_report.cpp) sets the stage times and the ideal pipeline against the rows' times.
#include <algorithm>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "course/format.hpp"
#include "course/harness.hpp"
#include "course/main.hpp"
#include "course/random.hpp"
#include "pipeline_report.hpp"
#include "streams.hpp"
#include "variants.hpp"

namespace {

using course::Role;
using course::Target;

struct Flags {
  int streams = 4, chunks = 16, intensity = 100;
  std::vector<std::string> kernels;
};

void add_flags(course::Lesson& lesson, Flags& flags) {
  lesson.add_kernel_option(flags.kernels, streams::kernels());
  lesson.cli().add_option("--streams", flags.streams, "CUDA streams the chunks are spread over (chunk i on i % S)")
      ->check(CLI::Range(1, 256))->capture_default_str();
  lesson.cli().add_option("--chunks", flags.chunks, "chunks the array is cut into for the pipelined variants")
      ->check(CLI::Range(1, 1 << 16))->capture_default_str();
  lesson.cli().add_option("--intensity", flags.intensity, "steps of v = v * a + b per element: the kernel's arithmetic intensity")
      ->check(CLI::Range(0, streams::kMaxIntensity))->capture_default_str();
}

// f is 2K flops per element (a multiply and an add per step): the CPU rows and the kernel alone are
// held to GFLOP/s, the kernel against the FMA ceiling. At K = 0 f is a copy: bytes. The device and
// pinned arrays and the streams are one setup step that every GPU row names. Returns the kernels
// --kernel selected.
auto add_compute_rows(course::Lesson& lesson, streams::TableData& d, const Flags& flags) {
  const int k = flags.intensity;
  const bool flops = k > 0;
  const course::ThroughputUnit unit = flops ? course::units::gflops() : course::units::bandwidth();
  const double work = flops ? 2.0 * k * static_cast<double>(d.x.size()) : 2 * d.array_bytes;
  const course::Check host_check = course::check_host<float>(d.y, d.reference, course::Tolerance::exact());
  lesson.add({.name = "CPU f(x), 1 thread", .role = Role::cpu_serial, .unit = unit, .work = work,
              .run = [&d, k](cudaStream_t) { streams::transform_serial(d.x, d.y, k); }, .check = host_check});
  lesson.add({.name = "CPU f(x), " + std::to_string(lesson.options().cpu_threads()) + " threads (OpenMP)",
              .role = Role::cpu_parallel, .unit = unit, .work = work,
              .run = [&d, k](cudaStream_t) { streams::transform_parallel(d.x, d.y, k); }, .check = host_check});

  d.arrays = &lesson.add_setup("device and pinned arrays, " + std::to_string(flags.streams) + " streams", [&d, &flags] {
    d.device.emplace(d.x.size());
    d.host.emplace(d.x.size());
    d.streams.emplace(static_cast<std::size_t>(flags.streams));
    std::copy(d.x.begin(), d.x.end(), d.host->x.data());
    d.device->x.copy_from_host(d.x);
  });
  if (flops) {
    lesson.add_fma_ceiling(course::Precision::fp32);
  } else {
    lesson.add_device_copy_ceiling(work);
  }
  for (const cudaMemcpyKind direction : {cudaMemcpyHostToDevice, cudaMemcpyDeviceToHost}) {
    lesson.add_ceiling(Target::gpu, [&lesson, &d, direction] {
      return course::measure_pinned_copy(static_cast<std::size_t>(d.array_bytes), direction, lesson.options().gpu_repeat());
    });
  }
  return lesson.add_kernels(streams::kernels(), flags.kernels, [&](const auto& kernel, course::Precision) {
    auto shape = std::make_shared<course::LaunchShape>();  // the kernel alone, on data already on the GPU
    return course::Variant{.name = "GPU kernel only (" + std::string(kernel.name) + ")", .target = Target::gpu, .unit = unit,
                           .work = work, .ceiling = flops ? "fp32_fma" : "d2d_copy", .setup = {*d.arrays},
                           .run = [&d, shape, mine = streams::Transform{k, kernel.launch}](cudaStream_t s) {
                             *shape = mine.launch(d.device->x.data(), d.device->y.data(), d.x.size(), mine, s);
                           },
                           .check = d.device_check(),
                           .note = flops ? "a multiply and an add per step, never fused: at most half the FMA ceiling" : "",
                           .note_after_run = [shape] { return shape->describe(); }};
  });
}

int run(int argc, char** argv) {
  course::Lesson lesson("03_streams", "y = f(x), f = K steps of v * a + b: copies to and from the GPU overlapped with the "
                                      "kernel, over CUDA streams",
                        {"-l,--length", "number of elements", std::int64_t{1} << 24, std::int64_t{1} << 36});
  Flags flags;  // 2^36 floats at most: more than any machine holds, refused by the memory checks (exit 3)
  add_flags(lesson, flags);
  const course::CommonOptions& options = lesson.parse(argc, argv);
  const std::size_t n = static_cast<std::size_t>(options.size), stream_count = static_cast<std::size_t>(flags.streams);
  streams::check_chunking(n, flags.chunks, flags.streams);
  streams::TableData d;
  d.array_bytes = 4.0 * static_cast<double>(n);
  lesson.set_title("y = f(x), " + std::to_string(flags.intensity) + " steps of v * a + b, over " + course::format_count(n) + " floats");
  // Before the host allocates what it would not need: x and y on the GPU; x, y (with a GPU also pinned x and y) on the host.
  lesson.require_device_memory(2 * n * sizeof(float), "x and y (2 x " + course::format_bytes(d.array_bytes) + ")");
  const std::size_t host_arrays = 2 + (lesson.has_gpu() ? 2 : 0);
  course::require_host_memory(host_arrays * n * sizeof(float),
                              std::to_string(host_arrays) + " host arrays of " + course::format_bytes(d.array_bytes));
  d.x.resize(n), d.y.resize(n);
  course::fill_normal(d.x, options.seed);  // mean 0, standard deviation 1
  d.reference = streams::transform_reference(d.x, flags.intensity);

  const auto chosen = add_compute_rows(lesson, d, flags);
  d.transform = streams::Transform{flags.intensity, chosen.front()->launch};
  streams::add_copy_rows(lesson, d);
  const std::vector<streams::Chunk> chunks = streams::split_chunks(n, static_cast<std::size_t>(flags.chunks));
  streams::Timeline timeline;
  const streams::PipelineRows rows = streams::add_variants(lesson, d, chunks, stream_count, timeline);
  lesson.run_variants();

  lesson.record("parameters", {{"streams", flags.streams}, {"chunks", flags.chunks}, {"intensity", flags.intensity},
                               {"kernel", chosen.front()->name}, {"a", streams::kA}, {"b", streams::kB}});
  std::optional<streams::PipelineAnalysis> analysis;
  if (lesson.has_gpu() && d.host.has_value()) {  // stage times without overlap, the ideal pipeline, the rows against it
    analysis = streams::analyse_pipeline(lesson.report(), rows, *d.host, *d.device, d.transform, chunks, stream_count,
                                         timeline, lesson.stream(), options.gpu_repeat());
    lesson.record("pipeline", analysis->to_json());
    lesson.record("timeline", streams::timeline_json(timeline));
    lesson.record("context_creation_ms", lesson.gpu().context_creation_ms);
  }
  const int status = lesson.finish();
  if (analysis) {
    std::cout.flush();
    analysis->print();
  }
  return status;
}

}  // namespace

int main(int argc, char** argv) { return course::run_lesson(argc, argv, run); }
