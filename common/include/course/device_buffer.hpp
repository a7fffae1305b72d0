// Owning GPU memory and pinned host memory (RAII).
//
// Teaches: cudaMalloc'd memory must be cudaFree'd on every path, including the one where the
// next allocation throws. An owner object does that in its destructor, so a function that fails
// half-way leaks nothing. The owners are move-only: copying would mean two frees.
//
//   course::DeviceBuffer<float> d_in(n, "input");   // throws course::ApiError if out of memory
//   d_in.copy_from_host(host_in);                    // sizes are checked
//   d_out.poison();                                  // every float NaN until the kernel writes it
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <span>
#include <string>
#include <utility>

namespace course {

namespace detail {
// Allocate with a message that says what, how much, and how much was free, on failure.
void* device_allocate(std::size_t bytes, const std::string& label);
void device_free(void* pointer) noexcept;
void* pinned_allocate(std::size_t bytes, const std::string& label);
void pinned_free(void* pointer) noexcept;
void copy_bytes(void* dst, const void* src, std::size_t bytes, cudaMemcpyKind kind, cudaStream_t stream,
                bool async, const char* what);
void set_bytes(void* dst, int value, std::size_t bytes, cudaStream_t stream);
void require_same_size(std::size_t expected, std::size_t actual, const char* what);
}  // namespace detail

// Memory on the GPU for `count` elements of T.
template <class T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t count, const std::string& label = "device buffer")
      : data_(count ? static_cast<T*>(detail::device_allocate(count * sizeof(T), label)) : nullptr),
        size_(count) {}
  ~DeviceBuffer() { detail::device_free(data_); }

  DeviceBuffer(DeviceBuffer&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)) {}
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept {
    if (this != &other) {
      detail::device_free(data_);
      data_ = std::exchange(other.data_, nullptr);
      size_ = std::exchange(other.size_, 0);
    }
    return *this;
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  T* data() const { return data_; }
  std::size_t size() const { return size_; }
  std::size_t bytes() const { return size_ * sizeof(T); }

  // Synchronous copies (pageable or pinned host memory), ordered against every stream: the device
  // is synchronized before and after (device_buffer.cpp says why). The host span must match the size.
  void copy_from_host(std::span<const T> host) {
    detail::require_same_size(size_, host.size(), "DeviceBuffer::copy_from_host");
    detail::copy_bytes(data_, host.data(), bytes(), cudaMemcpyHostToDevice, nullptr, false, "host-to-device copy");
  }
  void copy_to_host(std::span<T> host) const {
    detail::require_same_size(size_, host.size(), "DeviceBuffer::copy_to_host");
    detail::copy_bytes(host.data(), data_, bytes(), cudaMemcpyDeviceToHost, nullptr, false, "device-to-host copy");
  }
  // Asynchronous copies in `stream`: truly asynchronous only from/to pinned host memory.
  void copy_from_host_async(std::span<const T> host, cudaStream_t stream) {
    detail::require_same_size(size_, host.size(), "DeviceBuffer::copy_from_host_async");
    detail::copy_bytes(data_, host.data(), bytes(), cudaMemcpyHostToDevice, stream, true, "host-to-device copy");
  }
  void copy_to_host_async(std::span<T> host, cudaStream_t stream) const {
    detail::require_same_size(size_, host.size(), "DeviceBuffer::copy_to_host_async");
    detail::copy_bytes(host.data(), data_, bytes(), cudaMemcpyDeviceToHost, stream, true, "device-to-host copy");
  }

  // Fill every byte with 0xFF: floats read back as NaN, integers as -1, so an element the
  // kernel never wrote fails verification instead of passing as a leftover value.
  void poison(cudaStream_t stream = nullptr) { detail::set_bytes(data_, 0xFF, bytes(), stream); }
  void zero(cudaStream_t stream = nullptr) { detail::set_bytes(data_, 0, bytes(), stream); }

 private:
  T* data_ = nullptr;
  std::size_t size_ = 0;
};

// Page-locked ("pinned") host memory: the GPU's copy engines read and write it directly, which
// makes transfers faster and lets cudaMemcpyAsync overlap with other work (lesson 03).
template <class T>
class PinnedBuffer {
 public:
  PinnedBuffer() = default;
  explicit PinnedBuffer(std::size_t count, const std::string& label = "pinned host buffer")
      : data_(count ? static_cast<T*>(detail::pinned_allocate(count * sizeof(T), label)) : nullptr),
        size_(count) {}
  ~PinnedBuffer() { detail::pinned_free(data_); }

  PinnedBuffer(PinnedBuffer&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)) {}
  PinnedBuffer& operator=(PinnedBuffer&& other) noexcept {
    if (this != &other) {
      detail::pinned_free(data_);
      data_ = std::exchange(other.data_, nullptr);
      size_ = std::exchange(other.size_, 0);
    }
    return *this;
  }
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;

  T* data() const { return data_; }
  std::size_t size() const { return size_; }
  std::size_t bytes() const { return size_ * sizeof(T); }
  std::span<T> span() const { return {data_, size_}; }
  T& operator[](std::size_t i) const { return data_[i]; }

 private:
  T* data_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace course
