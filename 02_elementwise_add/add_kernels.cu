// Lesson 02, GPU side: the classic first kernels and their launchers.
//
// Teaches, one kernel at a time:
//  - multiply_them (part 1, the PyCUDA demo): a kernel is a function that every thread runs;
//    threadIdx.x tells each thread which element is its own. One block of 400 threads.
//  - add_one_block: the same indexing for c = a + b. A block holds at most 1024 threads
//    (maxThreadsPerBlock), so a kernel indexed by threadIdx.x alone stops at 1024 elements. A
//    launch of 2048 threads per block is refused (cudaErrorInvalidConfiguration, or
//    cudaErrorInvalidValue from CUDA 13 on), and nothing says so unless cudaGetLastError() is
//    asked right after <<<>>> (CUDA_CHECK_LAUNCH does).
//  - add_indexed: many blocks. i = blockIdx.x * blockDim.x + threadIdx.x is the element's global
//    index; ceil(n / block) blocks cover n, and the threads of the last block that fall past the
//    end must do nothing: the bounds check if (i < n).
//  - add_grid_stride: a grid-stride loop. Any grid covers any n, so the grid is sized to the GPU
//    (the blocks that can be resident at once) instead of to the data.
//  - memory-bound kernels: one add per 12 bytes moved (two 4-byte loads, one 4-byte store), so
//    the speed to compare with is the memory's (a device-to-device copy), not the FLOP rate.
// Indices are std::size_t: blockIdx.x * blockDim.x in 32-bit unsigned arithmetic wraps around
// past 2^32 elements (16 GiB of floats), and a signed int overflows past 2^31.
#include <cuda_runtime.h>

#include <algorithm>
#include <climits>
#include <stdexcept>

#include "course/check.hpp"
#include "course/errors.hpp"
#include "course/format.hpp"
#include "course/launch.hpp"
#include "elementwise_add.hpp"

namespace elementwise_add {

namespace {

// Part 1: the PyCUDA demo, line for line. No bounds check: the launch has exactly n threads.
__global__ void multiply_them(float* dest, const float* a, const float* b) {
  const unsigned i = threadIdx.x;
  dest[i] = a[i] * b[i];
}

// The same for c = a + b: correct, but only for n <= maxThreadsPerBlock (1024).
__global__ void add_one_block(const float* a, const float* b, float* c) {
  const unsigned i = threadIdx.x;
  c[i] = a[i] + b[i];
}

// One thread per element, in as many blocks as it takes.
__global__ void add_indexed(const float* a, const float* b, float* c, std::size_t n) {
  // Cast before multiplying: blockIdx.x * blockDim.x alone is computed in 32 bits.
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];  // the last block usually has threads past the end
}

// Each thread handles i, i + stride, i + 2 * stride, ... where stride is the number of threads
// in the grid. Neighbouring threads still touch neighbouring addresses on every trip (coalesced).
__global__ void add_grid_stride(const float* a, const float* b, float* c, std::size_t n) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    c[i] = a[i] + b[i];
  }
}

}  // namespace

std::string kernel_label(Kernel kernel) {
  switch (kernel) {
    case Kernel::add_one_block: return "add_one_block";
    case Kernel::add_indexed: return "add_indexed";
    case Kernel::add_grid_stride: return "add_grid_stride";
    case Kernel::add_float4: return "add_float4";
    case Kernel::add_one_block_loop: return "add_one_block_loop";
  }
  return "?";
}

std::string Launch::describe() const {
  return course::format_count(static_cast<std::uint64_t>(blocks)) + (blocks == 1 ? " block of " : " blocks of ") +
         std::to_string(threads) + " threads";
}

bool is_block_size_refusal(const course::ApiError& error) {
  return error.code() == cudaErrorInvalidConfiguration || error.code() == cudaErrorInvalidValue;
}

void launch_multiply_them(float* dest, const float* a, const float* b, int n, cudaStream_t stream) {
  if (n <= 0) return;
  multiply_them<<<1, n, 0, stream>>>(dest, a, b);
  CUDA_CHECK_LAUNCH("multiply_them");
}

Launch launch_add_one_block(const float* a, const float* b, float* c, std::size_t n, cudaStream_t stream) {
  if (n == 0) return {};
  // Deliberately no check against the 1024 limit here: the lesson lets CUDA refuse the launch.
  // (The clamp only keeps the number an int; any n over the limit is refused the same way.)
  const int threads = static_cast<int>(std::min<std::size_t>(n, INT_MAX));
  add_one_block<<<1, threads, 0, stream>>>(a, b, c);
  CUDA_CHECK_LAUNCH("add_one_block");
  return {1, threads};
}

Launch launch_add_indexed(const float* a, const float* b, float* c, std::size_t n, int block_size,
                          cudaStream_t stream) {
  if (n == 0) return {};
  const std::size_t blocks = course::blocks_to_cover(n, block_size);  // ceil(n / block_size)
  if (blocks > static_cast<std::size_t>(kMaxGridBlocks)) {
    throw course::Error("add_indexed: " + course::format_count(n) + " elements in blocks of " +
                        std::to_string(block_size) + " threads need " + course::format_count(blocks) +
                        " blocks, more than the 2,147,483,647 a grid may have; use larger blocks or a grid-stride loop");
  }
  const int grid = static_cast<int>(blocks);
  add_indexed<<<grid, block_size, 0, stream>>>(a, b, c, n);
  CUDA_CHECK_LAUNCH("add_indexed");
  return {grid, block_size};
}

Launch launch_add_grid_stride(const float* a, const float* b, float* c, std::size_t n, const LaunchConfig& config,
                              cudaStream_t stream) {
  if (n == 0) return {};
  const int grid = config.grid_size > 0 ? config.grid_size
                                        : course::grid_stride_blocks(reinterpret_cast<const void*>(add_grid_stride),
                                                                     n, config.block_size);
  add_grid_stride<<<grid, config.block_size, 0, stream>>>(a, b, c, n);
  CUDA_CHECK_LAUNCH("add_grid_stride");
  return {grid, config.block_size};
}

Launch launch_add(Kernel kernel, const float* a, const float* b, float* c, std::size_t n, const LaunchConfig& config,
                  cudaStream_t stream) {
  switch (kernel) {
    case Kernel::add_one_block: return launch_add_one_block(a, b, c, n, stream);
    case Kernel::add_indexed: return launch_add_indexed(a, b, c, n, config.block_size, stream);
    case Kernel::add_grid_stride: return launch_add_grid_stride(a, b, c, n, config, stream);
    case Kernel::add_float4: return launch_add_float4(a, b, c, n, config, stream);
    case Kernel::add_one_block_loop: return launch_add_one_block_loop(a, b, c, n, config, stream);
  }
  throw std::invalid_argument("launch_add: unknown kernel");
}

int grid_stride_blocks_per_sm(int block_size) {
  int per_sm = 0;
  CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, add_grid_stride, block_size, 0));
  return per_sm;
}

}  // namespace elementwise_add
