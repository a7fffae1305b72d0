// Lesson 03: what the lesson adds to the report after the table, as text and as JSON.
//
// Teaches: a measured time means more next to a prediction. The pipeline analysis sets the
// measured time of (c) against the ideal pipeline of the same chunks (chunks.cpp), built from
// stage times measured with nothing overlapped; the timeline shows where each stage of one run
// of (c) really went. Host code only: this header includes nlohmann-json, so no .cu file
// includes it (streams.hpp stays light).
#pragma once

#include <nlohmann/json.hpp>

#include <cstddef>
#include <string>

#include "course/report.hpp"
#include "streams.hpp"

namespace streams {

// All times in ms. The variant times come from the table's rows, the stage times from
// measure_stages, the span from the timeline run.
struct PipelineAnalysis {
  std::size_t chunks = 0, streams = 0, elements_per_chunk = 0;
  int intensity = 0;
  StageTimes stage;
  double sequential_ms = 0, ideal_ms = 0, measured_ms = 0;
  double pageable_ms = 0, one_stream_ms = 0, timeline_span_ms = 0;
  double array_bytes = 0;  // one of x or y: what each direction moves in a run

  // Fills sequential_ms and ideal_ms from the stage times and the chunk count.
  void predict();
  double overlap_efficiency() const { return ideal_ms / measured_ms; }
  double pinned_vs_pageable() const { return pageable_ms / one_stream_ms; }
  double pipelined_vs_one_stream() const { return one_stream_ms / measured_ms; }
  // (c) moves all of x in and all of y out during its run, both at once: the rate per direction.
  double per_direction_gbps() const { return array_bytes / (measured_ms * 1e6); }

  void print() const;  // to stdout, after the table
  nlohmann::json to_json() const;
};

// The rows of the variants the analysis reads its measured times from, by name.
struct PipelineRows {
  std::string pageable, one_stream, pipelined;
};

// The analysis after the rows ran: per-chunk stage times measured now with nothing overlapped
// (measure_stages, in `stream`), the ideal pipeline they predict, the variants' times from the
// report's rows, and the span of the timeline run.
PipelineAnalysis analyse_pipeline(const course::Report& report, const PipelineRows& rows, PinnedArrays& host,
                                  DeviceArrays& device, const Transform& transform, std::span<const Chunk> chunks,
                                  std::size_t streams, const Timeline& timeline, cudaStream_t stream,
                                  const course::RepeatOptions& repeat);

// The median of the row named `name` that ran (0 when none did): the analysis reads the variants'
// times from the table.
double row_median_ms(const course::Report& report, const std::string& name);
// "per direction, copies timed alone: in 12.7 GB/s, out 15.5 GB/s": two copy rows that ran before
// a variant, for its note.
std::string copy_rates(const course::Report& report, const std::string& in, const std::string& out);

// The shape the plot module (03_streams/plot_timeline.py) reads: {"title": ..., "events":
// [{"stream", "chunk", "stage", "start_ms", "end_ms"}, ...]}.
nlohmann::json timeline_json(const Timeline& timeline);

}  // namespace streams
