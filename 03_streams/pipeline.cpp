// Lesson 03: four ways to copy x to the GPU, transform it and copy y back, and the
// measurements that explain their times. Host code calling the CUDA runtime API.
//
// Teaches:
//  - pageable vs pinned host memory: the GPU's copy engines read and write host memory by DMA,
//    which needs pages that the OS cannot move. Pageable memory (std::vector, malloc) is
//    copied by the driver through a pinned staging buffer of its own, piece by piece, and
//    cudaMemcpyAsync from it does not overlap with anything. Pinned memory (cudaMallocHost,
//    course::PinnedBuffer) is copied directly, faster, and asynchronously;
//  - stream order: the operations of one stream run one after another, in the order issued;
//    operations of different streams may run at the same time. The host must synchronize
//    before it reads what the GPU wrote (here: the end of a StreamSyncGuard scope, or
//    Stream::synchronize), because cudaMemcpyAsync returns before the copy is done;
//  - copy engines: a GPU has separate engines for host-to-device and device-to-host copies,
//    so with chunks on several streams, chunk i + 1 is copied in while chunk i is in the kernel
//    and chunk i - 1 is copied out: three things at once;
//  - events: markers in a stream that the GPU timestamps when it reaches them, for timing
//    stages without host noise (measure_stages), for a timeline of a pipelined run
//    (record_timeline), and (cudaStreamWaitEvent) for making one stream wait for a point in
//    another;
//  - the default-stream pitfall: the legacy default stream (stream 0, what cudaMemcpy uses)
//    normally waits for all other streams and they for it, but course::Stream is created
//    non-blocking, so it does NOT wait for stream 0. Work in stream 0 and in such a stream must
//    be ordered explicitly (synchronize in between), which is why variant (a) keeps its kernel
//    in stream 0 too, and every variant here returns only when its streams are done.
#include <algorithm>
#include <functional>
#include <stdexcept>
#include <string>

#include "course/check.hpp"
#include "streams.hpp"

namespace streams {

namespace {

std::size_t stage_index(Stage stage) { return static_cast<std::size_t>(stage); }

void require_inside(const Chunk& chunk, std::size_t n) {
  if (chunk.count == 0 || chunk.offset > n || chunk.count > n - chunk.offset) {
    throw std::invalid_argument("chunk [" + std::to_string(chunk.offset) + ", +" + std::to_string(chunk.count) +
                                ") is empty or outside the " + std::to_string(n) + " elements");
  }
}

std::string plural(std::size_t count, const char* word) {
  return std::to_string(count) + " " + word + (count == 1 ? "" : "s");
}

}  // namespace

void issue_stage(Stage stage, PinnedArrays& host, DeviceArrays& device, const Chunk& chunk, const Transform& transform,
                 cudaStream_t stream) {
  const std::size_t bytes = chunk.count * sizeof(float);
  switch (stage) {
    case Stage::h2d:
      CUDA_CHECK(cudaMemcpyAsync(device.x.data() + chunk.offset, host.x.data() + chunk.offset, bytes,
                                 cudaMemcpyHostToDevice, stream));
      break;
    case Stage::kernel:
      transform.launch(device.x.data() + chunk.offset, device.y.data() + chunk.offset, chunk.count, transform,
                       stream);
      break;
    case Stage::d2h:
      CUDA_CHECK(cudaMemcpyAsync(host.y.data() + chunk.offset, device.y.data() + chunk.offset, bytes,
                                 cudaMemcpyDeviceToHost, stream));
      break;
  }
}

void require_streams_and_chunks(const PinnedArrays& host, const DeviceArrays& device, std::span<const Chunk> chunks,
                                std::size_t streams) {
  if (streams == 0) throw std::invalid_argument("no streams to issue the chunks to");
  const std::size_t n = host.x.size();
  if (host.y.size() != n || device.x.size() != n || device.y.size() != n) {
    throw std::invalid_argument("the host and device arrays differ in length");
  }
  for (const Chunk& chunk : chunks) require_inside(chunk, n);
}

// StreamSyncGuard does this for one stream; one guard per stream would need a container of
// guards, and a guard's destructor may throw, which a container's destructor must not. So the
// same logic, for a list of streams, is written out.
void issue_then_wait(std::span<const course::Stream> streams, const std::function<void()>& issue) {
  try {
    issue();
  } catch (...) {
    // Let the work already issued finish before the caller frees the buffers it reads and
    // writes. The statuses are not checked: the error on its way out is the one to report.
    for (const course::Stream& stream : streams) cudaStreamSynchronize(stream.get());
    throw;
  }
  for (const course::Stream& stream : streams) stream.synchronize();
}

const char* stage_name(Stage stage) {
  switch (stage) {
    case Stage::h2d: return "h2d";
    case Stage::kernel: return "kernel";
    case Stage::d2h: return "d2h";
  }
  return "?";
}

// [docs:run_pageable]
void run_pageable(std::span<const float> x, std::span<float> y, DeviceArrays& device, const Transform& transform) {
  // cudaMemcpy from pageable memory returns once x has been handed to the driver's staging
  // buffer: the last piece may still be on its way to the GPU. A kernel in the SAME stream (the
  // legacy default stream, 0) is ordered after the copy; a kernel in a non-blocking stream
  // would not be, and could read x before it arrived.
  device.x.copy_from_host(x);                                                   // cudaMemcpy
  transform.launch(device.x.data(), device.y.data(), x.size(), transform, nullptr);  // stream 0
  // Device-to-host into pageable memory: waits for the kernel (same stream) and returns only
  // when y holds every byte.
  device.y.copy_to_host(y);  // cudaMemcpy
}
// [docs:end run_pageable]

// [docs:run_one_stream]
void run_one_stream(PinnedArrays& host, DeviceArrays& device, const Transform& transform, cudaStream_t stream) {
  course::StreamSyncGuard sync(stream);  // leaving this function waits for the stream
  device.x.copy_from_host_async(host.x.span(), stream);  // returns at once: the copy is queued
  transform.launch(device.x.data(), device.y.data(), host.x.size(), transform, stream);  // after the copy
  device.y.copy_to_host_async(host.y.span(), stream);  // after the kernel
  // host.y must not be read here yet: the copies and the kernel may not even have started.
}
// [docs:end run_one_stream]

// [docs:run_pipelined]
void run_pipelined(PinnedArrays& host, DeviceArrays& device, const Transform& transform,
                   std::span<const Chunk> chunks, std::span<const course::Stream> streams) {
  require_streams_and_chunks(host, device, chunks, streams.size());
  issue_then_wait(streams, [&] {
    // Depth first: each chunk's three stages go into its stream in order, and the next chunk
    // into the next stream. The stream keeps each chunk's stages in order; the engines take
    // the next ready operation from any stream, which is what overlaps the chunks.
    for (std::size_t i = 0; i < chunks.size(); ++i) {
      const cudaStream_t stream = streams[i % streams.size()].get();
      for (Stage stage : kStages) issue_stage(stage, host, device, chunks[i], transform, stream);
    }
  });
}
// [docs:end run_pipelined]

void run_copies_only(PinnedArrays& host, DeviceArrays& device, std::span<const Chunk> chunks,
                     std::span<const course::Stream> streams) {
  require_streams_and_chunks(host, device, chunks, streams.size());
  issue_then_wait(streams, [&] {
    for (std::size_t i = 0; i < chunks.size(); ++i) {  // the order of run_pipelined, less the kernel
      const cudaStream_t stream = streams[i % streams.size()].get();
      const std::size_t offset = chunks[i].offset, bytes = chunks[i].count * sizeof(float);
      CUDA_CHECK(cudaMemcpyAsync(device.x.data() + offset, host.x.data() + offset, bytes, cudaMemcpyHostToDevice, stream));
      CUDA_CHECK(cudaMemcpyAsync(host.y.data() + offset, device.x.data() + offset, bytes, cudaMemcpyDeviceToHost, stream));
    }
  });
}

StageTimes measure_stages(PinnedArrays& host, DeviceArrays& device, const Transform& transform,
                          std::span<const Chunk> chunks, cudaStream_t stream, const course::RepeatOptions& repeat) {
  require_streams_and_chunks(host, device, chunks, 1);
  if (chunks.empty() || repeat.reps < 1) throw std::invalid_argument("measure_stages: no chunks or no repetitions");
  // Four events per chunk: before its copy in, between its stages, after its copy out. In one
  // stream nothing overlaps, so the time between two events is the time of the stage between.
  std::vector<course::Event> marks(4 * chunks.size());
  std::vector<double> samples[3];
  for (int rep = -repeat.warmup; rep < repeat.reps; ++rep) {
    {
      course::StreamSyncGuard sync(stream);
      for (std::size_t i = 0; i < chunks.size(); ++i) {
        marks[4 * i].record(stream);
        for (Stage stage : kStages) {
          issue_stage(stage, host, device, chunks[i], transform, stream);
          marks[4 * i + stage_index(stage) + 1].record(stream);
        }
      }
    }
    if (rep < 0) continue;  // warm-up
    for (std::size_t i = 0; i < chunks.size(); ++i) {
      for (Stage stage : kStages) {
        const std::size_t s = stage_index(stage);
        samples[s].push_back(course::elapsed_ms(marks[4 * i + s], marks[4 * i + s + 1]));
      }
    }
  }
  auto median = [](std::vector<double>& values) {
    return course::TimingStats::from_samples(std::move(values)).median_ms;
  };
  return {median(samples[0]), median(samples[1]), median(samples[2])};
}

Timeline record_timeline(PinnedArrays& host, DeviceArrays& device, const Transform& transform,
                         std::span<const Chunk> chunks, std::span<const course::Stream> streams) {
  require_streams_and_chunks(host, device, chunks, streams.size());
  const std::size_t stream_count = streams.size();
  course::Event start;
  std::vector<course::Event> before(3 * chunks.size()), after(3 * chunks.size());
  issue_then_wait(streams, [&] {
    // Time 0: an event in the first stream, which the other streams wait for, so that nothing
    // in any stream can start before it.
    // [docs:timed_region]
    start.record(streams[0].get());
    for (std::size_t s = 1; s < stream_count; ++s) {
      CUDA_CHECK(cudaStreamWaitEvent(streams[s].get(), start.get(), 0));
    }
    // [docs:end timed_region]
    // The same issue order as run_pipelined, with the events in between. Recording them costs
    // host time, so this run may take a little longer than (c) does.
    for (std::size_t i = 0; i < chunks.size(); ++i) {
      const cudaStream_t stream = streams[i % stream_count].get();
      for (Stage stage : kStages) {
        const std::size_t e = 3 * i + stage_index(stage);
        before[e].record(stream);
        issue_stage(stage, host, device, chunks[i], transform, stream);
        after[e].record(stream);
      }
    }
  });

  Timeline timeline;
  timeline.title = plural(chunks.size(), "chunk") + " over " + plural(stream_count, "stream") + ", intensity " +
                   std::to_string(transform.intensity);
  for (std::size_t i = 0; i < chunks.size(); ++i) {
    for (Stage stage : kStages) {
      const std::size_t e = 3 * i + stage_index(stage);
      TimelineEvent event;
      event.stream = static_cast<int>(i % stream_count);
      event.chunk = i;
      event.stage = stage;
      event.reached_ms = course::elapsed_ms(start, before[e]);
      event.start_ms = event.reached_ms;
      event.end_ms = course::elapsed_ms(start, after[e]);
      timeline.span_ms = std::max(timeline.span_ms, event.end_ms);
      timeline.events.push_back(event);
    }
  }
  infer_copy_starts(timeline.events);
  return timeline;
}

void infer_copy_starts(std::span<TimelineEvent> events) {
  for (Stage direction : {Stage::h2d, Stage::d2h}) {
    std::vector<TimelineEvent*> copies;
    for (TimelineEvent& event : events) {
      if (event.stage == direction) copies.push_back(&event);
    }
    // [docs:engine_order]
    // The engine finished them in this order; each one ran after the one before it.
    std::sort(copies.begin(), copies.end(),
              [](const TimelineEvent* a, const TimelineEvent* b) { return a->end_ms < b->end_ms; });
    double engine_free_ms = 0;
    for (TimelineEvent* copy : copies) {
      copy->start_ms = std::min(copy->end_ms, std::max(copy->reached_ms, engine_free_ms));
      engine_free_ms = copy->end_ms;
    }
    // [docs:end engine_order]
  }
}

}  // namespace streams
