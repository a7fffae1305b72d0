// Lesson 03: the pipeline analysis and the timeline, printed and as JSON (see pipeline_report.hpp).
#include "pipeline_report.hpp"

#include <cstdio>
#include <string>

#include "course/format.hpp"

namespace streams {

namespace {
std::string plural(std::size_t count, const char* word) {
  return course::format_count(count) + " " + word + (count == 1 ? "" : "s");
}
}  // namespace

void PipelineAnalysis::predict() {
  sequential_ms = sequential_pipeline_ms(stage.h2d_ms, stage.kernel_ms, stage.d2h_ms, chunks);
  ideal_ms = ideal_pipeline_ms(stage.h2d_ms, stage.kernel_ms, stage.d2h_ms, chunks);
}

void PipelineAnalysis::print() const {
  std::printf("\nPipeline: %s of about %s elements over %s, intensity %d\n", plural(chunks, "chunk").c_str(),
              course::format_count(elements_per_chunk).c_str(), plural(streams, "stream").c_str(), intensity);
  std::printf("  one chunk, stages one after another on one stream (medians):\n");
  std::printf("    h = copy in %s ms    k = kernel %s ms    d = copy out %s ms\n",
              course::format_ms(stage.h2d_ms).c_str(), course::format_ms(stage.kernel_ms).c_str(),
              course::format_ms(stage.d2h_ms).c_str());
  std::printf("  sequential, nothing overlapped   C x (h + k + d)                     %9s ms\n",
              course::format_ms(sequential_ms).c_str());
  std::printf("  ideal pipeline                   h + k + d + (C - 1) x max(h, k, d)  %9s ms\n",
              course::format_ms(ideal_ms).c_str());
  std::printf("  measured pipeline (c), wall time                                     %9s ms\n",
              course::format_ms(measured_ms).c_str());
  std::printf("  overlap efficiency ideal / measured = %.1f%%  (measured = %.2f x ideal; target on an H100: <= 1.15)\n",
              100.0 * overlap_efficiency(), measured_ms / ideal_ms);
  if (overlap_efficiency() > 1.0) {
    std::printf("  (above 100%%: the stages overlapped more than the model allows, e.g. kernels of different\n"
                "   streams sharing the GPU; the ideal assumes one kernel at a time, see chunks.cpp)\n");
  }
  std::printf("  (c) moved x in and y out at the same time, %.1f GB/s each direction\n", per_direction_gbps());
  std::printf("  pinned vs pageable, (a) / (b) = %.2fx; pipelined vs one stream, (b) / (c) = %.2fx\n",
              pinned_vs_pageable(), pipelined_vs_one_stream());
  std::printf("  timeline run (--json, extra.timeline): %s ms from the first copy to the last\n",
              course::format_ms(timeline_span_ms).c_str());
}

nlohmann::json PipelineAnalysis::to_json() const {
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
          {"per_direction_gbps", per_direction_gbps()},
          {"pageable_ms", pageable_ms},
          {"one_stream_ms", one_stream_ms},
          {"pinned_vs_pageable_speedup", pinned_vs_pageable()},
          {"pipelined_vs_one_stream_speedup", pipelined_vs_one_stream()},
          {"timeline_span_ms", timeline_span_ms}};
}

PipelineAnalysis analyse_pipeline(const course::Report& report, const PipelineRows& rows, PinnedArrays& host,
                                  DeviceArrays& device, const Transform& transform, std::span<const Chunk> chunks,
                                  std::size_t streams, const Timeline& timeline, cudaStream_t stream,
                                  const course::RepeatOptions& repeat) {
  PipelineAnalysis analysis;
  analysis.chunks = chunks.size();
  analysis.streams = streams;
  analysis.elements_per_chunk = chunks.front().count;
  analysis.intensity = transform.intensity;
  analysis.array_bytes = 4.0 * static_cast<double>(host.x.size());
  analysis.stage = measure_stages(host, device, transform, chunks, stream, repeat);
  analysis.predict();
  analysis.pageable_ms = row_median_ms(report, rows.pageable);
  analysis.one_stream_ms = row_median_ms(report, rows.one_stream);
  analysis.measured_ms = row_median_ms(report, rows.pipelined);
  analysis.timeline_span_ms = timeline.span_ms;
  return analysis;
}

double row_median_ms(const course::Report& report, const std::string& name) {
  for (const course::Row& row : report.rows()) {
    if (row.variant == name && row.time) return row.time->median_ms;
  }
  return 0;
}

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

nlohmann::json timeline_json(const Timeline& timeline) {
  nlohmann::json events = nlohmann::json::array();
  for (const TimelineEvent& event : timeline.events) {
    events.push_back({{"stream", event.stream},
                      {"chunk", event.chunk},
                      {"stage", stage_name(event.stage)},
                      {"start_ms", event.start_ms},
                      {"end_ms", event.end_ms}});
  }
  return {{"title", timeline.title}, {"events", std::move(events)}};
}

}  // namespace streams
