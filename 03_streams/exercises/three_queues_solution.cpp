// Lesson 03, exercise 1 (solution): one stream per engine, chunks handed on by events.
//
// queues[0] copies in, queues[1] runs the kernels, queues[2] copies out. After each copy in an
// event is recorded in queues[0], and queues[1] waits for it (cudaStreamWaitEvent: the GPU
// waits, the host does not) before that chunk's kernel; likewise between queues[1] and
// queues[2]. This is exactly the ideal pipeline's machine (chunks.cpp): one chunk at a time per
// engine, the kernels strictly one after another in queues[1].
#include <stdexcept>
#include <vector>

#include "course/check.hpp"
#include "exercises/exercises.hpp"

namespace streams::exercises {

// [docs:solution]
void run_three_queues_solution(PinnedArrays& host, DeviceArrays& device, const Transform& transform,
                               std::span<const Chunk> chunks, std::span<const course::Stream> queues) {
  require_streams_and_chunks(host, device, chunks, queues.size());
  if (queues.size() != 3) throw std::invalid_argument("run_three_queues: needs exactly 3 streams");
  const cudaStream_t in = queues[0].get(), compute = queues[1].get(), out = queues[2].get();
  // One pair of events per chunk. They outlive the work: issue_then_wait waits for all three
  // queues before the vectors are destroyed, also when an error is thrown.
  std::vector<course::Event> copied_in(chunks.size()), computed(chunks.size());
  issue_then_wait(queues, [&] {
    for (std::size_t i = 0; i < chunks.size(); ++i) {
      issue_stage(Stage::h2d, host, device, chunks[i], transform, in);
      copied_in[i].record(in);
      CUDA_CHECK(cudaStreamWaitEvent(compute, copied_in[i].get(), 0));  // kernel i after copy in i
      issue_stage(Stage::kernel, host, device, chunks[i], transform, compute);
      computed[i].record(compute);
      CUDA_CHECK(cudaStreamWaitEvent(out, computed[i].get(), 0));  // copy out i after kernel i
      issue_stage(Stage::d2h, host, device, chunks[i], transform, out);
    }
  });
}
// [docs:end solution]

}  // namespace streams::exercises
