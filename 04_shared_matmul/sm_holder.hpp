// A test helper: a kernel that holds some of the GPU's SMs until the test releases it, so that a
// test can launch another kernel on a GPU that is partly busy (docs/04_shared_matmul.md, stream_k).
//
// Each of its blocks takes the most shared memory a block may have, so no other block fits on
// its SM beside it, and spins (sleeping) until the flag in mapped host memory is set or max_ms
// has passed: the hold is bounded, whatever the test does.
#pragma once

#include <cuda_runtime_api.h>

#include <chrono>

namespace matmul::testing {

class SmHolder {
 public:
  SmHolder(int blocks, int max_ms);  // blocks >= 1; launches into its own non-blocking stream
  ~SmHolder();                       // releases and waits for the holder to end
  SmHolder(const SmHolder&) = delete;
  SmHolder& operator=(const SmHolder&) = delete;

  // Waits until every block has started, at most `timeout`; false if they did not.
  bool wait_started(std::chrono::milliseconds timeout) const;
  void release();
  int blocks() const { return blocks_; }

 private:
  int blocks_;
  unsigned* flags_ = nullptr;  // mapped host memory: [0] release, [1 + b] block b has started
  cudaStream_t stream_ = nullptr;
};

// Polls `stream` until its work is done or `timeout` has passed; true if done.
bool wait_for_stream(cudaStream_t stream, std::chrono::milliseconds timeout);

}  // namespace matmul::testing
