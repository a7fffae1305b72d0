// Lesson 01, step 14 (part two, softmax): the online softmax, the max and the sum in one pass.
//
// Teaches: the sum of exp(x - m) seems to need m first, hence step 13's separate pass for the
// max. It does not: keep a running max m and a running sum s of exp(x - m). When a larger value
// v arrives, every term summed so far was shifted by the old m, so the sum is RESCALED:
// s = s * exp(m - v) + 1, m = v (Milakov and Gimelshein, "Online normalizer calculation for
// softmax", 2018; the same idea is inside FlashAttention). Two partial results (m1, s1) and
// (m2, s2) combine the same way: m = max(m1, m2), s = s1 exp(m1 - m) + s2 exp(m2 - m), so the
// pairs reduce like step 12's floats: per thread, per warp with shuffles, per block, and the
// last block combines the blocks. Then step 13's last pass writes y. x is read twice and y
// written once: 12 bytes per element instead of 16. Changed from step 13: passes 1 and 2 fused.
#include <cuda_runtime.h>

#include <cmath>

#include "course/check.hpp"
#include "kernels/block_reduce.cuh"
#include "kernels/softmax_normalize.cuh"
#include "reduce.hpp"

namespace vector_exp {

namespace {

using reduce_device::last_block_to_finish;

// [docs:online]
// A running max and the sum of exp(x - max) over the values seen so far. Empty: (-inf, 0).
struct Online {
  float m = -INFINITY, s = 0.0f;
  __device__ void operator()(float v) {
    if (v > m) {
      s = s * expf(m - v) + 1.0f;  // rescale what was summed under the old max; exp(v - v) = 1
      m = v;
    } else {
      s += expf(v - m);
    }
  }
  __device__ void operator()(float4 v) { (*this)(v.x), (*this)(v.y), (*this)(v.z), (*this)(v.w); }
};

__device__ Online combine(Online a, Online b) {
  if (b.m == -INFINITY) return a;  // an empty side (a thread with no elements) changes nothing
  if (a.m == -INFINITY) return b;
  const float m = fmaxf(a.m, b.m);
  return {m, a.s * expf(a.m - m) + b.s * expf(b.m - m)};
}
// [docs:end online]

__device__ Online warp_combine(Online v) {
  for (int offset = 16; offset > 0; offset /= 2) {
    const Online other{__shfl_down_sync(0xffffffffu, v.m, offset), __shfl_down_sync(0xffffffffu, v.s, offset)};
    v = combine(v, other);
  }
  return v;
}

// block_reduce for pairs (thread 0 returns the block's pair); blockDim.x a multiple of 32.
__device__ Online block_combine(Online v) {
  __shared__ float warp_m[32], warp_s[32];
  const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  __syncthreads();
  v = warp_combine(v);
  if (lane == 0) warp_m[warp] = v.m, warp_s[warp] = v.s;
  __syncthreads();
  if (warp == 0) {
    v = lane < blockDim.x / 32 ? Online{warp_m[lane], warp_s[lane]} : Online{};
    v = warp_combine(v);
  }
  return v;
}

// [docs:kernel]
// Pass 1: scalars[0] = m, scalars[1] = S, in one launch; partials holds (m, s) per block.
template <int Ilp>
__global__ void online_max_sum(const float* x, std::size_t n, float* partials, unsigned* counter, float* scalars) {
  Online mine;
  reduce_device::visit_vectorized<Ilp>(x, n, mine);
  Online v = block_combine(mine);
  if (threadIdx.x == 0) partials[2 * blockIdx.x] = v.m, partials[2 * blockIdx.x + 1] = v.s;
  if (!last_block_to_finish(counter)) return;
  v = Online{};
  for (unsigned b = threadIdx.x; b < gridDim.x; b += blockDim.x) {
    v = combine(v, Online{__ldcg(partials + 2 * b), __ldcg(partials + 2 * b + 1)});
  }
  v = block_combine(v);
  if (threadIdx.x == 0) scalars[0] = v.m, scalars[1] = v.s;
}
// [docs:end kernel]

template <int Ilp>
ReduceShape launch(const float* x, std::size_t n, float* y, const ReduceWorkspace& work, const LaunchConfig& config,
                   cudaStream_t stream) {
  const int threads = whole_warps(config.block_size);
  const auto kernel = online_max_sum<Ilp>;
  const long long blocks = reduction_grid(reinterpret_cast<const void*>(kernel), n, threads, 4 * Ilp, config.grid_size);
  kernel<<<static_cast<unsigned>(blocks), threads, 0, stream>>>(x, n, work.partials, work.counter, work.scalars);
  CUDA_CHECK_LAUNCH("online_max_sum");                                                // pass 1: m and S
  reduce_device::launch_softmax_normalize<Ilp>(x, n, y, work.scalars, threads, stream);   // pass 2: y
  // One thread's chain of rescaled additions, then the trees.
  const double per_thread = std::ceil(static_cast<double>(n) / (static_cast<double>(blocks) * threads)) + 4;
  return {{blocks, threads}, grid_sum_depth(per_thread, threads, blocks, threads)};
}

}  // namespace

ReduceShape launch_softmax_online(const float* x, std::size_t n, float* y, const ReduceWorkspace& work,
                                  const LaunchConfig& config, cudaStream_t stream) {
  if (n == 0) return {};
  switch (config.ilp) {
    case 1: return launch<1>(x, n, y, work, config, stream);
    case 2: return launch<2>(x, n, y, work, config, stream);
    case 8: return launch<8>(x, n, y, work, config, stream);
    default: return launch<4>(x, n, y, work, config, stream);
  }
}

}  // namespace vector_exp
