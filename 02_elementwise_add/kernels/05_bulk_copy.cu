// Lesson 02, step 5: a and b arrive in shared memory by two bulk copies (sm_90's TMA).
//
// Teaches what closes the last percent to the library (lesson 01's step 7 does the same for
// exp): add_one_pass keeps 2 x --ilp float4 loads per thread in flight through registers. On
// compute capability 9.0 and newer one thread asks the SM's copy unit for the block's tile of a
// and of b (`cp.async.bulk`, common's course/bulk_copy.cuh); an mbarrier counts the bytes as they
// land, and the threads only wait, add from shared memory and store. With --ilp 2 and 256 threads
// a block fetches 2 x 8 KiB with two instructions. CUB's transform does the same on sm_90.
//
// The row is skipped on GPUs older than 9.0 (.min_cc in the registry). Built without sm_90 code,
// the kernel stages the tiles through registers instead: the same result at one_pass's speed.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <stdexcept>

#include "course/bulk_copy.cuh"
#include "course/check.hpp"
#include "elementwise_add.hpp"
#include "kernels/one_pass_grid.cuh"

namespace elementwise_add {

namespace {

template <int kGroups>
__global__ void add_bulk_copy(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c,
                              std::size_t head, std::size_t vectors, std::size_t n) {
  extern __shared__ __align__(16) float4 staged[];  // the tile of a, then the tile of b
  __shared__ cuda::std::uint64_t arrived;            // the mbarrier that counts both tiles' bytes
  const float4* a4 = reinterpret_cast<const float4*>(a + head);
  const float4* b4 = reinterpret_cast<const float4*>(b + head);
  float4* c4 = reinterpret_cast<float4*>(c + head);
  // [docs:bulk_body]
  const std::size_t per_block = std::size_t{kGroups} * blockDim.x, first = blockIdx.x * per_block;
  const std::size_t left = first < vectors ? vectors - first : 0;
  const unsigned count = static_cast<unsigned>(left < per_block ? left : per_block);
  float4* staged_a = staged;
  float4* staged_b = staged + per_block;
  if (count > 0) {  // the same for every thread of the block
#if __CUDA_ARCH__ >= 900
    if (threadIdx.x == 0) {
      course::bulk::start<2>(&arrived, {{staged_a, a4 + first, count * 16u}, {staged_b, b4 + first, count * 16u}});
    }
    __syncthreads();  // nobody waits on the barrier before thread 0 has initialised it
    course::bulk::wait(&arrived);
#else
    for (unsigned i = threadIdx.x; i < count; i += blockDim.x) {
      staged_a[i] = a4[first + i];
      staged_b[i] = b4[first + i];
    }
    __syncthreads();
#endif
    for (int k = 0; k < kGroups; ++k) {
      const unsigned i = k * blockDim.x + threadIdx.x;
      if (i < count) {
        const float4 x = staged_a[i], y = staged_b[i];
        c4[first + i] = make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
      }
    }
  }
  // [docs:end bulk_body]
  detail::add_head_and_tail(a, b, c, head, vectors, n);  // block 0: the scalar ends
}

using BulkCopyKernel = void (*)(const float*, const float*, float*, std::size_t, std::size_t, std::size_t);

BulkCopyKernel pick(int groups) {
  switch (groups) {
    case 1: return add_bulk_copy<1>;
    case 2: return add_bulk_copy<2>;
    case 4: return add_bulk_copy<4>;
  }
  throw std::invalid_argument("add_bulk_copy: ilp must be 1, 2 or 4");
}

}  // namespace

course::LaunchShape launch_add_bulk_copy(const float* a, const float* b, float* c, std::size_t n,
                                         const LaunchConfig& config, cudaStream_t stream) {
  if (n == 0) return {};
  const auto grid = detail::one_pass_grid(a, b, c, n, config, "add_bulk_copy");
  if (!grid) return launch_add_grid_stride(a, b, c, n, config, stream);  // no head aligns all three
  const auto [head, vectors, blocks] = *grid;
  const auto kernel = pick(config.ilp);
  // The tiles of a and b: 2 x --ilp x blockDim.x float4, up to 2 x 4 x 1024 x 16 bytes = 128 KiB.
  const int shared_bytes = 2 * config.ilp * config.block_size * static_cast<int>(sizeof(float4));
  if (shared_bytes > 48 * 1024) {  // above 48 KiB of dynamic shared memory a kernel must opt in
    CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, shared_bytes));
  }
  kernel<<<static_cast<unsigned>(blocks), config.block_size, shared_bytes, stream>>>(a, b, c, head, vectors, n);
  CUDA_CHECK_LAUNCH("add_bulk_copy");
  return {static_cast<long long>(blocks), config.block_size};
}

}  // namespace elementwise_add
