// Lesson 01, step 8 (part two, reductions): atomicAdd per element into one global value.
//
// Teaches: a reduction turns n values into one, so threads must combine results, and the most
// direct way is an atomic read-modify-write on one address: atomicAdd(result, x[i]) is
// indivisible, so no addition is lost. It is correct and it is slow: every atomic on the same
// address is serialised in the L2 cache, one after the other, so the GPU's thousands of threads
// queue at one place. And the ORDER of the additions is whichever order the atomics arrive in,
// which changes from run to run: float addition is not associative, so the sum's last bits
// change too (the tests measure by how much). Its error bound is the recursive sum's,
// gamma(n - 1) sum |x|, since any element may be added to a long running total.
// A max has no float atomicMax; the usual trick is below: for floats of one sign the bit
// patterns order like the numbers (as int for x >= 0, reversed as unsigned for x < 0).
//
// What changed from part one (steps 1 to 7): the output is one value instead of n, so threads
// must combine their results; the loop is step 2's grid-stride loop.
#include <cuda_runtime.h>

#include <cmath>

#include "course/check.hpp"
#include "kernels/block_reduce.cuh"
#include "reduce.hpp"

namespace vector_exp {

namespace {

// [docs:kernel]
__global__ void sum_atomic(const float* x, std::size_t n, float* result) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(result, x[i]);
}
// [docs:end kernel]

__device__ void atomic_max_float(float* address, float v) {
  if (!signbit(v)) {
    atomicMax(reinterpret_cast<int*>(address), __float_as_int(v));
  } else {
    atomicMin(reinterpret_cast<unsigned*>(address), __float_as_uint(v));
  }
}

__global__ void max_atomic(const float* x, std::size_t n, float* result) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) atomic_max_float(result, x[i]);
}

}  // namespace

ReduceShape launch_reduce_atomic(const float* x, std::size_t n, float* result, Reduction op,
                                 const ReduceWorkspace& /*work*/, const LaunchConfig& config, cudaStream_t stream) {
  if (n == 0) return {};
  // The starting value: 0 for a sum; for a max, all bits set (a NaN that is the largest unsigned
  // and, as int, -1: the first x of either sign replaces it, and then the numbers compete).
  CUDA_CHECK(cudaMemsetAsync(result, op == Reduction::sum ? 0 : 0xFF, sizeof(float), stream));
  const int threads = config.block_size;
  const auto blocks = static_cast<long long>(course::blocks_to_cover(n, threads));
  if (op == Reduction::sum) {
    sum_atomic<<<static_cast<unsigned>(blocks), threads, 0, stream>>>(x, n, result);
  } else {
    max_atomic<<<static_cast<unsigned>(blocks), threads, 0, stream>>>(x, n, result);
  }
  CUDA_CHECK_LAUNCH("reduce_atomic");
  return {{blocks, threads}, static_cast<double>(n - 1)};
}

}  // namespace vector_exp
