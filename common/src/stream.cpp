// Streams, events and the synchronizing guard.
#include "course/stream.hpp"

#include <exception>

#include "course/check.hpp"

namespace course {

Stream::Stream(unsigned flags) { CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, flags)); }

Stream::~Stream() {
  if (stream_) cudaStreamDestroy(stream_);
}

Stream& Stream::operator=(Stream&& other) noexcept {
  if (this != &other) {
    if (stream_) cudaStreamDestroy(stream_);
    stream_ = std::exchange(other.stream_, nullptr);
  }
  return *this;
}

void Stream::synchronize() const { CUDA_CHECK(cudaStreamSynchronize(stream_)); }

Event::Event(unsigned flags) { CUDA_CHECK(cudaEventCreateWithFlags(&event_, flags)); }

Event::~Event() {
  if (event_) cudaEventDestroy(event_);
}

Event& Event::operator=(Event&& other) noexcept {
  if (this != &other) {
    if (event_) cudaEventDestroy(event_);
    event_ = std::exchange(other.event_, nullptr);
  }
  return *this;
}

void Event::record(cudaStream_t stream) const { CUDA_CHECK(cudaEventRecord(event_, stream)); }

void Event::synchronize() const { CUDA_CHECK(cudaEventSynchronize(event_)); }

float elapsed_ms(const Event& start, const Event& stop) {
  float ms = 0;
  CUDA_CHECK(cudaEventElapsedTime(&ms, start.get(), stop.get()));
  return ms;
}

StreamSyncGuard::StreamSyncGuard(cudaStream_t stream)
    : stream_(stream), uncaught_at_entry_(std::uncaught_exceptions()) {}

StreamSyncGuard::~StreamSyncGuard() noexcept(false) {
  const cudaError_t status = cudaStreamSynchronize(stream_);
  // Leaving the scope normally: a failure is this scope's result, so report it.
  // Leaving because of another exception: that one is already on its way; don't replace it.
  if (status != cudaSuccess && std::uncaught_exceptions() == uncaught_at_entry_) {
    detail::throw_runtime_error(status, "cudaStreamSynchronize (end of StreamSyncGuard scope)", __FILE__,
                                __LINE__);
  }
}

}  // namespace course
