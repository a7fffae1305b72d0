// Exercise "coalesce" (make it fast), a solution: the starter's work, with neighbouring threads
// on neighbouring elements.
//
// What changed from the starter: who takes which element. A block owns a tile of
// kIlp * blockDim.x neighbouring elements, and thread t takes elements t, t + blockDim.x,
// t + 2 * blockDim.x, ... of it: at every step the 32 threads of a warp read 32 neighbouring
// floats, one 128-byte line, and every byte moved is used (coalesced). Each thread issues its
// kIlp loads before its first expf, so they are all in flight together (step 3's idea). One
// thread per element with i = blockIdx.x * blockDim.x + threadIdx.x (step 1) already meets the
// goal; the loads in flight add the rest.
#include <cuda_runtime.h>

#include "course/check.hpp"
#include "course/errors.hpp"
#include "vector_exp.hpp"

namespace vector_exp {

namespace {

constexpr int kIlp = 4;  // elements per thread, a block's width apart

__global__ void exp_coalesce_solution(const float* __restrict__ x, float* __restrict__ y, std::size_t n) {
  const std::size_t base = static_cast<std::size_t>(blockIdx.x) * kIlp * blockDim.x + threadIdx.x;
  if (base + (kIlp - 1) * static_cast<std::size_t>(blockDim.x) < n) {
    float v[kIlp];
#pragma unroll
    for (int k = 0; k < kIlp; ++k) v[k] = x[base + static_cast<std::size_t>(k) * blockDim.x];
#pragma unroll
    for (int k = 0; k < kIlp; ++k) y[base + static_cast<std::size_t>(k) * blockDim.x] = expf(v[k]);
  } else {
    // The last, partial tile: each element checked.
    for (int k = 0; k < kIlp; ++k) {
      const std::size_t i = base + static_cast<std::size_t>(k) * blockDim.x;
      if (i < n) y[i] = expf(x[i]);
    }
  }
}

}  // namespace

course::LaunchShape launch_exercise_coalesce_solution(const float* x, float* y, std::size_t n,
                                                      const LaunchConfig& config, cudaStream_t stream) {
  if (n == 0) return {};
  const std::size_t tile = static_cast<std::size_t>(kIlp) * static_cast<std::size_t>(config.block_size);
  const std::size_t blocks = (n + tile - 1) / tile;
  if (blocks > 2147483647u) throw course::UsageError("exercise_coalesce_solution: too many elements for one grid");
  exp_coalesce_solution<<<static_cast<unsigned>(blocks), config.block_size, 0, stream>>>(x, y, n);
  CUDA_CHECK_LAUNCH("exp_coalesce_solution");
  return {static_cast<long long>(blocks), config.block_size};
}

}  // namespace vector_exp
