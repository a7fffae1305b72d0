// Lesson 08, the runtime-API side: the same kernel text built by nvcc, launched with <<<>>>.
//
// Teaches: this is what the runtime API does for you. nvcc compiled saxpy_kernel.cuh when the
// course was built (for CMAKE_CUDA_ARCHITECTURES, with --fmad=false from CMakeLists.txt), put
// the code in the executable, and the runtime registers it; the first launch loads it into the
// device's primary context and <<<grid, block, 0, stream>>> packs the arguments. The driver
// path (saxpy_driver.cpp, main.cpp) does each of those steps itself.
#include <cuda_runtime.h>

#include "course/check.hpp"
#include "saxpy.hpp"

// The kernel text, compiled here by nvcc. SAXPY_ILP is the value NVRTC gets too.
#define SAXPY_ILP 2
#include "saxpy_kernel.cuh"
static_assert(SAXPY_ILP == driver_saxpy::kIlp, "nvcc and NVRTC must compile the same kernel");
// The second kernel text, one pass (no loop). SAXPY_VECTORS is its own default, which NVRTC sees too.
#include "saxpy_one_pass.cuh"
static_assert(SAXPY_VECTORS == driver_saxpy::kOnePassVectors, "nvcc and NVRTC must compile the same kernel");

namespace driver_saxpy {

int runtime_blocks_per_sm(int block_size) {
  int blocks = 0;
  CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, ::saxpy, block_size, 0));
  return blocks;
}

void launch_runtime(const course::LaunchShape& launch, float a, const float* x, const float* y, float* out, std::size_t n,
                    cudaStream_t stream) {
  if (n == 0) return;
  require_aligned(reinterpret_cast<std::uintptr_t>(x), reinterpret_cast<std::uintptr_t>(y),
                  reinterpret_cast<std::uintptr_t>(out));
  ::saxpy<<<static_cast<unsigned>(launch.blocks), static_cast<unsigned>(launch.threads), 0, stream>>>(a, x, y, out, static_cast<unsigned long long>(n));
  CUDA_CHECK_LAUNCH("saxpy (nvcc, <<<>>>)");
}

course::LaunchShape launch_runtime_one_pass(int block_size, float a, const float* x, const float* y, float* out,
                                            std::size_t n, cudaStream_t stream) {
  if (n == 0) return {};
  const OnePassSplit split = one_pass_split(reinterpret_cast<std::uintptr_t>(x), reinterpret_cast<std::uintptr_t>(y),
                                            reinterpret_cast<std::uintptr_t>(out), n, block_size);
  ::saxpy_one_pass<<<static_cast<unsigned>(split.launch.blocks), static_cast<unsigned>(block_size), 0, stream>>>(
      a, x, y, out, static_cast<unsigned long long>(n), split.head, split.vectors);
  CUDA_CHECK_LAUNCH("saxpy_one_pass (nvcc, <<<>>>)");
  return split.launch;
}

}  // namespace driver_saxpy
