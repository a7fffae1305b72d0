// 03_streams: overlapping copies with compute. y = f(x), f = `intensity` steps of v = v * a + b,
// on the CPU and on the GPU, where the GPU must first get x and then give y back.
//
// Usage: 03_streams [-l N] [--streams S] [--chunks C] [--intensity K] [--kernel NAME] [shared flags: --help]
//   03_streams                       2^24 elements, 16 chunks over 4 streams, 100 steps each
//   03_streams --intensity 0         a pure copy: the transfers are everything
//   03_streams --intensity 2000      the kernel longer than the copies: the bottleneck moves to the SMs
//   03_streams --chunks 64 --streams 8
//   03_streams --json run.json       then: scripts/plot.py run.json --out plots (the timeline)
//
// The lesson declares its data and variants; the harness (course/harness.hpp) verifies, times
// and reports each one: the CPU versions, the kernel alone, the copies alone, the variants (a)
// to (d) (each timed from the first call to the end of its synchronization), and one more run
// of (c) with events around every stage (the timeline). Then the lesson's own part: stage
// times without overlap, the ideal pipeline, and the times of the rows set against it.
#include <algorithm>
#include <functional>
#include <iostream>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "course/check.hpp"
#include "course/errors.hpp"
#include "course/format.hpp"
#include "course/harness.hpp"
#include "course/main.hpp"
#include "course/random.hpp"
#include "pipeline_report.hpp"
#include "streams.hpp"

namespace {

using course::Role;
using course::Target;

constexpr std::int64_t kDefaultLength = std::int64_t{1} << 24;
// 2^36 floats (256 GiB per array) is more than any machine here holds, so the largest size is
// refused by the memory checks (exit 3), never by a crash part-way through.
constexpr std::int64_t kMaxLength = std::int64_t{1} << 36;

struct LessonOptions {
  int streams = 4;
  int chunks = 16;
  int intensity = 100;
};

std::string plural(std::size_t count, const char* word) {
  return course::format_count(count) + " " + word + (count == 1 ? "" : "s");
}
std::string chunked_row(char variant, std::size_t chunks, std::size_t streams) {
  return std::string("GPU (") + variant + ") pinned, " + plural(chunks, "chunk") + " over " +
         plural(streams, "stream");
}

// Cross-flag checks CLI11's per-flag ranges cannot express. One line naming the flag, exit 2.
void check_flag_combinations(const LessonOptions& lesson, std::int64_t length) {
  if (lesson.chunks > length) {
    throw course::UsageError("--chunks: " + std::to_string(lesson.chunks) + " chunks for " +
                             std::to_string(length) + " elements (--length): at most one chunk per element");
  }
  if (lesson.streams > lesson.chunks) {
    throw course::UsageError("--streams: " + std::to_string(lesson.streams) + " streams for " +
                             std::to_string(lesson.chunks) +
                             " chunks (--chunks): a stream without a chunk has nothing to do");
  }
}

// The median of a row that ran, by name (0 when it did not).
double median_ms(const course::Report& report, const std::string& name) {
  for (const course::Row& row : report.rows()) {
    if (row.variant == name && row.time) return row.time->median_ms;
  }
  return 0;
}
// "in 12.7 GB/s, out 15.5 GB/s": two copy rows that ran before, for a later row's note.
std::string copy_rates(const course::Report& report, const std::string& in, const std::string& out) {
  auto rate = [&](const std::string& name) {
    for (const course::Row& row : report.rows()) {
      const auto value = row.variant == name ? row.throughput(report.unit()) : std::nullopt;
      if (value) return course::format_fixed(*value, 1) + " GB/s";
    }
    return std::string("-");
  };
  return "per direction, copies timed alone: in " + rate(in) + ", out " + rate(out);
}

int run(int argc, char** argv) {
  course::Lesson lesson("03_streams",
                        "y = f(x), f = K steps of v * a + b: copies to and from the GPU overlapped with the "
                        "kernel, over CUDA streams",
                        {"-l,--length", "number of elements", kDefaultLength, kMaxLength});
  LessonOptions flags;
  std::vector<std::string> kernel_names;
  lesson.add_kernel_option(kernel_names, course::kernel_names(streams::kernels()));
  lesson.cli().add_option("--streams", flags.streams, "CUDA streams the chunks are spread over (chunk i on i % S)")
      ->check(CLI::Range(1, 256))->capture_default_str();
  lesson.cli().add_option("--chunks", flags.chunks, "chunks the array is cut into for the pipelined variants")
      ->check(CLI::Range(1, 1 << 16))->capture_default_str();
  lesson.cli().add_option("--intensity", flags.intensity,
                          "steps of v = v * a + b per element: the kernel's arithmetic intensity")
      ->check(CLI::Range(0, streams::kMaxIntensity))->capture_default_str();
  const course::CommonOptions& options = lesson.parse(argc, argv);
  check_flag_combinations(flags, options.size);
  const auto selected = course::select_kernels(streams::kernels(), kernel_names);

  const std::size_t n = static_cast<std::size_t>(options.size);
  const int k = flags.intensity;
  const double array_bytes = 4.0 * static_cast<double>(n);
  const double bytes = 2 * array_bytes;  // x in once, y out once
  lesson.set_title("y = f(x), " + std::to_string(k) + " steps of v * a + b, over " + course::format_count(n) +
                   " floats");
  // Before the host allocates gigabytes it would not need: do x and y fit in the GPU? Then x
  // and a scratch y on the host; with a GPU also pinned x and y.
  lesson.require_device_memory(2 * n * sizeof(float), "x and y (2 x " + course::format_bytes(array_bytes) + ")");
  const std::size_t host_arrays = 2 + (lesson.has_gpu() ? 2 : 0);
  course::require_host_memory(host_arrays * n * sizeof(float),
                              std::to_string(host_arrays) + " host arrays of " + course::format_bytes(array_bytes));

  std::vector<float> x(n), y(n);
  course::fill_normal(x, options.seed);  // mean 0, standard deviation 1
  // The definition of f, element by element: every variant, CPU or GPU, must equal it to the bit.
  const course::ReferenceBlock reference = streams::transform_reference(x, k);
  const course::Tolerance exact = course::Tolerance::exact();

  // f is 2K flops per element (a multiply and an add per step): the CPU rows and the kernel are
  // held to GFLOP/s. At K = 0 there are no flops, and f is a copy: bytes then.
  const bool flops = k > 0;
  const course::ThroughputUnit compute_unit = flops ? course::units::gflops() : course::units::bandwidth();
  const double compute_work = flops ? 2.0 * k * static_cast<double>(n) : bytes;

  // ---- CPU ----
  lesson.add({.name = "CPU f(x), 1 thread", .role = Role::cpu_serial, .unit = compute_unit, .work = compute_work,
              .run = [&](cudaStream_t) { streams::transform_serial(x, y, k); },
              .check = course::check_host<float>(y, reference, exact)});
  lesson.add({.name = "CPU f(x), " + std::to_string(options.cpu_threads()) + " threads (OpenMP)",
              .role = Role::cpu_parallel, .unit = compute_unit, .work = compute_work,
              .run = [&](cudaStream_t) { streams::transform_parallel(x, y, k); },
              .check = course::check_host<float>(y, reference, exact)});

  // ---- GPU: arrays, streams and ceilings, only when a GPU is usable ----
  streams::DeviceArrays device(0);
  streams::PinnedArrays host(0);
  std::vector<course::Stream> gpu_streams;
  lesson.on_gpu([&] {
    device = streams::DeviceArrays(n);
    host = streams::PinnedArrays(n);
    std::copy(x.begin(), x.end(), host.x.data());
    device.x.copy_from_host(x);
    gpu_streams = std::vector<course::Stream>(static_cast<std::size_t>(flags.streams));  // non-blocking
  });
  if (flops) {
    lesson.add_fma_ceiling(course::Precision::fp32);
  } else {
    lesson.add_device_copy_ceiling(bytes);
  }
  const auto copy_bytes = static_cast<std::size_t>(array_bytes);
  lesson.add_ceiling(Target::gpu, [&] {
    return course::measure_pinned_copy(copy_bytes, cudaMemcpyHostToDevice, options.gpu_repeat());
  });
  lesson.add_ceiling(Target::gpu, [&] {
    return course::measure_pinned_copy(copy_bytes, cudaMemcpyDeviceToHost, options.gpu_repeat());
  });

  // The kernel alone, on data already on the GPU; the first kernel selected is also the one
  // the variants (a) to (d) run.
  const streams::Transform transform{k, selected.front()->launch};
  for (const auto* kernel : selected) {
    auto shape = std::make_shared<course::LaunchShape>();
    const streams::Transform mine{k, kernel->launch};
    lesson.add({.name = "GPU kernel only (" + std::string(kernel->name) + ")", .target = Target::gpu,
                .role = kernel == selected.front() ? Role::gpu_kernel : Role::detail, .unit = compute_unit,
                .work = flops ? compute_work : bytes, .ceiling = flops ? "fp32_fma" : "d2d_copy",
                .run = [&, mine, shape](cudaStream_t s) {
                  *shape = mine.launch(device.x.data(), device.y.data(), n, mine, s);
                },
                .check = course::check_device<float>(device.y, y, reference, exact),
                .note = flops ? "a multiply and an add per step, never fused: at most half the FMA ceiling" : "",
                .note_after_run = [shape] { return shape->describe(); }});
  }

  // The copies alone, each direction: pinned (events, nothing to flush: the copy is the
  // measurement), pageable (host clock: cudaMemcpy from pageable memory blocks the host anyway).
  const std::string pinned_in = "GPU copy x to device, pinned", pinned_out = "GPU copy y to host, pinned";
  const std::string pageable_in = "GPU copy x to device, pageable", pageable_out = "GPU copy y to host, pageable";
  const std::string pageable_note = "held against the pinned copy: the share of it that pageable memory reaches";
  lesson.add({.name = pinned_in, .target = Target::gpu, .work = array_bytes, .ceiling = "pinned_h2d",
              .run = [&](cudaStream_t s) { device.x.copy_from_host_async(host.x.span(), s); }, .flush_l2 = false});
  lesson.add({.name = pinned_out, .target = Target::gpu, .work = array_bytes, .ceiling = "pinned_d2h",
              .run = [&](cudaStream_t s) { device.y.copy_to_host_async(host.y.span(), s); }, .flush_l2 = false});
  lesson.add({.name = pageable_in, .target = Target::gpu, .work = array_bytes, .ceiling = "pinned_h2d",
              .run = [&](cudaStream_t) {
                device.x.copy_from_host(x);
                CUDA_CHECK(cudaStreamSynchronize(nullptr));  // the last piece may still be in flight
              },
              .timing = course::Timing::host, .note = pageable_note});
  lesson.add({.name = pageable_out, .target = Target::gpu, .work = array_bytes, .ceiling = "pinned_d2h",
              .run = [&](cudaStream_t) { device.y.copy_to_host(y); }, .timing = course::Timing::host,
              .note = pageable_note});

  // The variants, x in host memory to y in host memory. Both the host and the device y are
  // poisoned before the verified run: a stage that skips an element must not leave the previous
  // variant's correct value behind. The host y is looked up when the check runs (the pinned
  // arrays exist only once on_gpu has run).
  auto end_to_end_check = [&](std::function<std::span<float>()> host_y) {
    return course::Check{[&, host_y] {
                           course::poison(host_y());
                           device.y.poison();
                         },
                         [&, host_y] { return course::verify(std::span<const float>(host_y()), reference, exact); }};
  };
  const auto pageable_y = [&] { return std::span<float>(y); };
  const auto pinned_y = [&] { return host.y.span(); };
  const std::string row_a = "GPU (a) pageable, cudaMemcpy, default stream", row_b = "GPU (b) pinned, 1 stream";
  lesson.add({.name = row_a, .target = Target::gpu, .work = bytes,
              .run = [&](cudaStream_t) { streams::run_pageable(x, y, device, transform); },
              .check = end_to_end_check(pageable_y), .timing = course::Timing::host,
              .note_after_run = [&] { return copy_rates(lesson.report(), pageable_in, pageable_out); }});
  lesson.add({.name = row_b, .target = Target::gpu, .work = bytes,
              .run = [&](cudaStream_t s) { streams::run_one_stream(host, device, transform, s); },
              .check = end_to_end_check(pinned_y), .timing = course::Timing::host,
              .note_after_run = [&] { return copy_rates(lesson.report(), pinned_in, pinned_out); }});

  // (c) and (d): chunks over streams; (d) needs a chunk count above --chunks that leaves a
  // remainder, and is listed as skipped when there is none.
  const std::vector<streams::Chunk> chunks = streams::split_chunks(n, static_cast<std::size_t>(flags.chunks));
  const auto unequal = streams::chunk_count_with_remainder(n, chunks.size());
  const std::vector<streams::Chunk> unequal_chunks = unequal ? streams::split_chunks(n, *unequal) : chunks;
  const auto stream_count = static_cast<std::size_t>(flags.streams);
  const std::string row_c = chunked_row('c', chunks.size(), stream_count);
  auto add_chunked = [&](const std::string& name, Role role, const std::vector<streams::Chunk>& list) {
    lesson.add({.name = name, .target = Target::gpu, .role = role, .work = bytes,
                .run = [&](cudaStream_t) { streams::run_pipelined(host, device, transform, list, gpu_streams); },
                .check = end_to_end_check(pinned_y), .timing = course::Timing::host,
                .note = "chunks of " + course::format_count(list.front().count) +
                        (list.front().count == list.back().count
                             ? ""
                             : " and " + course::format_count(list.back().count)) +
                        " elements, chunk i on stream i % " + std::to_string(stream_count) +
                        "; x in and y out at the same time, each direction at half this rate"});
  };
  add_chunked(row_c, Role::gpu_end_to_end, chunks);
  if (unequal) add_chunked(chunked_row('d', unequal_chunks.size(), stream_count), Role::detail, unequal_chunks);

  // One more run of (c) with events around every stage, for the timeline chart; verified like
  // every run, and timed once, on the host's clock like (c): the events cost a little.
  streams::Timeline timeline;
  lesson.add({.name = row_c + ", timeline run", .target = Target::gpu, .work = bytes,
              .run = [&](cudaStream_t) {
                timeline = streams::record_timeline(host, device, transform, chunks, gpu_streams);
              },
              .check = end_to_end_check(pinned_y), .timing = course::Timing::host,
              .repeat = course::RepeatOptions{0, 1},
              .note = "one run of (c) with events around every stage (--json: extra.timeline)"});

  lesson.run_variants();
  course::Report& report = lesson.report();
  if (!unequal) {
    report.add_skipped("GPU (d) pinned, unequal chunks", Target::gpu, Role::detail,
                       "no chunk count in (" + std::to_string(chunks.size()) + ", " + std::to_string(n) +
                           "] leaves a remainder for " + plural(n, "element"));
  }
  report.extra()["parameters"] = {{"streams", flags.streams},
                                  {"chunks", flags.chunks},
                                  {"intensity", k},
                                  {"kernel", selected.front()->name},
                                  {"a", streams::kA},
                                  {"b", streams::kB}};

  // The pipeline analysis: stage times without overlap, the best a pipeline could do, and the
  // rows' times against it.
  std::optional<streams::PipelineAnalysis> analysis;
  if (lesson.has_gpu()) {
    analysis.emplace();
    analysis->chunks = chunks.size();
    analysis->streams = stream_count;
    analysis->elements_per_chunk = chunks.front().count;
    analysis->intensity = k;
    analysis->array_bytes = array_bytes;
    analysis->stage = streams::measure_stages(host, device, transform, chunks, lesson.stream(), options.gpu_repeat());
    analysis->predict();
    analysis->pageable_ms = median_ms(report, row_a);
    analysis->one_stream_ms = median_ms(report, row_b);
    analysis->measured_ms = median_ms(report, row_c);
    analysis->timeline_span_ms = timeline.span_ms;
    report.extra()["pipeline"] = analysis->to_json();
    report.extra()["timeline"] = streams::timeline_json(timeline);
    report.extra()["context_creation_ms"] = lesson.gpu().context_creation_ms;
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
