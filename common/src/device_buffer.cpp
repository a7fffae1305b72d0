// Allocation, copies and fills behind DeviceBuffer and PinnedBuffer.
#include "course/device_buffer.hpp"

#include <stdexcept>
#include <string>

#include "course/check.hpp"
#include "course/format.hpp"

namespace course::detail {

void* device_allocate(std::size_t bytes, const std::string& label) {
  void* pointer = nullptr;
  const cudaError_t status = cudaMalloc(&pointer, bytes);
  if (status == cudaErrorMemoryAllocation) {
    cudaGetLastError();  // out-of-memory is not sticky: clear it so later calls are unaffected
    std::size_t free_bytes = 0, total_bytes = 0;
    cudaMemGetInfo(&free_bytes, &total_bytes);
    throw ApiError("CUDA runtime", "cudaMalloc of " + format_bytes(static_cast<double>(bytes)) + " for " + label,
                   static_cast<int>(status), cudaGetErrorName(status),
                   "out of GPU memory: " + format_bytes(static_cast<double>(free_bytes)) + " free of " +
                       format_bytes(static_cast<double>(total_bytes)),
                   course_relative_path(__FILE__), __LINE__);
  }
  CUDA_CHECK(status);
  return pointer;
}

void device_free(void* pointer) noexcept {
  // A destructor must not throw; a failing cudaFree means the context is already broken,
  // and the call that broke it has been (or will be) reported.
  if (pointer) cudaFree(pointer);
}

void* pinned_allocate(std::size_t bytes, const std::string& label) {
  void* pointer = nullptr;
  const cudaError_t status = cudaMallocHost(&pointer, bytes);
  if (status == cudaErrorMemoryAllocation) {
    cudaGetLastError();
    throw ApiError("CUDA runtime", "cudaMallocHost of " + format_bytes(static_cast<double>(bytes)) + " for " + label,
                   static_cast<int>(status), cudaGetErrorName(status), "out of pinnable host memory",
                   course_relative_path(__FILE__), __LINE__);
  }
  CUDA_CHECK(status);
  return pointer;
}

void pinned_free(void* pointer) noexcept {
  if (pointer) cudaFreeHost(pointer);
}

void copy_bytes(void* dst, const void* src, std::size_t bytes, cudaMemcpyKind kind, cudaStream_t stream,
                bool async, const char* what) {
  if (bytes == 0) return;
  // A synchronous copy runs in the legacy default stream, which the course's streams
  // (cudaStreamNonBlocking) do not wait for, and a pageable host-to-device cudaMemcpy may return
  // once the data is staged, before it has landed. So "synchronous" is made to mean it: the whole
  // device is synchronized before (a kernel still writing the source has finished) and after (the
  // data is in place before any stream's next kernel reads it).
  if (!async) CUDA_CHECK(cudaDeviceSynchronize());
  const cudaError_t status =
      async ? cudaMemcpyAsync(dst, src, bytes, kind, stream) : cudaMemcpy(dst, src, bytes, kind);
  if (status == cudaSuccess && !async) CUDA_CHECK(cudaDeviceSynchronize());
  if (status != cudaSuccess) {
    const std::string call = std::string(async ? "cudaMemcpyAsync" : "cudaMemcpy") + " (" + what + " of " +
                             format_bytes(static_cast<double>(bytes)) + ")";
    throw_runtime_error(status, call.c_str(), __FILE__, __LINE__);
  }
}

void set_bytes(void* dst, int value, std::size_t bytes, cudaStream_t stream) {
  if (bytes == 0) return;
  CUDA_CHECK(cudaMemsetAsync(dst, value, bytes, stream));
  if (stream == nullptr) CUDA_CHECK(cudaStreamSynchronize(nullptr));
}

void require_same_size(std::size_t expected, std::size_t actual, const char* what) {
  if (expected != actual) {
    throw std::invalid_argument(std::string(what) + ": host span has " + std::to_string(actual) +
                                " elements, the device buffer " + std::to_string(expected));
  }
}

}  // namespace course::detail
