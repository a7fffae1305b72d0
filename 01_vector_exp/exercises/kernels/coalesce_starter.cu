// Exercise "coalesce" (make it fast), the starter: y = exp(x), correct, and slow.
//
// Each thread takes a run of kRun neighbouring elements and walks along it. That reads like
// good CPU code (each core streams through its own part of the array), but on a GPU the 32
// threads of a warp execute each load together: at every step they ask for 32 elements that
// lie kRun * 4 = 256 bytes apart, 32 separate memory sectors for 128 useful bytes, and the same
// again for the stores. The memory system moves far more than the kernel uses.
//
// Goal: at least 70% of the device copy (the d2d_copy ceiling the same run measures), as
//   ./scripts/check_exercise.sh 01 coalesce
// reports. Keep the launcher's name and signature and keep expf (the check verifies every
// element, to the 2 ulp expf promises). Hints: ./scripts/check_exercise.sh 01 coalesce --hint
#include <cuda_runtime.h>

#include "course/check.hpp"
#include "course/errors.hpp"
#include "vector_exp.hpp"

namespace vector_exp {

namespace {

constexpr std::size_t kRun = 64;  // elements per thread, one after another

__global__ void exp_coalesce_starter(const float* x, float* y, std::size_t n) {
  const std::size_t thread = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::size_t first = thread * kRun;
  const std::size_t last = first + kRun < n ? first + kRun : n;
  for (std::size_t i = first; i < last; ++i) y[i] = expf(x[i]);
}

}  // namespace

course::LaunchShape launch_exercise_coalesce(const float* x, float* y, std::size_t n, const LaunchConfig& config,
                                             cudaStream_t stream) {
  if (n == 0) return {};
  const std::size_t block = static_cast<std::size_t>(config.block_size);
  const std::size_t threads = (n + kRun - 1) / kRun;
  const std::size_t blocks = (threads + block - 1) / block;
  if (blocks > 2147483647u) throw course::UsageError("exercise_coalesce: too many elements for one grid");
  exp_coalesce_starter<<<static_cast<unsigned>(blocks), config.block_size, 0, stream>>>(x, y, n);
  CUDA_CHECK_LAUNCH("exp_coalesce_starter");
  return {static_cast<long long>(blocks), config.block_size};
}

}  // namespace vector_exp
