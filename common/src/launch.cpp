// Grid sizing from the occupancy calculator.
#include "course/launch.hpp"

#include "course/format.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>

#include "course/check.hpp"

namespace course {

std::string LaunchShape::describe() const {
  if (two_d()) {
    return std::to_string(blocks) + "x" + std::to_string(blocks_y) + " blocks of " + std::to_string(threads) + "x" +
           std::to_string(threads_y) + " threads";
  }
  return format_count(static_cast<std::uint64_t>(blocks)) + (blocks == 1 ? " block of " : " blocks of ") +
         std::to_string(threads) + " threads";
}

std::size_t blocks_to_cover(std::size_t n, int block_size) {
  const std::size_t block = static_cast<std::size_t>(block_size);
  return std::max<std::size_t>(1, (n + block - 1) / block);
}

int resident_blocks(const void* kernel, int block_size, std::size_t dynamic_shared_bytes) {
  int device = 0, sm_count = 0, per_sm = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, device));
  CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, block_size, dynamic_shared_bytes));
  return std::max(1, sm_count * per_sm);
}

int grid_stride_blocks(const void* kernel, std::size_t n, int block_size) {
  const std::size_t cover = blocks_to_cover(n, block_size);
  return static_cast<int>(std::min<std::size_t>(cover, static_cast<std::size_t>(resident_blocks(kernel, block_size))));
}

}  // namespace course
