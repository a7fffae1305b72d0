// Lesson 03: overlapping copies with compute, with CUDA streams.
//
// This header is the lesson's API, shared by main.cpp, the kernels and the tests:
//  - the computation, y[i] = f(x[i]) with f = `intensity` steps of v = v * a + b, on the CPU
//    (transform_cpu.cpp) and on the GPU (kernels/, listed in kernels/registry.inc);
//  - splitting n elements into chunks, and the ideal time of a pipeline of chunks (chunks.cpp);
//  - the four ways of getting x to the GPU and y back (pipeline.cpp):
//      (a) pageable host memory, synchronous cudaMemcpy, the legacy default stream;
//      (b) pinned host memory, one stream: copy in, kernel, copy out, then synchronize;
//      (c) pinned memory in chunks over several streams, so that copies in both directions
//          and kernels run at the same time; (d) is (c) with chunks of unequal length;
//  - the measurements behind the pipeline analysis: per-chunk stage times without overlap,
//    and a timeline of one pipelined run.
// It is light on purpose: kernel files include it, so it pulls in nothing but the CUDA
// runtime's declarations and light course headers (the JSON of the analysis and the timeline
// is in pipeline_report.hpp, which only host code includes).
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "course/device_buffer.hpp"
#include "course/kernel_registry.hpp"
#include "course/launch.hpp"
#include "course/stream.hpp"
#include "course/timing.hpp"
#include "course/verify.hpp"

namespace streams {

// ---- The computation -----------------------------------------------------------------------
// One step is v = v * a + b, rounded after the multiply AND after the add (never fused into an
// FMA, on either side), so the CPU and the GPU give the same bits. The values stay finite: each
// step pulls v towards the fixed point b / (1 - a) = 500. After many thousand steps every output
// is (nearly) 500, so large intensities test the pipeline's plumbing, not the arithmetic.
inline constexpr float kA = 0.999f;
inline constexpr float kB = 0.5f;
inline constexpr int kMaxIntensity = 100000;

// ---- CPU (transform_cpu.cpp) -----------------------------------------------------------------
void transform_serial(std::span<const float> x, std::span<float> y, int intensity);    // one thread
void transform_parallel(std::span<const float> x, std::span<float> y, int intensity);  // OpenMP
// The reference: f applied element by element exactly as defined (no blocking), computed block
// by block while verifying. Every variant, CPU or GPU, must equal it to the bit.
course::ReferenceBlock transform_reference(std::span<const float> x, int intensity);

// ---- GPU kernels (kernels/NN_<name>.cu, listed in kernels/registry.inc) ------------------------
inline constexpr int kBlockSize = 256;

// How the kernel is launched, and which kernel the variants (a) to (d) launch for each chunk.
struct Transform;
// Every kernel's launcher has this shape: y[i] = f(x[i]) for i < n, device pointers, in
// `stream`, launch checked. It returns the grid it launched (nothing when n is 0).
using Launcher = course::LaunchShape (*)(const float* x, float* y, std::size_t n, const Transform& transform,
                                         cudaStream_t stream);

#define COURSE_KERNEL(name, summary, ...)                                                                       \
  course::LaunchShape launch_##name(const float* x, float* y, std::size_t n, const Transform& transform, \
                                    cudaStream_t stream);
#include "kernels/registry.inc"
#include "exercises/registry.inc"
#undef COURSE_KERNEL

struct Transform {
  int intensity = 0;                   // steps of v = v * a + b per element
  Launcher launch = launch_transform;  // the kernel every variant runs for each chunk
  int max_blocks = 0;                  // grid cap; 0: the blocks that fit on the GPU at once
};

// The registry: every kernel above, in the order of the progression, with its traits;
// kernels() is the table, kernel(name) one entry (std::out_of_range if there is none).
inline constexpr course::KernelEntry<Launcher> kKernelTable[] = {
#define COURSE_KERNEL COURSE_KERNEL_ENTRY
#include "kernels/registry.inc"
#include "exercises/registry.inc"  // the "make it fast" exercise: runs only when --kernel names it
#undef COURSE_KERNEL
};
COURSE_KERNEL_ACCESSORS(Launcher, kKernelTable)

// ---- Chunks (chunks.cpp) ---------------------------------------------------------------------
struct Chunk {
  std::size_t offset = 0;  // first element
  std::size_t count = 0;   // elements
};

// n elements in `chunks` contiguous chunks as equal as possible: the first n % chunks chunks
// hold one element more. Throws std::invalid_argument unless 1 <= chunks <= n.
std::vector<Chunk> split_chunks(std::size_t n, std::size_t chunks);

// The smallest chunk count c with chunks < c <= n that does not divide n (so the chunks are of
// unequal length), or nothing when there is none (n = 1, or chunks = n).
std::optional<std::size_t> chunk_count_with_remainder(std::size_t n, std::size_t chunks);

// The flags --chunks and --streams against --length, as CLI11's per-flag ranges cannot check
// them: at most one chunk per element, at least one chunk per stream. Throws course::UsageError
// naming the flag (exit 2).
void check_chunking(std::size_t length, int chunks, int streams);

// "GPU (c) pinned, 16 chunks over 4 streams": the name of a chunked variant's row.
std::string chunked_row_name(char variant, std::size_t chunks, std::size_t streams);

// "chunks of 1,048,576 elements, chunk i on stream i % 4" (or "of 14,287 and 14,286 elements"):
// how a chunked variant spread its chunks, for its note.
std::string describe_chunks(std::span<const Chunk> chunks, std::size_t streams);

// Time of `chunks` equal chunks through three stages that each run on their own engine
// (host-to-device copy h, kernel k, device-to-host copy d), when every stage overlaps with the
// others as much as the order allows: h + k + d + (chunks - 1) * max(h, k, d). See chunks.cpp.
double ideal_pipeline_ms(double h, double k, double d, std::size_t chunks);
// The same chunks one after another, nothing overlapped: chunks * (h + k + d).
double sequential_pipeline_ms(double h, double k, double d, std::size_t chunks);

// ---- The host-side variants (pipeline.cpp) ---------------------------------------------------
// x and y on the GPU, and their pinned twins on the host. Every GPU variant works on these.
struct DeviceArrays {
  explicit DeviceArrays(std::size_t n) : x(n, "x on the GPU"), y(n, "y on the GPU") {}
  course::DeviceBuffer<float> x, y;
};
struct PinnedArrays {
  explicit PinnedArrays(std::size_t n) : x(n, "x in pinned host memory"), y(n, "y in pinned host memory") {}
  course::PinnedBuffer<float> x, y;
};

// (a) Pageable host memory (any std::vector), cudaMemcpy in, kernel, cudaMemcpy out, all in the
// legacy default stream. Returns when y holds the result.
void run_pageable(std::span<const float> x, std::span<float> y, DeviceArrays& device, const Transform& transform);

// (b) Pinned host memory and one stream: cudaMemcpyAsync in, kernel, cudaMemcpyAsync out, in a
// StreamSyncGuard scope. Returns when host.y holds the result.
void run_one_stream(PinnedArrays& host, DeviceArrays& device, const Transform& transform, cudaStream_t stream);

// (c) and (d): chunk i goes in, through the kernel and out on streams[i % streams.size()].
// Only the listed chunks are processed (the tests leave one out on purpose). Returns when every
// stream has finished, so host.y holds the result.
void run_pipelined(PinnedArrays& host, DeviceArrays& device, const Transform& transform,
                   std::span<const Chunk> chunks, std::span<const course::Stream> streams);

// The copy engines' bound for (c): the same chunks over the same streams with cudaMemcpyAsync
// only, no kernel. Chunk i of host.x goes to device.x and straight back into host.y, so host.y
// equals host.x when it returns. No pipeline with a kernel between the copies can beat it.
void run_copies_only(PinnedArrays& host, DeviceArrays& device, std::span<const Chunk> chunks,
                     std::span<const course::Stream> streams);

enum class Stage { h2d, kernel, d2h };
inline constexpr Stage kStages[] = {Stage::h2d, Stage::kernel, Stage::d2h};
const char* stage_name(Stage stage);  // "h2d", "kernel", "d2h": the names in the JSON

// The building blocks of the chunked variants (and of the exercises in exercises/):
// Throws std::invalid_argument unless there is a stream, the arrays have one length and every
// chunk is non-empty and inside it.
void require_streams_and_chunks(const PinnedArrays& host, const DeviceArrays& device, std::span<const Chunk> chunks,
                                std::size_t streams);
// One stage of one chunk, issued into `stream` (returns at once; the GPU does it later).
void issue_stage(Stage stage, PinnedArrays& host, DeviceArrays& device, const Chunk& chunk, const Transform& transform,
                 cudaStream_t stream);
// Runs `issue`, which issues work into `streams`, then waits until every stream has finished:
// only then may the host read what the GPU wrote (also when `issue` throws: the work already
// issued finishes before the error goes on, so no buffer is freed under a running copy).
void issue_then_wait(std::span<const course::Stream> streams, const std::function<void()>& issue);

// Median time of one chunk's copy in, kernel and copy out when nothing overlaps: the chunks run
// one after another on one stream with events around each stage, repeated `repeat.reps` times
// after `repeat.warmup` untimed runs; the median is taken over all chunks and repetitions.
struct StageTimes {
  double h2d_ms = 0, kernel_ms = 0, d2h_ms = 0;
};
StageTimes measure_stages(PinnedArrays& host, DeviceArrays& device, const Transform& transform,
                          std::span<const Chunk> chunks, cudaStream_t stream, const course::RepeatOptions& repeat);

// One more run of (c), issued exactly like it, with an event before and after every stage of
// every chunk; times in ms from a start event recorded before the first copy.
struct TimelineEvent {
  int stream = 0;
  std::size_t chunk = 0;
  Stage stage = Stage::h2d;
  double reached_ms = 0;  // the event before the stage: when its stream got to it
  double start_ms = 0;    // when it ran: for copies, when the copy engine took it (below)
  double end_ms = 0;      // the event after the stage
};
struct Timeline {
  std::string title;                  // "16 chunks over 4 streams, intensity 100"
  std::vector<TimelineEvent> events;  // three per chunk, in chunk order, stages in order
  double span_ms = 0;                 // from the start event to the end of the last stage
};
Timeline record_timeline(PinnedArrays& host, DeviceArrays& device, const Transform& transform,
                         std::span<const Chunk> chunks, std::span<const course::Stream> streams);

// An event marks when its stream reached it, not when an engine took the work behind it: in (c)
// chunk 1's copy in is reached at once in stream 1, then waits while the engine copies chunk 0.
// Each direction has one copy engine that copies one chunk at a time (the stage times show it:
// each copy takes about h, whatever else runs), so a copy starts when it was reached or when the
// previous copy in the same direction ended (in the order the engine finished them), whichever
// is later. Sets start_ms of the h2d and d2h events so; kernels keep start_ms = reached_ms, as
// kernels of different streams can really share the GPU.
void infer_copy_starts(std::span<TimelineEvent> events);

}  // namespace streams
