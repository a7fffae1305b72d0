// Lesson 02, step 5: the copy unit fetches the tiles of a and b and writes c back (sm_90's TMA).
//
// Teaches what closes the last percent to the library (lesson 01's step 7 does the same for
// exp): add_one_pass moves every byte through registers, 2 x --ilp float4 loads and --ilp
// stores per thread. On compute capability 9.0 and newer one thread asks the SM's copy unit for
// the block's tile of a and of b (`cp.async.bulk`, common's course/bulk_copy.cuh); an mbarrier
// counts the bytes as they land; the threads add in shared memory, into a's tile; then one
// thread hands that tile back to the copy unit, which writes c as whole lines. CUB's transform
// fetches the same way on sm_90 but stores from registers.
//
// The tile is --tile floats of a and of b per block (default 768: 2 x 3 KiB). Measured on the
// H100 with 256 threads (8 resident blocks per SM, so 48 KiB per SM in flight, the figure CUB's
// tuning names for this GPU class): 768 beat 256, 512 and 1,024 and larger tiles; each tile
// starts on a 128-byte line, as the copy unit likes it.
//
// The row is skipped on GPUs older than 9.0 (.min_cc in the registry). Built without sm_90 code,
// the kernel adds through registers instead: the same result at one_pass's speed.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <stdexcept>

#include "course/bulk_copy.cuh"
#include "course/check.hpp"
#include "elementwise_add.hpp"
#include "kernels/scalar_ends.cuh"

namespace elementwise_add {

namespace {

__device__ __forceinline__ float4 add4(float4 x, float4 y) {
  return make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
}

// float4 groups rounded up to whole 128-byte lines (8 groups): where b's tile starts.
__host__ __device__ constexpr unsigned lines_for(unsigned groups) { return (groups + 7) / 8 * 8; }

__global__ void add_bulk_copy(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c,
                              std::size_t head, std::size_t vectors, std::size_t n, unsigned tile_groups) {
  extern __shared__ __align__(128) float4 staged[];  // the tile of a (then c, in place), then the tile of b
  __shared__ cuda::std::uint64_t arrived;             // the mbarrier that counts both tiles' bytes
  const float4* a4 = reinterpret_cast<const float4*>(a + head);
  const float4* b4 = reinterpret_cast<const float4*>(b + head);
  float4* c4 = reinterpret_cast<float4*>(c + head);
  // [docs:bulk_body]
  const std::size_t first = static_cast<std::size_t>(blockIdx.x) * tile_groups;
  const std::size_t left = first < vectors ? vectors - first : 0;
  const unsigned count = static_cast<unsigned>(left < tile_groups ? left : tile_groups);
  float4* staged_a = staged;
  float4* staged_b = staged + lines_for(tile_groups);  // b's tile starts on a 128-byte line too
  if (count > 0) {  // the same for every thread of the block
#if __CUDA_ARCH__ >= 900
    if (threadIdx.x == 0) {
      course::bulk::start<2>(&arrived, {{staged_a, a4 + first, count * 16u}, {staged_b, b4 + first, count * 16u}});
    }
    __syncthreads();  // nobody waits on the barrier before thread 0 has initialised it
    course::bulk::wait(&arrived);
    for (unsigned i = threadIdx.x; i < count; i += blockDim.x) staged_a[i] = add4(staged_a[i], staged_b[i]);
    course::bulk::writes_visible_to_copy_unit();
    __syncthreads();  // the whole tile of c is in shared memory
    if (threadIdx.x == 0) course::bulk::store(c4 + first, staged_a, count * 16u);
#else
    for (unsigned i = threadIdx.x; i < count; i += blockDim.x) c4[first + i] = add4(a4[first + i], b4[first + i]);
#endif
  }
  // [docs:end bulk_body]
  detail::add_head_and_tail(a, b, c, head, vectors, n);  // block 0: the scalar ends
}

}  // namespace

course::LaunchShape launch_add_bulk_copy(const float* a, const float* b, float* c, std::size_t n,
                                         const LaunchConfig& config, cudaStream_t stream) {
  if (n == 0) return {};
  if (config.tile < 4 || config.tile % 4 != 0 || config.tile > 16384) {
    throw std::invalid_argument("add_bulk_copy: --tile must be a multiple of 4 from 4 to 16384");
  }
  const unsigned tile_groups = static_cast<unsigned>(config.tile / 4);
  const auto grid = course::float4_split(n, tile_groups, config.block_size, "add_bulk_copy", a, b, c);
  if (!grid) return launch_add_grid_stride(a, b, c, n, config, stream);  // no head aligns all three
  const auto [head, vectors, blocks] = *grid;
  // The tiles of a and b: 2 x --tile floats (each rounded up to a line), up to 128 KiB; above
  // 48 KiB of dynamic shared memory a kernel must opt in.
  const int shared_bytes = 2 * static_cast<int>(lines_for(tile_groups) * sizeof(float4));
  if (shared_bytes > 48 * 1024) {
    CUDA_CHECK(cudaFuncSetAttribute(add_bulk_copy, cudaFuncAttributeMaxDynamicSharedMemorySize, shared_bytes));
  }
  add_bulk_copy<<<static_cast<unsigned>(blocks), config.block_size, shared_bytes, stream>>>(a, b, c, head, vectors, n,
                                                                                           tile_groups);
  CUDA_CHECK_LAUNCH("add_bulk_copy");
  return {static_cast<long long>(blocks), config.block_size};
}

}  // namespace elementwise_add
