// Lesson 01, step 7: the block's tile arrives in shared memory by one bulk copy (sm_90's TMA).
//
// Teaches what closes the last percent to the library: one_pass (step 5) keeps its tile in
// flight through registers, kVectors 16-byte loads per thread, each an instruction that the
// load/store unit tracks until the data returns. On compute capability 9.0 and newer one thread
// can ask the SM's copy unit for the whole tile at once (`cp.async.bulk`, common's
// course/bulk_copy.cuh): the bytes land in shared memory, an mbarrier counts them, and the
// threads only wait, read their float4 from shared memory, compute and store. With --ilp 4 and
// 256 threads a block asks for 16 KiB in one instruction; eight resident blocks keep up to
// 128 KiB per SM in flight. CUB's transform does the same on sm_90 (its "ublkcp" algorithm).
//
// The row is skipped on GPUs older than 9.0 (.min_cc in the registry). Built without sm_90 code
// (for example only for sm_80 and run on a Hopper), the kernel loads through registers instead,
// as one_pass does: the result is the same, the row's speed is then one_pass's.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <stdexcept>

#include "course/bulk_copy.cuh"
#include "course/check.hpp"
#include "kernels/grid_stride_ilp.cuh"
#include "kernels/one_pass_grid.cuh"
#include "vector_exp.hpp"

namespace vector_exp {

namespace {

// [docs:kernel]
template <int kVectors>
__global__ void exp_bulk_copy(const float* __restrict__ x, float* __restrict__ y, std::size_t head,
                              std::size_t vectors, std::size_t n) {
  extern __shared__ __align__(16) float4 staged[];  // this block's tile of x: kVectors * blockDim.x float4
  __shared__ cuda::std::uint64_t arrived;            // the mbarrier that counts the tile's bytes
  const float4* x4 = reinterpret_cast<const float4*>(x + head);
  float4* y4 = reinterpret_cast<float4*>(y + head);
  const std::size_t first = static_cast<std::size_t>(blockIdx.x) * kVectors * blockDim.x;
  const std::size_t left = first < vectors ? vectors - first : 0, per_block = std::size_t{kVectors} * blockDim.x;
  const unsigned count = static_cast<unsigned>(left < per_block ? left : per_block);
  if (count > 0) {  // the same for every thread of the block
#if __CUDA_ARCH__ >= 900
    if (threadIdx.x == 0) course::bulk::start<1>(&arrived, {{staged, x4 + first, count * 16u}});
    __syncthreads();  // nobody waits on the barrier before thread 0 has initialised it
    course::bulk::wait(&arrived);
#else
    for (unsigned i = threadIdx.x; i < count; i += blockDim.x) staged[i] = x4[first + i];
    __syncthreads();
#endif
    for (int k = 0; k < kVectors; ++k) {
      const unsigned i = k * blockDim.x + threadIdx.x;
      if (i < count) {
        const float4 v = staged[i];
        y4[first + i] = make_float4(expf(v.x), expf(v.y), expf(v.z), expf(v.w));
      }
    }
  }
  detail::exp_head_and_tail(x, y, head, vectors, n);  // block 0: the scalar ends
}
// [docs:end kernel]

using BulkCopyKernel = void (*)(const float*, float*, std::size_t, std::size_t, std::size_t);

BulkCopyKernel pick(int vectors_per_thread) {
  switch (vectors_per_thread) {
    case 1: return exp_bulk_copy<1>;
    case 2: return exp_bulk_copy<2>;
    case 4: return exp_bulk_copy<4>;
    case 8: return exp_bulk_copy<8>;
  }
  throw std::invalid_argument("ilp must be 1, 2, 4 or 8");
}

}  // namespace

course::LaunchShape launch_bulk_copy(const float* x, float* y, std::size_t n, const LaunchConfig& config,
                                     cudaStream_t stream) {
  if (n == 0) return {};
  const auto grid = detail::one_pass_grid(x, y, n, config, "bulk_copy");
  if (!grid) return detail::launch_ilp<false>(x, y, n, config, stream);  // x and y cannot both be aligned
  const auto [head, vectors, blocks] = *grid;
  const auto kernel = pick(config.ilp);
  // A block's tile: --ilp x blockDim.x float4, up to 8 x 1024 x 16 bytes = 128 KiB.
  const int shared_bytes = config.ilp * config.block_size * static_cast<int>(sizeof(float4));
  // Above 48 KiB of dynamic shared memory a kernel must opt in (once per kernel is enough; cheap).
  if (shared_bytes > 48 * 1024) {
    CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, shared_bytes));
  }
  kernel<<<static_cast<unsigned>(blocks), config.block_size, shared_bytes, stream>>>(x, y, head, vectors, n);
  CUDA_CHECK_LAUNCH("exp_bulk_copy");
  return {static_cast<long long>(blocks), config.block_size};
}

}  // namespace vector_exp
