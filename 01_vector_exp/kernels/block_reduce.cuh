// Lesson 01, part two: the small device functions the reduction steps share once a step has
// introduced them: the two operations (sum, max), the warp's shuffle reduction (step 10), the
// block's reduction built on it, the grid's "last block to finish" (step 11) and the visit of a
// thread's elements with float4 loads in flight (step 12).
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "course/launch.hpp"
#include "reduce.hpp"

namespace vector_exp::reduce_device {

// An operation with its identity: the value a thread with nothing to add starts from.
struct Sum {
  static __device__ float identity() { return 0.0f; }
  __device__ float operator()(float a, float b) const { return a + b; }
};
struct Max {
  static __device__ float identity() { return -INFINITY; }
  __device__ float operator()(float a, float b) const { return fmaxf(a, b); }
};

// [docs:warp_reduce]
// The 32 threads of a warp combine their values without shared memory: at each step every lane
// receives the value of the lane `offset` above it (__shfl_down_sync, a register-to-register
// exchange) and combines it with its own. After offsets 16, 8, 4, 2, 1, lane 0 holds the warp's
// result (the other lanes hold partial results nobody reads). The mask says all 32 lanes take
// part, so the block must be a whole number of warps.
template <class Op>
__device__ float warp_reduce(float v, Op op) {
  for (int offset = 16; offset > 0; offset /= 2) v = op(v, __shfl_down_sync(0xffffffffu, v, offset));
  return v;
}
// [docs:end warp_reduce]

// The block: each warp reduces its values, lane 0 of each writes one result to shared memory,
// then the first warp reduces those (at most 32). Thread 0 returns the block's result. blockDim.x
// must be a multiple of 32. Safe to call twice in a row (the barrier at the start).
template <class Op>
__device__ float block_reduce(float v, Op op) {
  __shared__ float warp_results[32];
  const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  __syncthreads();  // a previous call's readers are done with warp_results
  v = warp_reduce(v, op);
  if (lane == 0) warp_results[warp] = v;
  __syncthreads();
  if (warp == 0) {
    v = lane < blockDim.x / 32 ? warp_results[lane] : Op::identity();
    v = warp_reduce(v, op);
  }
  return v;
}

// [docs:last_block]
// The grid's combine inside the same launch. Every block has written its partial result; the
// LAST block to finish reads them all. __threadfence() makes this block's partial visible to
// the whole GPU before the atomic increment announces it; the block whose ticket is
// gridDim.x - 1 knows every other block has done both, so every partial is there to read. It
// resets the counter, so the next launch starts from zero again.
__device__ inline bool last_block_to_finish(unsigned* counter) {
  __shared__ bool is_last;
  __threadfence();
  __syncthreads();  // every thread of this block has written (and fenced) what it writes
  if (threadIdx.x == 0) {
    const unsigned ticket = atomicAdd(counter, 1u);
    is_last = ticket == gridDim.x - 1;
    if (is_last) *counter = 0;  // nobody else touches it in this launch any more
  }
  __syncthreads();
  if (is_last) __threadfence();  // order the reads of the partials after the ticket
  return is_last;
}
// [docs:end last_block]

// Every element of x[0, n) this thread owns, in a fixed order: the few before the first 16-byte
// boundary, then float4 loads in a grid-stride loop, `Ilp` of them issued before any is used,
// then the last few. `visit(v)` is called with a float for the few at the ends and with a float4
// for the rest, so the order per thread (and the result) is the same on every run.
template <int Ilp, class Visit>
__device__ void visit_vectorized(const float* x, std::size_t n, Visit& visit) {
  const std::size_t misaligned = (reinterpret_cast<std::uintptr_t>(x) / sizeof(float)) % 4;
  const std::size_t head = misaligned == 0 ? 0 : (4 - misaligned < n ? 4 - misaligned : n);
  const std::size_t thread = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::size_t threads = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  if (thread < head) visit(x[thread]);
  const float4* x4 = reinterpret_cast<const float4*>(x + head);
  const std::size_t quads = (n - head) / 4;
  std::size_t q = thread;
  for (; q + (Ilp - 1) * threads < quads; q += Ilp * threads) {
    float4 v[Ilp];
#pragma unroll
    for (int k = 0; k < Ilp; ++k) v[k] = x4[q + k * threads];  // all Ilp loads in flight
#pragma unroll
    for (int k = 0; k < Ilp; ++k) {
      visit(v[k]);
    }
  }
  for (; q < quads; q += threads) {
    visit(x4[q]);
  }
  const std::size_t tail_begin = head + 4 * quads;
  if (tail_begin + thread < n) visit(x[tail_begin + thread]);
}

}  // namespace vector_exp::reduce_device

namespace vector_exp {

// --block rounded to what a block reduction needs: whole warps (32 to 1024 threads).
inline int whole_warps(int block_size) { return std::clamp((block_size + 31) / 32 * 32, 32, 1024); }

// The grid of a grid-stride reduction: --grid if given, else the resident blocks; never more than
// needed to give each thread `per_thread` elements, never more than the partials the workspace holds.
inline long long reduction_grid(const void* kernel, std::size_t n, int threads, std::size_t per_thread, int grid_flag) {
  const auto cover = static_cast<long long>((n + threads * per_thread - 1) / (threads * per_thread));
  const long long wanted = grid_flag > 0 ? grid_flag : course::resident_blocks(kernel, threads);
  return std::max(1LL, std::min({wanted, cover, kMaxPartials}));
}

}  // namespace vector_exp
