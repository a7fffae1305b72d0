// 03_streams: overlapping copies with compute. y = f(x), f = `intensity` steps of v = v * a + b,
// on the CPU and on the GPU, where the GPU must first get x and then give y back.
//
// Usage: 03_streams [-n N] [--streams S] [--chunks C] [--intensity K] [shared flags: --help]
//   03_streams                       2^24 elements, 16 chunks over 4 streams, 100 steps each
//   03_streams --intensity 0         a pure copy: the transfers are everything
//   03_streams --intensity 2000      the kernel longer than the copies: the bottleneck moves to the SMs
//   03_streams --chunks 64 --streams 8
//   03_streams --json run.json       then: scripts/plot.py run.json --out plots (the timeline)
//
// Flow: options -> find the GPU and check the run fits -> random input -> CPU versions
// (verified against f as defined, element by element, then timed) ->
// ceilings -> GPU kernel alone -> the copies alone -> variants (a) to (d), each verified, then
// timed from the first call to the end of its synchronization -> stage times without overlap
// and the ideal pipeline -> one instrumented run for the timeline -> report, pipeline analysis.
#include <algorithm>
#include <cstdio>
#include <functional>
#include <iostream>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "course/ceilings.hpp"
#include "course/check.hpp"
#include "course/cli.hpp"
#include "course/device.hpp"
#include "course/format.hpp"
#include "course/main.hpp"
#include "course/random.hpp"
#include "course/report.hpp"
#include "course/stream.hpp"
#include "course/timing.hpp"
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

// The GPU rows of the table, in order; listed as skipped when there is no GPU.
const std::string kKernelRow = "GPU kernel only";
const std::string kPinnedInRow = "GPU copy x to device, pinned";
const std::string kPinnedOutRow = "GPU copy y to host, pinned";
const std::string kPageableInRow = "GPU copy x to device, pageable";
const std::string kPageableOutRow = "GPU copy y to host, pageable";
const std::string kPageableRow = "GPU (a) pageable, cudaMemcpy, default stream";
const std::string kOneStreamRow = "GPU (b) pinned, 1 stream";

std::string plural(std::size_t count, const char* word) {
  return course::format_count(count) + " " + word + (count == 1 ? "" : "s");
}
std::string chunked_row(char variant, std::size_t chunks, std::size_t streams) {
  return std::string("GPU (") + variant + ") pinned, " + plural(chunks, "chunk") + " over " +
         plural(streams, "stream");
}
std::string timeline_row(std::size_t chunks, std::size_t streams) {
  return chunked_row('c', chunks, streams) + ", timeline run";
}
// (d) needs a chunk count above --chunks that leaves a remainder; without one it is skipped.
const std::string kNoUnequalRow = "GPU (d) pinned, unequal chunks";
std::string no_unequal_reason(std::size_t chunks, std::size_t n) {
  return "no chunk count in (" + std::to_string(chunks) + ", " + std::to_string(n) + "] leaves a remainder for " +
         plural(n, "element");
}

double gbps(double bytes, double ms) { return bytes / (ms * 1e6); }
std::string gbps_text(double bytes, double ms) { return course::format_fixed(gbps(bytes, ms), 1) + " GB/s"; }

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


std::string flops_note(double elements, int intensity, double ms) {
  return "2 x " + std::to_string(intensity) + " flops per element: " +
         course::format_fixed(2.0 * intensity * elements / (ms * 1e6), 1) + " GFLOP/s";
}

void run_cpu(const course::CommonOptions& options, const LessonOptions& lesson, const std::vector<float>& x,
             const course::ReferenceBlock& reference, std::vector<float>& y, double bytes,
             course::Report& report) {
  struct Version {
    std::string name;
    Role role;
    void (*function)(std::span<const float>, std::span<float>, int);
  };
  const Version versions[] = {
      {"CPU f(x), 1 thread", Role::cpu_serial, overlap::transform_serial},
      {"CPU f(x), " + std::to_string(options.cpu_threads()) + " threads (OpenMP)", Role::cpu_parallel,
       overlap::transform_parallel}};
  for (const Version& version : versions) {
    course::Row row{version.name, Target::cpu, version.role};
    course::poison(y);  // an element the function skips stays NaN and fails
    version.function(x, y, lesson.intensity);
    row.check = course::verify(y, reference, course::Tolerance::exact());
    row.time = course::time_host(options.cpu_repeat(), [&] { version.function(x, y, lesson.intensity); });
    row.work = bytes;
    row.note = flops_note(static_cast<double>(x.size()), lesson.intensity, row.time->median_ms);
    report.add(std::move(row));
  }
}

// What the pipeline analysis prints and stores; all times in ms.
struct PipelineAnalysis {
  std::size_t chunks = 0, streams = 0, elements_per_chunk = 0;
  int intensity = 0;
  overlap::StageTimes stage;
  double sequential_ms = 0, ideal_ms = 0, measured_ms = 0;
  double pageable_ms = 0, one_stream_ms = 0, timeline_span_ms = 0;

  double overlap_efficiency() const { return ideal_ms / measured_ms; }
  double pinned_vs_pageable() const { return pageable_ms / one_stream_ms; }
  double pipelined_vs_one_stream() const { return one_stream_ms / measured_ms; }

  nlohmann::json to_json() const {
    return {{"chunks", chunks},
            {"streams", streams},
            {"intensity", intensity},
            {"elements_per_chunk", elements_per_chunk},
            {"stage_ms", {{"h2d", stage.h2d_ms}, {"kernel", stage.kernel_ms}, {"d2h", stage.d2h_ms}}},
            {"formula", "ideal = h + k + d + (chunks - 1) * max(h, k, d)"},
            {"sequential_ms", sequential_ms},
            {"ideal_ms", ideal_ms},
            {"measured_ms", measured_ms},
            {"overlap_efficiency", overlap_efficiency()},
            {"measured_over_ideal", measured_ms / ideal_ms},
            {"pageable_ms", pageable_ms},
            {"one_stream_ms", one_stream_ms},
            {"pinned_vs_pageable_speedup", pinned_vs_pageable()},
            {"pipelined_vs_one_stream_speedup", pipelined_vs_one_stream()},
            {"timeline_span_ms", timeline_span_ms}};
  }
};

void print_pipeline(const PipelineAnalysis& p) {
  std::printf("\nPipeline: %s of about %s elements over %s, intensity %d\n", plural(p.chunks, "chunk").c_str(),
              course::format_count(p.elements_per_chunk).c_str(), plural(p.streams, "stream").c_str(), p.intensity);
  std::printf("  one chunk, stages one after another on one stream (medians):\n");
  std::printf("    h = copy in %s ms    k = kernel %s ms    d = copy out %s ms\n",
              course::format_ms(p.stage.h2d_ms).c_str(), course::format_ms(p.stage.kernel_ms).c_str(),
              course::format_ms(p.stage.d2h_ms).c_str());
  std::printf("  sequential, nothing overlapped   C x (h + k + d)                     %9s ms\n",
              course::format_ms(p.sequential_ms).c_str());
  std::printf("  ideal pipeline                   h + k + d + (C - 1) x max(h, k, d)  %9s ms\n",
              course::format_ms(p.ideal_ms).c_str());
  std::printf("  measured pipeline (c), wall time                                     %9s ms\n",
              course::format_ms(p.measured_ms).c_str());
  std::printf("  overlap efficiency ideal / measured = %.1f%%  (measured = %.2f x ideal; target on an H100: <= 1.15)\n",
              100.0 * p.overlap_efficiency(), p.measured_ms / p.ideal_ms);
  if (p.overlap_efficiency() > 1.0) {
    std::printf("  (above 100%%: the stages overlapped more than the model allows, e.g. kernels of different\n"
                "   streams sharing the GPU; the ideal assumes one kernel at a time, see chunks.cpp)\n");
  }
  std::printf("  pinned vs pageable, (a) / (b) = %.2fx; pipelined vs one stream, (b) / (c) = %.2fx\n",
              p.pinned_vs_pageable(), p.pipelined_vs_one_stream());
  std::printf("  timeline run (--json, extra.timeline): %s ms from the first copy to the last\n",
              course::format_ms(p.timeline_span_ms).c_str());
}

// Verifies one run of `variant` (outputs poisoned first), then times it from the first call
// to the end of its synchronization.
course::Row run_variant(const std::string& name, Role role, std::span<float> host_y, overlap::DeviceArrays& device,
                        const course::ReferenceBlock& reference, const course::RepeatOptions& repeat, double bytes,
                        const std::function<void()>& variant) {
  course::Row row{name, Target::gpu, role};
  course::poison(host_y);
  device.y.poison();
  variant();
  row.check = course::verify(host_y, reference, course::Tolerance::exact());
  row.time = course::time_host(repeat, variant);
  row.work = bytes;
  return row;
}

PipelineAnalysis run_gpu(const course::CommonOptions& options, const LessonOptions& lesson,
                         const std::vector<float>& x, const course::ReferenceBlock& reference, std::vector<float>& y,
                         double bytes, course::Report& report) {
  const std::size_t n = x.size();
  const double array_bytes = static_cast<double>(n * sizeof(float));
  const course::RepeatOptions repeat = options.gpu_repeat();
  const int k = lesson.intensity;

  // Ceilings, measured now, before the lesson's arrays take memory (they allocate their own).
  report.add_ceiling(course::measure_device_copy(2 * n * sizeof(float), repeat, options.flush_l2));
  report.add_ceiling(course::measure_pinned_copy(n * sizeof(float), cudaMemcpyHostToDevice, repeat));
  report.add_ceiling(course::measure_pinned_copy(n * sizeof(float), cudaMemcpyDeviceToHost, repeat));

  overlap::DeviceArrays device(n);
  overlap::PinnedArrays host(n);
  std::copy(x.begin(), x.end(), host.x.data());
  std::vector<course::Stream> streams(static_cast<std::size_t>(lesson.streams));  // non-blocking
  const cudaStream_t first = streams[0].get();
  const overlap::Transform transform = overlap::make_transform(k);

  // The kernel alone, on data already on the GPU.
  {
    course::Row row{kKernelRow, Target::gpu, Role::gpu_kernel};
    int grid = 0;
    {
      course::StreamSyncGuard sync(first);
      device.x.copy_from_host_async(host.x.span(), first);
      device.y.poison(first);  // NaN everywhere: an element the kernel skips fails verification
      grid = overlap::launch_transform(device.x.data(), device.y.data(), n, transform, first);
    }
    device.y.copy_to_host(y);
    row.check = course::verify(y, reference, course::Tolerance::exact());
    std::optional<course::L2Flusher> flusher;
    if (options.flush_l2) flusher.emplace();
    row.time = course::time_device(
        repeat, first, [&] { overlap::launch_transform(device.x.data(), device.y.data(), n, transform, first); },
        flusher ? &*flusher : nullptr);
    row.work = bytes;
    row.ceiling = "d2d_copy";
    row.note = std::to_string(grid) + " blocks of " + std::to_string(overlap::kBlockSize) + " threads; " +
               flops_note(static_cast<double>(n), k, row.time->median_ms);
    report.add(std::move(row));
  }

  // The copies alone, each direction, pinned (events) and pageable (host clock: cudaMemcpy
  // from pageable memory blocks the host anyway).
  struct CopyRow {
    const std::string& name;
    const char* ceiling;
    std::function<void()> copy;
    bool pinned;
  };
  const CopyRow copies[] = {
      {kPinnedInRow, "pinned_h2d", [&] { device.x.copy_from_host_async(host.x.span(), first); }, true},
      {kPinnedOutRow, "pinned_d2h", [&] { device.y.copy_to_host_async(host.y.span(), first); }, true},
      {kPageableInRow, "pinned_h2d",
       [&] {
         device.x.copy_from_host(x);
         CUDA_CHECK(cudaStreamSynchronize(nullptr));  // the last piece may still be in flight
       },
       false},
      {kPageableOutRow, "pinned_d2h", [&] { device.y.copy_to_host(y); }, false}};
  double copy_ms[4] = {};
  for (std::size_t i = 0; i < 4; ++i) {
    course::Row row{copies[i].name, Target::gpu, Role::detail};
    row.time = copies[i].pinned ? course::time_device(repeat, first, copies[i].copy)
                                : course::time_host(repeat, copies[i].copy);
    row.work = array_bytes;
    row.ceiling = copies[i].ceiling;
    copy_ms[i] = row.time->median_ms;
    if (!copies[i].pinned) row.note = "held against the pinned copy: the share of it that pageable memory reaches";
    report.add(std::move(row));
  }
  const std::string pinned_directions =
      "per direction, copies timed alone: in " + gbps_text(array_bytes, copy_ms[0]) + ", out " +
      gbps_text(array_bytes, copy_ms[1]);

  PipelineAnalysis analysis;
  analysis.intensity = k;
  analysis.streams = streams.size();

  // (a) pageable memory, synchronous copies, all in the legacy default stream.
  {
    course::Row row = run_variant(kPageableRow, Role::detail, y, device, reference, repeat, bytes,
                                  [&] { overlap::run_pageable(x, y, device, transform); });
    row.note = "per direction, copies timed alone: in " + gbps_text(array_bytes, copy_ms[2]) + ", out " +
               gbps_text(array_bytes, copy_ms[3]);
    analysis.pageable_ms = row.time->median_ms;
    report.add(std::move(row));
  }
  // (b) pinned memory, one stream, synchronized at the end of a StreamSyncGuard scope.
  {
    course::Row row = run_variant(kOneStreamRow, Role::detail, host.y.span(), device, reference, repeat, bytes,
                                  [&] { overlap::run_one_stream(host, device, transform, first); });
    analysis.one_stream_ms = row.time->median_ms;
    row.note = pinned_directions + "; " + course::format_fixed(analysis.pinned_vs_pageable(), 2) +
               "x faster than pageable (a)";
    report.add(std::move(row));
  }
  // (c) and (d): chunks over streams. Each direction moves all of x or y during the run, at
  // the same time as the other, so bytes / time is the rate each direction sustained.
  const std::vector<overlap::Chunk> chunks = overlap::split_chunks(n, static_cast<std::size_t>(lesson.chunks));
  auto add_chunked = [&](char variant, Role role, const std::vector<overlap::Chunk>& list) {
    course::Row row = run_variant(chunked_row(variant, list.size(), streams.size()), role, host.y.span(), device,
                                  reference, repeat, bytes,
                                  [&] { overlap::run_pipelined(host, device, transform, list, streams); });
    row.note = "chunks of " + course::format_count(list.front().count) +
               (list.front().count == list.back().count ? "" : " and " + course::format_count(list.back().count)) +
               " elements, chunk i on stream i % " + std::to_string(streams.size()) + "; both directions at once, " +
               gbps_text(array_bytes, row.time->median_ms) + " each";
    const double ms = row.time->median_ms;
    report.add(std::move(row));
    return ms;
  };
  analysis.measured_ms = add_chunked('c', Role::gpu_end_to_end, chunks);
  const auto unequal = overlap::chunk_count_with_remainder(n, chunks.size());
  if (unequal) {
    add_chunked('d', Role::detail, overlap::split_chunks(n, *unequal));
  } else {
    report.add_skipped(kNoUnequalRow, Target::gpu, Role::detail, no_unequal_reason(chunks.size(), n));
  }

  // The pipeline analysis: stage times without overlap, and the best a pipeline could do.
  analysis.chunks = chunks.size();
  analysis.elements_per_chunk = chunks.front().count;
  analysis.stage = overlap::measure_stages(host, device, transform, chunks, first, repeat);
  const overlap::StageTimes& s = analysis.stage;
  analysis.sequential_ms = overlap::sequential_pipeline_ms(s.h2d_ms, s.kernel_ms, s.d2h_ms, chunks.size());
  analysis.ideal_ms = overlap::ideal_pipeline_ms(s.h2d_ms, s.kernel_ms, s.d2h_ms, chunks.size());

  // One more run of (c), with events around every stage, for the timeline chart. Verified too,
  // like every run.
  {
    course::Row row{timeline_row(chunks.size(), streams.size()), Target::gpu, Role::detail};
    course::poison(host.y.span());
    device.y.poison();
    const overlap::Timeline timeline = overlap::record_timeline(host, device, transform, chunks, streams);
    row.check = course::verify(host.y.span(), reference, course::Tolerance::exact());
    row.time = course::TimingStats::from_samples({timeline.span_ms});
    row.work = bytes;
    row.note = "one run of (c) with events around every stage, from the first copy to the last";
    analysis.timeline_span_ms = timeline.span_ms;
    report.extra()["timeline"] = overlap::timeline_json(timeline);
    report.add(std::move(row));
  }
  report.extra()["pipeline"] = analysis.to_json();
  return analysis;
}

void add_skipped_gpu_rows(const LessonOptions& lesson, std::size_t n, const std::string& reason,
                          course::Report& report) {
  const auto streams = static_cast<std::size_t>(lesson.streams);
  const auto chunks = static_cast<std::size_t>(lesson.chunks);
  report.add_skipped(kKernelRow, Target::gpu, Role::gpu_kernel, reason);
  for (const std::string* name : {&kPinnedInRow, &kPinnedOutRow, &kPageableInRow, &kPageableOutRow,
                                  &kPageableRow, &kOneStreamRow}) {
    report.add_skipped(*name, Target::gpu, Role::detail, reason);
  }
  report.add_skipped(chunked_row('c', chunks, streams), Target::gpu, Role::gpu_end_to_end, reason);
  if (const auto unequal = overlap::chunk_count_with_remainder(n, chunks)) {
    report.add_skipped(chunked_row('d', *unequal, streams), Target::gpu, Role::detail, reason);
  } else {
    report.add_skipped(kNoUnequalRow, Target::gpu, Role::detail, no_unequal_reason(chunks, n));
  }
  report.add_skipped(timeline_row(chunks, streams), Target::gpu, Role::detail, reason);
}

int run(int argc, char** argv) {
  course::LessonCli cli("03_streams",
                        "y = f(x), f = K steps of v * a + b: copies to and from the GPU overlapped with the "
                        "kernel, over CUDA streams",
                        {"-n,--length", "number of elements", kDefaultLength, kMaxLength});
  LessonOptions lesson;
  cli.app().add_option("--streams", lesson.streams, "CUDA streams the chunks are spread over (chunk i on i % S)")
      ->check(CLI::Range(1, 256))->capture_default_str();
  cli.app().add_option("--chunks", lesson.chunks, "chunks the array is cut into for the pipelined variants")
      ->check(CLI::Range(1, 1 << 16))->capture_default_str();
  cli.app().add_option("--intensity", lesson.intensity,
                       "steps of v = v * a + b per element: the kernel's arithmetic intensity")
      ->check(CLI::Range(0, overlap::kMaxIntensity))->capture_default_str();
  const course::CommonOptions& options = cli.parse(argc, argv);
  check_flag_combinations(lesson, options.size);

  const std::size_t n = static_cast<std::size_t>(options.size);
  const double bytes = 2.0 * sizeof(float) * static_cast<double>(n);  // x in once, y out once
  course::Report report(cli,
                        "y = f(x), " + std::to_string(lesson.intensity) + " steps of v * a + b, over " +
                            course::format_count(n) + " floats",
                        {"GB/s", 1e9, "bytes"});

  // The GPU first: whether there is one, and whether x and y fit in it, before the host
  // allocates gigabytes it would not need.
  const course::GpuStatus gpu = course::open_gpu(options);
  report.set_gpu(gpu);
  const double array_bytes = 4.0 * static_cast<double>(n);
  if (gpu.usable) {
    course::require_device_memory(2 * n * sizeof(float), "x and y (2 x " + course::format_bytes(array_bytes) + ")");
  }
  // x and a scratch y; with a GPU also pinned x and y.
  const std::size_t host_arrays = 2 + (gpu.usable ? 2 : 0);
  course::require_host_memory(host_arrays * n * sizeof(float),
                              std::to_string(host_arrays) + " host arrays of " + course::format_bytes(array_bytes));

  std::vector<float> x(n), y(n);
  course::fill_normal(x, options.seed);  // mean 0, standard deviation 1
  // The definition of f, element by element: every variant, CPU or GPU, must equal it to the bit.
  const course::ReferenceBlock reference = overlap::transform_reference(x, lesson.intensity);

  if (!options.skip_cpu) run_cpu(options, lesson, x, reference, y, bytes, report);

  std::optional<PipelineAnalysis> analysis;
  if (gpu.usable) {
    analysis = run_gpu(options, lesson, x, reference, y, bytes, report);
    report.extra()["context_creation_ms"] = gpu.context_creation_ms;
  } else {
    add_skipped_gpu_rows(lesson, n, gpu.reason, report);
  }
  report.extra()["parameters"] = {{"streams", lesson.streams},
                                  {"chunks", lesson.chunks},
                                  {"intensity", lesson.intensity},
                                  {"a", overlap::kA},
                                  {"b", overlap::kB}};

  report.print(std::cout);
  if (analysis) {
    std::cout.flush();
    print_pipeline(*analysis);
  }
  if (!options.json_path.empty()) report.write_json(options.json_path);
  return report.exit_code();
}

}  // namespace

int main(int argc, char** argv) { return course::run_lesson(argc, argv, run); }
