// Lesson 03, exercise 4 (solution): a copy stream and a compute stream, chunks handed on by events.
//
// The starter recorded computed[i] BEFORE issuing chunk i's kernel. An event marks the point in
// its stream where it is recorded: it completes when everything issued to that stream before
// the record has finished. There, that was chunk i's copy in (waited for) and chunk i - 1's
// kernel, not chunk i's kernel. So the copy out of chunk i waited for the wrong kernel and ran
// while its own kernel was still computing: every chunk came back as y held before the run.
// The fix moves one line: record computed[i] after the kernel, so the copy out waits for it.
// (A cudaStreamSynchronize(compute) before each copy out also gives the right result, but the
// host then waits for every kernel before it issues the next: the GPU idles between kernels while
// the host catches up, and a synchronize after every stage would leave nothing overlapping.)
#include <stdexcept>
#include <vector>

#include "course/check.hpp"
#include "exercises/exercises.hpp"

namespace streams::exercises {

// [docs:solution]
void run_stream_order_solution(PinnedArrays& host, DeviceArrays& device, const Transform& transform,
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
    // [docs:fix]
    for (std::size_t i = 0; i < chunks.size(); ++i) {
      if (i + 1 < chunks.size()) copy_in(i + 1);  // in while chunk i is computed
      CUDA_CHECK(cudaStreamWaitEvent(compute, copied_in[i].get(), 0));
      issue_stage(Stage::kernel, host, device, chunks[i], transform, compute);
      computed[i].record(compute);  // after the kernel: the copy out waits for THIS chunk's kernel
      CUDA_CHECK(cudaStreamWaitEvent(copies, computed[i].get(), 0));
      issue_stage(Stage::d2h, host, device, chunks[i], transform, copies);
    }
    // [docs:end fix]
  });
}
// [docs:end solution]

}  // namespace streams::exercises
