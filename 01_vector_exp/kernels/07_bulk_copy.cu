// Lesson 01, step 7: the copy unit fetches the block's tile and writes it back (sm_90's TMA).
//
// Teaches what closes the last percent to the library: one_pass (step 5) moves every byte
// through registers, one load and one store instruction per float4 per thread, each tracked by
// the load/store unit. On compute capability 9.0 and newer one thread can hand a whole tile to
// the SM's copy unit instead (`cp.async.bulk`, common's course/bulk_copy.cuh): the bytes land in
// shared memory and an mbarrier counts them; the threads compute exp in place, in shared
// memory; then one thread hands the finished tile back, and it leaves the SM as whole lines.
// CUB's transform fetches the same way on sm_90 (its "ublkcp" algorithm) but stores from
// registers; writing back by the copy unit is what puts this step ahead of it.
//
// The tile size is --tile floats per block (default 1,024 = 4 KiB). Measured on the H100 with
// 256 threads (8 resident blocks per SM, so 32 KiB per SM in flight): 4 KiB tiles beat 2, 3,
// 6 and 16 KiB ones; the shared tile starts on a 128-byte line, as the copy unit likes it.
//
// The row is skipped on GPUs older than 9.0 (.min_cc in the registry). Built without sm_90 code
// (for example only for sm_80 and run on a Hopper), the kernel loads and stores through
// registers instead, as one_pass does: the result is the same, the row's speed one_pass's.
//
// What changed from step 5: the tile goes through shared memory by the copy unit, --tile floats
// per block, instead of through registers, --ilp float4s per thread; the scalar ends
// (kernels/scalar_ends.cuh) and the fallback for unalignable pointers (step 3) are step 5's.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <stdexcept>

#include "course/bulk_copy.cuh"
#include "course/check.hpp"
#include "kernels/scalar_ends.cuh"
#include "vector_exp.hpp"

namespace vector_exp {

namespace {

__device__ __forceinline__ float4 exp4(float4 v) { return make_float4(expf(v.x), expf(v.y), expf(v.z), expf(v.w)); }

// [docs:kernel]
__global__ void exp_bulk_copy(const float* __restrict__ x, float* __restrict__ y, std::size_t head,
                              std::size_t vectors, std::size_t n, unsigned tile_vectors) {
  extern __shared__ __align__(128) float4 tile[];  // this block's --tile floats: x, then y in place
  __shared__ cuda::std::uint64_t arrived;           // the mbarrier that counts the tile's bytes
  const float4* x4 = reinterpret_cast<const float4*>(x + head);
  float4* y4 = reinterpret_cast<float4*>(y + head);
  const std::size_t first = static_cast<std::size_t>(blockIdx.x) * tile_vectors;
  const std::size_t left = first < vectors ? vectors - first : 0;
  const unsigned count = static_cast<unsigned>(left < tile_vectors ? left : tile_vectors);
  if (count > 0) {  // the same for every thread of the block
#if __CUDA_ARCH__ >= 900
    if (threadIdx.x == 0) course::bulk::start<1>(&arrived, {{tile, x4 + first, count * 16u}});
    __syncthreads();  // nobody waits on the barrier before thread 0 has initialised it
    course::bulk::wait(&arrived);
    for (unsigned i = threadIdx.x; i < count; i += blockDim.x) tile[i] = exp4(tile[i]);  // in place
    course::bulk::writes_visible_to_copy_unit();
    __syncthreads();  // the whole tile is computed
    if (threadIdx.x == 0) course::bulk::store(y4 + first, tile, count * 16u);
#else
    for (unsigned i = threadIdx.x; i < count; i += blockDim.x) y4[first + i] = exp4(x4[first + i]);
#endif
  }
  detail::exp_head_and_tail(x, y, head, vectors, n);  // block 0: the scalar ends
}
// [docs:end kernel]

}  // namespace

course::LaunchShape launch_bulk_copy(const float* x, float* y, std::size_t n, const LaunchConfig& config,
                                     cudaStream_t stream) {
  if (n == 0) return {};
  if (config.tile < 4 || config.tile % 4 != 0 || config.tile > 16384) {
    throw std::invalid_argument("bulk_copy: --tile must be a multiple of 4 from 4 to 16384");
  }
  const unsigned tile_vectors = static_cast<unsigned>(config.tile / 4);
  const auto grid = course::float4_split(n, tile_vectors, config.block_size, "bulk_copy", x, y);
  if (!grid) return launch_grid_stride_ilp(x, y, n, config, stream);  // x and y cannot both be aligned: step 3
  const auto [head, vectors, blocks] = *grid;
  // The tile: up to 16,384 floats = 64 KiB; above 48 KiB of dynamic shared memory a kernel must
  // opt in (once per kernel is enough; cheap).
  const int shared_bytes = config.tile * static_cast<int>(sizeof(float));
  if (shared_bytes > 48 * 1024) {
    CUDA_CHECK(cudaFuncSetAttribute(exp_bulk_copy, cudaFuncAttributeMaxDynamicSharedMemorySize, shared_bytes));
  }
  exp_bulk_copy<<<static_cast<unsigned>(blocks), config.block_size, shared_bytes, stream>>>(x, y, head, vectors, n,
                                                                                           tile_vectors);
  CUDA_CHECK_LAUNCH("exp_bulk_copy");
  return {static_cast<long long>(blocks), config.block_size};
}

}  // namespace vector_exp
