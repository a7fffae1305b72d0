// See sm_holder.hpp.
#include "sm_holder.hpp"

#include <cstddef>
#include <thread>

#include "course/check.hpp"

namespace matmul::testing {

namespace {

__device__ __forceinline__ unsigned long long global_ns() {
  unsigned long long t = 0;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__global__ void hold_sm_kernel(volatile unsigned* flags, unsigned long long max_ns) {
  extern __shared__ unsigned char reserved[];  // only taken, so that nothing else fits on the SM
  if (threadIdx.x == 0) {
    flags[1 + blockIdx.x] = 1;  // a plain store per block: atomics on host memory need hardware support
    __threadfence_system();      // on its way to the host now, not when the block ends
    const unsigned long long start = global_ns();
    while (flags[0] == 0 && global_ns() - start < max_ns) __nanosleep(10000);
    reserved[0] = 1;
  }
  __syncthreads();
}

}  // namespace

SmHolder::SmHolder(int blocks, int max_ms) : blocks_(blocks) {
  int device = 0, shared = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&shared, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  const std::size_t slots = 1 + static_cast<std::size_t>(blocks_);
  CUDA_CHECK(cudaHostAlloc(reinterpret_cast<void**>(&flags_), slots * sizeof(unsigned), cudaHostAllocMapped));
  for (std::size_t i = 0; i < slots; ++i) flags_[i] = 0;
  unsigned* device_flags = nullptr;
  CUDA_CHECK(cudaHostGetDevicePointer(reinterpret_cast<void**>(&device_flags), flags_, 0));
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
  CUDA_CHECK(cudaFuncSetAttribute(hold_sm_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, shared));
  const unsigned long long max_ns = static_cast<unsigned long long>(max_ms) * 1000000ull;
  hold_sm_kernel<<<blocks_, 1024, static_cast<size_t>(shared), stream_>>>(device_flags, max_ns);
  CUDA_CHECK_LAUNCH("hold_sm_kernel");
}

SmHolder::~SmHolder() {
  release();
  (void)cudaStreamSynchronize(stream_);  // bounded: the holder ends by itself after max_ms
  (void)cudaStreamDestroy(stream_);
  (void)cudaFreeHost(flags_);
}

bool SmHolder::wait_started(std::chrono::milliseconds timeout) const {
  const auto end = std::chrono::steady_clock::now() + timeout;
  const volatile unsigned* started = flags_ + 1;
  for (int block = 0; block < blocks_; ++block) {
    while (started[block] == 0) {
      if (std::chrono::steady_clock::now() > end) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  }
  return true;
}

void SmHolder::release() { reinterpret_cast<volatile unsigned*>(flags_)[0] = 1; }

bool wait_for_stream(cudaStream_t stream, std::chrono::milliseconds timeout) {
  const auto end = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    const cudaError_t status = cudaStreamQuery(stream);
    if (status == cudaSuccess) return true;
    if (status != cudaErrorNotReady) CUDA_CHECK(status);
    if (std::chrono::steady_clock::now() > end) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

}  // namespace matmul::testing
