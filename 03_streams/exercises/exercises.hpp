// Lesson 03's exercises: each has a starter (what you edit) and a solution (what the tests check).
// The tests also run the starter as shipped and expect it to FAIL verification: the outputs are
// poisoned first, so a chunk that never comes back is caught, and "it ran" is never mistaken
// for "it is right".
#pragma once

#include <span>
#include <vector>

#include "streams.hpp"

namespace streams::exercises {

// Exercise 1: one stream per engine. queues[0] copies every chunk in, queues[1] runs every
// kernel, queues[2] copies every chunk out; chunk i's kernel waits for its copy in, and its copy
// out for its kernel, through events and cudaStreamWaitEvent, never the host. Returns when
// every queue has finished, so host.y holds the result. Throws std::invalid_argument unless
// there are exactly 3 queues (and for the chunks run_pipelined rejects).
void run_three_queues_starter(PinnedArrays& host, DeviceArrays& device, const Transform& transform,
                              std::span<const Chunk> chunks, std::span<const course::Stream> queues);
void run_three_queues_solution(PinnedArrays& host, DeviceArrays& device, const Transform& transform,
                               std::span<const Chunk> chunks, std::span<const course::Stream> queues);

}  // namespace streams::exercises

namespace streams::exercises {

// Exercise 2 (CPU, find the bug): n elements in `chunks` contiguous, balanced chunks (the lesson's
// split_chunks). See balanced_chunks_starter.cpp.
std::vector<Chunk> split_chunks_starter(std::size_t n, std::size_t chunks);
std::vector<Chunk> split_chunks_solution(std::size_t n, std::size_t chunks);

}  // namespace streams::exercises

namespace streams::exercises {

// Exercise 4 (find the bug, on a GPU): two streams, queues[0] for every copy (in and out) and
// queues[1] for every kernel; chunk i + 1 is copied in while chunk i is computed, and events hand
// each chunk from one stream to the other. Returns when both streams have finished, so host.y
// holds the result. Throws std::invalid_argument unless there are exactly 2 queues (and for the
// chunks run_pipelined rejects). See stream_order_starter.cpp.
void run_stream_order_starter(PinnedArrays& host, DeviceArrays& device, const Transform& transform,
                              std::span<const Chunk> chunks, std::span<const course::Stream> queues);
void run_stream_order_solution(PinnedArrays& host, DeviceArrays& device, const Transform& transform,
                               std::span<const Chunk> chunks, std::span<const course::Stream> queues);

}  // namespace streams::exercises
