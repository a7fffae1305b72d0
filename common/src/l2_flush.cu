// The L2 flush between timed repetitions: read a scratch buffer twice the cache's size.
//
// Teaches: to time a kernel from DRAM, whatever the last run left in L2 must be gone, and the
// flush itself must leave nothing for the timed kernel to pay for. The obvious flush, a
// cudaMemset of a large buffer, leaves L2 full of dirty lines (L2 is a write-back cache): the
// next kernel must write up to 50 MiB back to DRAM on an H100 before it can use that space,
// which is about 17 microseconds of someone else's traffic charged to it (a fifth of a 256 MiB
// sum's time). Reading the buffer instead fills L2 with clean lines that are simply dropped,
// and the previous run's dirty lines are written back during the flush, outside the timing.
#include <cuda_runtime.h>

#include <cstdint>

#include "course/check.hpp"
#include "course/launch.hpp"
#include "course/timing.hpp"

namespace course {

namespace {

constexpr int kThreads = 256;

std::size_t current_l2_bytes() {
  int device = 0, l2 = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device));
  return static_cast<std::size_t>(l2);
}

// Every 16-byte word of the scratch is loaded once (through L2, which keeps the line). The
// folded value is compared with one the host knows cannot occur (the scratch holds zeros), so
// the compiler must keep every load, and nothing is written.
__global__ void read_through_l2(const uint4* scratch, std::size_t words, unsigned never, unsigned* sink) {
  unsigned folded = 0;
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < words; i += stride) {
    const uint4 v = scratch[i];
    folded ^= v.x ^ v.y ^ v.z ^ v.w;
  }
  if (folded == never) *sink = folded;
}

}  // namespace

L2Flusher::L2Flusher() : scratch_(2 * current_l2_bytes(), "L2 flush scratch"), sink_(1, "L2 flush sink") {
  if (scratch_.bytes() == 0) return;
  blocks_ = static_cast<unsigned>(resident_blocks(reinterpret_cast<const void*>(read_through_l2), kThreads));
  CUDA_CHECK(cudaMemset(scratch_.data(), 0, scratch_.bytes()));  // zeros: the fold is 0, never 1
  CUDA_CHECK(cudaDeviceSynchronize());
}

void L2Flusher::flush(cudaStream_t stream) const {
  if (scratch_.bytes() == 0) return;
  const std::size_t words = scratch_.bytes() / sizeof(uint4);
  read_through_l2<<<blocks_, kThreads, 0, stream>>>(reinterpret_cast<const uint4*>(scratch_.data()), words, 1u,
                                                    sink_.data());
  CUDA_CHECK_LAUNCH("read_through_l2 (the L2 flush)");
}

}  // namespace course
