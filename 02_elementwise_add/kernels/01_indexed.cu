// Lesson 02, step 1: many blocks, one thread per element.
//
// Teaches: i = blockIdx.x * blockDim.x + threadIdx.x is the element's global index; ceil(n / block)
// blocks cover n, and the threads of the last block that fall past the end must do nothing:
// the bounds check if (i < n). The index is std::size_t: blockIdx.x * blockDim.x in 32-bit
// unsigned arithmetic wraps around past 2^32 elements (16 GiB of floats), and a signed int
// overflows past 2^31. A grid holds at most 2^31 - 1 blocks, so one thread per element stops
// there; the launcher says so in words instead of letting the launch fail.
#include <cuda_runtime.h>

#include <string>

#include "course/check.hpp"
#include "course/errors.hpp"
#include "course/format.hpp"
#include "elementwise_add.hpp"

namespace elementwise_add {

namespace {

// [docs:kernel]
__global__ void add_indexed(const float* a, const float* b, float* c, std::size_t n) {
  // Cast before multiplying: blockIdx.x * blockDim.x alone is computed in 32 bits.
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];  // the last block usually has threads past the end
}
// [docs:end kernel]

}  // namespace

course::LaunchShape launch_add_indexed(const float* a, const float* b, float* c, std::size_t n,
                                       const LaunchConfig& config, cudaStream_t stream) {
  if (n == 0) return {};
  const int block_size = config.block_size;  // the grid is sized to the data: config.grid_size is not used
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

}  // namespace elementwise_add
