// Lesson 03, the GPU rows of the table: the copies alone and the variants (a) to (d), declared for
// the course's harness (main.cpp adds the CPU rows and the kernel alone, then runs them all).
//
// Teaches: every way of moving x to the GPU and y back is a row like any other: poisoned, run,
// verified bit for bit against f, timed from the first call to the end of its synchronization.
// The device and pinned arrays and the streams are made by one setup step (main.cpp) into slots
// the lesson owns, so nothing is allocated without a GPU and nothing outlives the GPU's stream.
// Host code only (it uses the harness, CLI11 and JSON): no .cu file includes it.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "course/harness.hpp"
#include "pipeline_report.hpp"
#include "streams.hpp"

namespace streams {

inline const std::string kPinnedIn = "GPU copy x to device, pinned", kPinnedOut = "GPU copy y to host, pinned";
inline const std::string kPageableIn = "GPU copy x to device, pageable", kPageableOut = "GPU copy y to host, pageable";

// The data every row shares. The GPU side is made by one setup step, `arrays`, that every GPU row
// names: it runs, and is reported, once, and only with a GPU. main.cpp declares this after the
// lesson, so the GPU side goes before the lesson's stream.
struct TableData {
  std::vector<float> x, y;
  course::ReferenceBlock reference;  // f as defined, element by element: every variant equals it to the bit
  double array_bytes = 0;            // x or y; a run moves x in and y out
  std::optional<DeviceArrays> device;
  std::optional<PinnedArrays> host;
  std::optional<std::vector<course::Stream>> streams;  // non-blocking; chunk i on stream i % S
  course::SetupStep* arrays = nullptr;                 // makes the three above
  Transform transform;               // what (a) to (d) run: the first kernel --kernel selects

  course::Check device_check();      // y on the GPU, poisoned, then copied back and compared
  // The variants go from host x to host y: both the host y (pinned or not) and the device y are
  // poisoned, so a stage that skips an element cannot pass on an old value.
  course::Check end_to_end_check(bool pinned);
  // A variant of the pipeline: GPU, 2 x array_bytes of work, the setup step, host-clock timing.
  course::Variant gpu_row(std::string name, bool pinned, std::function<void(cudaStream_t)> run);
};

// The copies alone, each direction: pinned (events, nothing to flush: the copy is the
// measurement), pageable (host clock: cudaMemcpy from pageable memory blocks the host anyway).
void add_copy_rows(course::Lesson& lesson, TableData& d);

// (a) pageable memory and cudaMemcpy; (b) pinned, one stream; (c) and (d) chunks over streams, (d)
// with a chunk count above --chunks that leaves a remainder (skipped where none does); then one
// more run of (c) with events around every stage, for the timeline (filled into `timeline`).
// Returns the names of (a) to (c), which the pipeline analysis reads.
PipelineRows add_variants(course::Lesson& lesson, TableData& d, const std::vector<Chunk>& chunks,
                          std::size_t stream_count, Timeline& timeline);

}  // namespace streams
