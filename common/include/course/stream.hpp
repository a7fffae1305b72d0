// Owning CUDA streams and events (RAII), and a guard that synchronizes a stream at scope end.
//
// Teaches: work issued to one stream runs in order; work in different streams may overlap.
// Events mark points in a stream: the GPU timestamps them, so the time between two events is
// GPU time, free of host-side noise.
//
//   course::Stream stream;                       // non-blocking: no implicit sync with stream 0
//   {
//     course::StreamSyncGuard sync(stream.get());
//     d_in.copy_from_host_async(pinned_in.span(), stream.get());
//     my_kernel<<<grid, block, 0, stream.get()>>>(...);
//     d_out.copy_to_host_async(pinned_out.span(), stream.get());
//   }                                            // the stream has finished here
#pragma once

#include <cuda_runtime_api.h>

#include <utility>

namespace course {

class Stream {
 public:
  // cudaStreamNonBlocking: this stream does not wait for the legacy default stream (stream 0).
  explicit Stream(unsigned flags = cudaStreamNonBlocking);
  ~Stream();
  Stream(Stream&& other) noexcept : stream_(std::exchange(other.stream_, nullptr)) {}
  Stream& operator=(Stream&& other) noexcept;
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;

  cudaStream_t get() const { return stream_; }
  void synchronize() const;

 private:
  cudaStream_t stream_ = nullptr;
};

class Event {
 public:
  explicit Event(unsigned flags = cudaEventDefault);
  ~Event();
  Event(Event&& other) noexcept : event_(std::exchange(other.event_, nullptr)) {}
  Event& operator=(Event&& other) noexcept;
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;

  cudaEvent_t get() const { return event_; }
  void record(cudaStream_t stream) const;
  void synchronize() const;

 private:
  cudaEvent_t event_ = nullptr;
};

// Milliseconds between two recorded, completed events (GPU clock, about 0.5 us resolution).
float elapsed_ms(const Event& start, const Event& stop);

// The scoped form of "synchronize before the host reads the results": the destructor waits
// for the stream. A failure there is thrown (not swallowed) unless an exception is already
// on its way out of the scope, because a destructor must not throw during unwinding.
class StreamSyncGuard {
 public:
  explicit StreamSyncGuard(cudaStream_t stream);
  ~StreamSyncGuard() noexcept(false);
  StreamSyncGuard(const StreamSyncGuard&) = delete;
  StreamSyncGuard& operator=(const StreamSyncGuard&) = delete;

 private:
  cudaStream_t stream_;
  int uncaught_at_entry_;
};

}  // namespace course
