// Lesson 03, exercise 1 (starter): one stream per engine, chunks handed on by events.
//
// queues[0] copies every chunk in, queues[1] runs every kernel, queues[2] copies every chunk
// out. Chunk i's kernel must wait for its copy in, and its copy out for its kernel: record an
// event (course::Event::record) after each stage, and make the next queue wait for it with
// cudaStreamWaitEvent, so that the GPU waits and the host does not. Without the waits the
// result is a race: right on a quiet machine, wrong some day.
// Check it with
//   ./scripts/check_exercise.sh 03 three_queues
// (PASS or FAIL with the reason; then compare with exercises/three_queues_solution.cpp).
#include <stdexcept>
#include <vector>

#include "course/check.hpp"
#include "exercises/exercises.hpp"

namespace streams::exercises {

void run_three_queues_starter(PinnedArrays& host, DeviceArrays& device, const Transform& transform,
                              std::span<const Chunk> chunks, std::span<const course::Stream> queues) {
  require_streams_and_chunks(host, device, chunks, queues.size());
  if (queues.size() != 3) throw std::invalid_argument("run_three_queues: needs exactly 3 streams");
  const cudaStream_t in = queues[0].get(), compute = queues[1].get(), out = queues[2].get();
  std::vector<course::Event> copied_in(chunks.size()), computed(chunks.size());
  issue_then_wait(queues, [&] {
    for (std::size_t i = 0; i < chunks.size(); ++i) {
      issue_stage(Stage::h2d, host, device, chunks[i], transform, in);
      // TODO: record copied_in[i] in `in`, make `compute` wait for it, issue the kernel there;
      // record computed[i] in `compute`, make `out` wait for it, issue the copy out there.
      (void)compute;
      (void)out;
    }
  });
}

}  // namespace streams::exercises
