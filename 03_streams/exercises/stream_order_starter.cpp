// Lesson 03, exercise 4 (find the bug, on a GPU): a copy stream and a compute stream.
//
// y = f(x) chunk by chunk, with two streams: `copies` does every copy (in and out), `compute`
// every kernel. Chunk i + 1 is copied in while chunk i is in the kernel, and chunk i is copied
// out once its kernel is done. Events hand each chunk from one stream to the other: its kernel
// waits for its copy in (copied_in[i]), its copy out for its kernel (computed[i]). The host
// waits only at the end (issue_then_wait).
// The result is wrong. The check names the chunks that came back wrong, and what they hold:
//   ./scripts/check_exercise.sh 03 stream_order
// Find the defect and fix it; the host must still not wait inside the loop.
// Hints: ./scripts/check_exercise.sh 03 stream_order --hint
#include <stdexcept>
#include <vector>

#include "course/check.hpp"
#include "exercises/exercises.hpp"

namespace streams::exercises {

void run_stream_order_starter(PinnedArrays& host, DeviceArrays& device, const Transform& transform,
                              std::span<const Chunk> chunks, std::span<const course::Stream> queues) {
  require_streams_and_chunks(host, device, chunks, queues.size());
  if (queues.size() != 2) throw std::invalid_argument("run_stream_order: needs exactly 2 streams");
  if (chunks.empty()) return;
  const cudaStream_t copies = queues[0].get(), compute = queues[1].get();
  std::vector<course::Event> copied_in(chunks.size()), computed(chunks.size());
  auto copy_in = [&](std::size_t i) {
    issue_stage(Stage::h2d, host, device, chunks[i], transform, copies);
    copied_in[i].record(copies);
  };
  issue_then_wait(queues, [&] {
    copy_in(0);
    for (std::size_t i = 0; i < chunks.size(); ++i) {
      if (i + 1 < chunks.size()) copy_in(i + 1);  // in while chunk i is computed
      CUDA_CHECK(cudaStreamWaitEvent(compute, copied_in[i].get(), 0));
      computed[i].record(compute);
      issue_stage(Stage::kernel, host, device, chunks[i], transform, compute);
      CUDA_CHECK(cudaStreamWaitEvent(copies, computed[i].get(), 0));
      issue_stage(Stage::d2h, host, device, chunks[i], transform, copies);
    }
  });
}

}  // namespace streams::exercises
