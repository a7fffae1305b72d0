// Lesson 03: the copies alone and the variants (a) to (d) as rows of the table (see variants.hpp).
#include "variants.hpp"

#include <utility>

#include "course/check.hpp"
#include "course/format.hpp"

namespace streams {

course::Check TableData::device_check() {
  return {[this] { device->y.poison(); },
          [this] {
            device->y.copy_to_host(y);
            return course::verify(y, reference, course::Tolerance::exact());
          }};
}

course::Check TableData::end_to_end_check(bool pinned) {
  auto host_y = [this, pinned] { return pinned ? host->y.span() : std::span<float>(y); };
  return {[this, host_y] {
            course::poison(host_y());
            device->y.poison();
          },
          [this, host_y] { return course::verify(std::span<const float>(host_y()), reference, course::Tolerance::exact()); }};
}

course::Variant TableData::gpu_row(std::string name, bool pinned, std::function<void(cudaStream_t)> run) {
  return {.name = std::move(name), .target = course::Target::gpu, .work = 2 * array_bytes, .setup = {*arrays},
          .run = std::move(run), .check = end_to_end_check(pinned), .timing = course::Timing::host};
}

void add_copy_rows(course::Lesson& lesson, TableData& d) {
  auto add = [&](const std::string& name, std::string ceiling, bool pinned, std::function<void(cudaStream_t)> run) {
    lesson.add({.name = name, .target = course::Target::gpu, .work = d.array_bytes, .ceiling = std::move(ceiling),
                .setup = {*d.arrays}, .run = std::move(run),
                .timing = pinned ? course::Timing::events : course::Timing::host, .flush_l2 = false,
                .note = pinned ? "" : "held against the pinned copy: the share of it that pageable memory reaches"});
  };
  add(kPinnedIn, "pinned_h2d", true, [&](cudaStream_t s) { d.device->x.copy_from_host_async(d.host->x.span(), s); });
  add(kPinnedOut, "pinned_d2h", true, [&](cudaStream_t s) { d.device->y.copy_to_host_async(d.host->y.span(), s); });
  add(kPageableIn, "pinned_h2d", false, [&](cudaStream_t) {
    d.device->x.copy_from_host(d.x);
    CUDA_CHECK(cudaStreamSynchronize(nullptr));  // the last piece may still be in flight
  });
  add(kPageableOut, "pinned_d2h", false, [&](cudaStream_t) { d.device->y.copy_to_host(d.y); });
}

// The copy-engine baseline (role gpu_library, the "vs lib" column): (c)'s chunks and streams with
// cudaMemcpyAsync only. y comes back equal to x, bit for bit; (c) can at best match its time.
void add_copies_only(course::Lesson& lesson, TableData& d, const std::vector<Chunk>& chunks, std::size_t stream_count) {
  const std::string pipeline = chunked_row_name('c', chunks.size(), stream_count);  // "GPU (c) pinned, 16 chunks ..."
  course::Variant v = d.gpu_row("GPU copies only, no kernel: " + pipeline.substr(pipeline.find("pinned")), true,
                                [&d, chunks](cudaStream_t) { run_copies_only(*d.host, *d.device, chunks, *d.streams); });
  v.role = course::Role::gpu_library;
  v.check = {[&d] { course::poison(d.host->y.span()); },
             [&d] {
               return course::verify(std::span<const float>(d.host->y.span()), std::span<const float>(d.x),
                                     course::Tolerance::exact());
             }};
  v.note = "cudaMemcpyAsync alone, no kernel: the copy engines' bound for (c)";
  lesson.add(std::move(v));
}

PipelineRows add_variants(course::Lesson& lesson, TableData& d, const std::vector<Chunk>& chunks,
                          std::size_t stream_count, Timeline& timeline) {
  const PipelineRows rows{"GPU (a) pageable, cudaMemcpy, default stream", "GPU (b) pinned, 1 stream",
                          chunked_row_name('c', chunks.size(), stream_count)};
  course::Variant a = d.gpu_row(rows.pageable, false, [&](cudaStream_t) { run_pageable(d.x, d.y, *d.device, d.transform); });
  a.note_after_run = [&lesson] { return copy_rates(lesson.report(), kPageableIn, kPageableOut); };
  lesson.add(std::move(a));
  // [docs:one_stream_row]
  course::Variant b = d.gpu_row(rows.one_stream, true, [&](cudaStream_t s) { run_one_stream(*d.host, *d.device, d.transform, s); });
  b.note_after_run = [&lesson] { return copy_rates(lesson.report(), kPinnedIn, kPinnedOut); };
  lesson.add(std::move(b));
  // [docs:end one_stream_row]
  auto chunked = [&](const std::string& name, course::Role role, std::vector<Chunk> list) {
    course::Variant v = d.gpu_row(name, true, [&d, list](cudaStream_t) { run_pipelined(*d.host, *d.device, d.transform, list, *d.streams); });
    v.role = role;
    v.note = describe_chunks(list, stream_count) + "; x in and y out at the same time, each direction at half this rate";
    lesson.add(std::move(v));
  };
  chunked(rows.pipelined, course::Role::gpu_end_to_end, chunks);
  const std::size_t n = d.x.size();
  if (const auto unequal = chunk_count_with_remainder(n, chunks.size())) {
    chunked(chunked_row_name('d', *unequal, stream_count), course::Role::detail, split_chunks(n, *unequal));
  } else {
    lesson.add({.name = "GPU (d) pinned, unequal chunks", .target = course::Target::gpu,
                .skip = "no chunk count in (" + std::to_string(chunks.size()) + ", " + std::to_string(n) +
                        "] leaves a remainder for " + course::format_count(n) + (n == 1 ? " element" : " elements")});
  }
  add_copies_only(lesson, d, chunks, stream_count);
  // Verified like every run, timed once on the host's clock like (c): the events cost a little.
  course::Variant t = d.gpu_row(rows.pipelined + ", timeline run", true, [&d, &timeline, chunks](cudaStream_t) {
    timeline = record_timeline(*d.host, *d.device, d.transform, chunks, *d.streams);
  });
  t.repeat = course::RepeatOptions{0, 1};
  t.note = "one run of (c) with events around every stage (--json: extra.timeline)";
  lesson.add(std::move(t));
  return rows;
}

}  // namespace streams
