// Microbenchmark, bare timing loop (histmerge2.cu's rows plus the lesson's steps 5, 8 and 9 pasted in, and two step 9 variants): what a privatised histogram of 64 MiB of Mandelbrot escape counts spends beyond
// a plain read: the counting, and the merge of 132 private copies by global atomics. Not course code.
#include <cstdio>
#include <cstdint>
#include <vector>
#include <algorithm>
#include <cuda_runtime.h>
#include <cuda/atomic>
#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("%s: %s\n", #x, cudaGetErrorString(e)); return 1; } } while (0)

__global__ void mandel(uint32_t* out, int w, int h, int iters) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  float cr = -2.0f + 3.0f * x / w, ci = -1.0f + 2.0f * y / h, zr = 0, zi = 0; int i = 0;
  while (i < iters && zr * zr + zi * zi <= 4.0f) { float t = zr * zr - zi * zi + cr; zi = 2 * zr * zi + ci; zr = t; ++i; }
  out[(size_t)y * w + x] = i;
}
__global__ void flush_read(const uint4* p, size_t n, unsigned* sink) {
  uint4 acc = {0, 0, 0, 0};
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) { uint4 v = p[i]; acc.x ^= v.x; acc.w ^= v.w; }
  if ((acc.x ^ acc.w) == 0x12345678u) *sink = 1;
}
// mode 0: plain read (sum); 1: count + merge by atomics; 2: count, private copy stored to a slot (no atomics);
// 3: count, no merge at all; 4: count + merge into 8 partial copies by atomics (copy blockIdx % 8)
template <int kMode>
__global__ void __launch_bounds__(1024, 1) hist(const uint32_t* __restrict__ counts, size_t n, uint32_t* __restrict__ bins, uint32_t nb, unsigned* sink) {
  __shared__ uint32_t sb[1024];
  for (uint32_t b = threadIdx.x; b < nb; b += blockDim.x) sb[b] = 0;
  __syncthreads();
  const size_t t = blockIdx.x * (size_t)blockDim.x + threadIdx.x, s = (size_t)gridDim.x * blockDim.x, quads = n / 4;
  const uint4* c4 = reinterpret_cast<const uint4*>(counts);
  unsigned acc = 0;
  for (size_t q = t; q < quads; q += 4 * s) {
    uint4 c[4] = {};
#pragma unroll
    for (int k = 0; k < 4; ++k) if (q + k * s < quads) c[k] = c4[q + k * s];
#pragma unroll
    for (int k = 0; k < 4; ++k) if (q + k * s < quads) {
      if (kMode == 0) acc += c[k].x + c[k].y + c[k].z + c[k].w;
      else { atomicAdd(&sb[min(c[k].x, nb - 1)], 1u); atomicAdd(&sb[min(c[k].y, nb - 1)], 1u); atomicAdd(&sb[min(c[k].z, nb - 1)], 1u); atomicAdd(&sb[min(c[k].w, nb - 1)], 1u); }
    }
  }
  if (kMode == 0) { if (acc == 0x12345678u) *sink = acc; return; }
  __syncthreads();
  for (uint32_t b = threadIdx.x; b < nb; b += blockDim.x) {
    const uint32_t v = sb[b];
    if (kMode == 1) { if (v) atomicAdd(&bins[b], v); }
    if (kMode == 2) bins[(size_t)blockIdx.x * nb + b] = v;
    if (kMode == 3) { if (v == 0x12345678u) *sink = v; }
    if (kMode == 4) { if (v) atomicAdd(&bins[(size_t)(blockIdx.x % 8) * nb + b], v); }
  }
}
namespace lesson {
constexpr int kThreads = 1024;
constexpr int kLoadsInFlight = 4;  // 16-byte loads each thread issues before it counts them

// One count into the block's histogram (shared memory), or the global one beyond it (step 2's).
__device__ __forceinline__ void count_one(uint32_t c, uint32_t* shared_bins, uint32_t in_shared,
                                          uint32_t* bins, uint32_t num_bins) {
  if (c < in_shared) {
    atomicAdd(&shared_bins[c], 1u);
  } else if (c < num_bins) {
    atomicAdd(&bins[c], 1u);
  }
}

__device__ __forceinline__ void count_four(const uint4& c, uint32_t* shared_bins, uint32_t in_shared,
                                           uint32_t* bins, uint32_t num_bins) {
  count_one(c.x, shared_bins, in_shared, bins, num_bins);
  count_one(c.y, shared_bins, in_shared, bins, num_bins);
  count_one(c.z, shared_bins, in_shared, bins, num_bins);
  count_one(c.w, shared_bins, in_shared, bins, num_bins);
}

__global__ void __launch_bounds__(kThreads, 1)
    hist_private_streamed(const uint32_t* __restrict__ counts, size_t n, uint32_t* __restrict__ bins,
                          uint32_t num_bins, uint32_t in_shared, bool aligned) {
  extern __shared__ uint32_t shared_bins[];  // in_shared bins, this block's private copy
  for (uint32_t b = threadIdx.x; b < in_shared; b += blockDim.x) shared_bins[b] = 0;
  __syncthreads();

  const size_t thread = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
  const size_t quads = aligned ? n / 4 : 0;  // four counts per 16-byte load
  const auto* counts4 = reinterpret_cast<const uint4*>(counts);
  // Four loads issued back to back (independent addresses, one grid stride apart: every load of
  // the warp still reads 512 consecutive bytes), then the sixteen counts. Near the end some of
  // the four are past the last quad: those are neither loaded nor counted.
  for (size_t q = thread; q < quads; q += kLoadsInFlight * stride) {
    uint4 c[kLoadsInFlight] = {};
#pragma unroll
    for (int k = 0; k < kLoadsInFlight; ++k) {
      if (q + k * stride < quads) c[k] = counts4[q + k * stride];
    }
#pragma unroll
    for (int k = 0; k < kLoadsInFlight; ++k) {
      if (q + k * stride < quads) count_four(c[k], shared_bins, in_shared, bins, num_bins);
    }
  }
  for (size_t i = 4 * quads + thread; i < n; i += stride) {  // the last n % 4 (all of them if unaligned)
    count_one(counts[i], shared_bins, in_shared, bins, num_bins);
  }
  __syncthreads();  // every thread of the block has counted

  for (uint32_t b = threadIdx.x; b < in_shared; b += blockDim.x) {  // the merge: one copy per SM
    const uint32_t v = shared_bins[b];
    if (v != 0) atomicAdd(&bins[b], v);
  }
}
}  // namespace lesson

namespace step8 {
constexpr int kThreads = 1024;
constexpr int kLoadsInFlight = 4;  // 16-byte loads each thread issues before it counts them

// One count into the block's histogram (shared memory), or the global one beyond it (step 2's).
__device__ __forceinline__ void count_one(std::uint32_t c, std::uint32_t* shared_bins, std::uint32_t in_shared,
                                          std::uint32_t* bins, std::uint32_t num_bins) {
  if (c < in_shared) {
    atomicAdd(&shared_bins[c], 1u);
  } else if (c < num_bins) {
    atomicAdd(&bins[c], 1u);
  }
}

__device__ __forceinline__ void count_four(const uint4& c, std::uint32_t* shared_bins, std::uint32_t in_shared,
                                           std::uint32_t* bins, std::uint32_t num_bins) {
  if (max(max(c.x, c.y), max(c.z, c.w)) < in_shared) {
    atomicAdd(&shared_bins[c.x], 1u);
    atomicAdd(&shared_bins[c.y], 1u);
    atomicAdd(&shared_bins[c.z], 1u);
    atomicAdd(&shared_bins[c.w], 1u);
  } else {
    count_one(c.x, shared_bins, in_shared, bins, num_bins);
    count_one(c.y, shared_bins, in_shared, bins, num_bins);
    count_one(c.z, shared_bins, in_shared, bins, num_bins);
    count_one(c.w, shared_bins, in_shared, bins, num_bins);
  }
}

__global__ void __launch_bounds__(kThreads, 1)
    hist_streamed_lean(const std::uint32_t* __restrict__ counts, std::size_t n, std::uint32_t* __restrict__ bins,
                          std::uint32_t num_bins, std::uint32_t in_shared, bool aligned) {
  extern __shared__ std::uint32_t shared_bins[];  // in_shared bins, this block's private copy
  for (std::uint32_t b = threadIdx.x; b < in_shared; b += blockDim.x) shared_bins[b] = 0;
  __syncthreads();

  const std::size_t thread = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  const std::size_t quads = aligned ? n / 4 : 0;  // four counts per 16-byte load
  const auto* counts4 = reinterpret_cast<const uint4*>(counts);
  // Four loads issued back to back (independent addresses, one grid stride apart: every load of
  // the warp still reads 512 consecutive bytes), then the sixteen counts. Near the end some of
  // the four are past the last quad: those are neither loaded nor counted.
  for (std::size_t q = thread; q < quads; q += kLoadsInFlight * stride) {
    uint4 c[kLoadsInFlight] = {};
#pragma unroll
    for (int k = 0; k < kLoadsInFlight; ++k) {
      if (q + k * stride < quads) c[k] = counts4[q + k * stride];
    }
#pragma unroll
    for (int k = 0; k < kLoadsInFlight; ++k) {
      if (q + k * stride < quads) count_four(c[k], shared_bins, in_shared, bins, num_bins);
    }
  }
  for (std::size_t i = 4 * quads + thread; i < n; i += stride) {  // the last n % 4 (all of them if unaligned)
    count_one(counts[i], shared_bins, in_shared, bins, num_bins);
  }
  __syncthreads();  // every thread of the block has counted

  for (std::uint32_t b = threadIdx.x; b < in_shared; b += blockDim.x) {  // the merge: one copy per SM
    const std::uint32_t v = shared_bins[b];
    if (v != 0) atomicAdd(&bins[b], v);
  }
}

}  // namespace step8
namespace step9 {
__device__ unsigned int next_ticket = 0;   // the blocks' tickets; back to 0 after each launch
__device__ unsigned int zeroed_launch = 0;  // the number of the launch whose histogram is zeroed

__device__ __forceinline__ unsigned int load_acquire(const unsigned int* flag) {
  return cuda::atomic_ref<const unsigned int, cuda::thread_scope_device>(*flag).load(cuda::memory_order_acquire);
}
__device__ __forceinline__ unsigned int load_relaxed(const unsigned int* flag) {
  return cuda::atomic_ref<const unsigned int, cuda::thread_scope_device>(*flag).load(cuda::memory_order_relaxed);
}
__device__ __forceinline__ void store_release(unsigned int* flag, unsigned int value) {
  cuda::atomic_ref<unsigned int, cuda::thread_scope_device>(*flag).store(value, cuda::memory_order_release);
}

constexpr int kThreads = 1024;
constexpr int kLoadsInFlight = 4;  // 16-byte loads each thread issues before it counts them
constexpr int kFlagRound = 4;      // the round of loads after which thread 0 reads the flag

// One count into the block's histogram (shared memory), or the global one beyond it (step 2's).
__device__ __forceinline__ void count_one(std::uint32_t c, std::uint32_t* shared_bins, std::uint32_t in_shared,
                                          std::uint32_t* bins, std::uint32_t num_bins) {
  if (c < in_shared) {
    atomicAdd(&shared_bins[c], 1u);
  } else if (c < num_bins) {
    atomicAdd(&bins[c], 1u);
  }
}

// Four counts: one test for the four (their largest) instead of two per count, then four
// shared-memory atomics with nothing between them. Only a count past the block's copy takes
// step 5's way.
__device__ __forceinline__ void count_four(const uint4& c, std::uint32_t* shared_bins, std::uint32_t in_shared,
                                           std::uint32_t* bins, std::uint32_t num_bins) {
  if (max(max(c.x, c.y), max(c.z, c.w)) < in_shared) {
    atomicAdd(&shared_bins[c.x], 1u);
    atomicAdd(&shared_bins[c.y], 1u);
    atomicAdd(&shared_bins[c.z], 1u);
    atomicAdd(&shared_bins[c.w], 1u);
  } else {
    count_one(c.x, shared_bins, in_shared, bins, num_bins);
    count_one(c.y, shared_bins, in_shared, bins, num_bins);
    count_one(c.z, shared_bins, in_shared, bins, num_bins);
    count_one(c.w, shared_bins, in_shared, bins, num_bins);
  }
}

// Thread 0 of the block that took ticket 0: the global bins to zero (16-byte stores where the
// bins are aligned), then the flag. The release store orders this thread's zeros before the flag.
__device__ __forceinline__ void zero_bins(std::uint32_t* bins, std::uint32_t num_bins, unsigned int launch) {
  std::uint32_t b = 0;
  if (reinterpret_cast<std::uintptr_t>(bins) % sizeof(uint4) == 0) {
    for (; b + 4 <= num_bins; b += 4) *reinterpret_cast<uint4*>(bins + b) = make_uint4(0, 0, 0, 0);
  }
  for (; b < num_bins; ++b) bins[b] = 0;
  store_release(&zeroed_launch, launch);
}

__global__ void __launch_bounds__(kThreads, 1)
    hist_streamed_one_launch(const std::uint32_t* __restrict__ counts, std::size_t n, std::uint32_t* __restrict__ bins,
                             std::uint32_t num_bins, std::uint32_t in_shared, bool aligned, unsigned int launch) {
  extern __shared__ std::uint32_t shared_bins[];  // in_shared bins, this block's private copy
  const std::size_t thread = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  const std::size_t quads = aligned ? n / 4 : 0;  // four counts per 16-byte load
  const auto* counts4 = reinterpret_cast<const uint4*>(counts);
  // Thread 0 asks for the block's ticket first and does not wait for it: the answer is needed
  // only after the first round of counts (or, with bins beyond shared memory, before counting).
  unsigned int ticket = 1;
  if (threadIdx.x == 0) ticket = atomicInc(&next_ticket, gridDim.x - 1);
  // The first four loads go out before the clearing. Near the end some of the four are past the
  // last quad: neither loaded nor counted.
  std::size_t q = thread;
  uint4 c[kLoadsInFlight] = {};
#pragma unroll
  for (int k = 0; k < kLoadsInFlight; ++k) {
    if (q + k * stride < quads) c[k] = counts4[q + k * stride];
  }
  for (std::uint32_t b = threadIdx.x; b < in_shared; b += blockDim.x) shared_bins[b] = 0;
  const bool early = num_bins > in_shared;  // high counts go to the global bins while counting
  bool zeroed = false;                      // thread 0 of the first block: the bins are zero
  if (early && threadIdx.x == 0) {
    if (ticket == 0) {
      zero_bins(bins, num_bins, launch);
      zeroed = true;
    } else {
      while (load_acquire(&zeroed_launch) != launch) {
      }
    }
  }
  __syncthreads();  // the private copy is clear (and, early, the global bins are zero)

  // Step 5's counting, its loads one batch ahead. Thread 0 of the first block zeroes the global
  // bins after its first round; every other thread 0 reads the flag after the fourth (a relaxed
  // load: nothing waits for it until the merge; 4,096 x 4,096 counts make 8 rounds).
  unsigned int seen = 0;
  int round = 0;
  while (q < quads) {
#pragma unroll
    for (int k = 0; k < kLoadsInFlight; ++k) {
      if (q + k * stride < quads) count_four(c[k], shared_bins, in_shared, bins, num_bins);
    }
    q += kLoadsInFlight * stride;
#pragma unroll
    for (int k = 0; k < kLoadsInFlight; ++k) {
      if (q + k * stride < quads) c[k] = counts4[q + k * stride];
    }
    // After the next loads are out, so that the zeroing's release (which waits for this thread's
    // stores) overlaps their round trip instead of delaying them.
    ++round;
    if (threadIdx.x == 0 && !early) {
      if (ticket == 0 && !zeroed) {
        zero_bins(bins, num_bins, launch);
        zeroed = true;
      } else if (ticket != 0 && round == kFlagRound) {
        seen = load_relaxed(&zeroed_launch);
      }
    }
  }
  for (std::size_t i = 4 * quads + thread; i < n; i += stride) {  // the last n % 4 (all of them if unaligned)
    count_one(counts[i], shared_bins, in_shared, bins, num_bins);
  }
  if (threadIdx.x == 0 && !early) {  // the zeros must come before this block's atomics
    if (ticket == 0) {
      if (!zeroed) zero_bins(bins, num_bins, launch);  // no round at all (a small input)
    } else if (seen == launch) {
      __threadfence();  // the flag seen: the fence after that read makes it an acquire
    } else {
      while (load_acquire(&zeroed_launch) != launch) {
      }
    }
  }
  __syncthreads();  // every thread of the block has counted (and the zeros are there)

  for (std::uint32_t b = threadIdx.x; b < in_shared; b += blockDim.x) {  // the merge: one copy per SM
    const std::uint32_t v = shared_bins[b];
    if (v != 0) atomicAdd(&bins[b], v);
  }
}

}  // namespace step9

namespace step9b {
__device__ unsigned int next_ticket = 0;   // the blocks' tickets; back to 0 after each launch
__device__ unsigned int zeroed_launch = 0;  // the number of the launch whose histogram is zeroed

__device__ __forceinline__ unsigned int load_acquire(const unsigned int* flag) {
  return cuda::atomic_ref<const unsigned int, cuda::thread_scope_device>(*flag).load(cuda::memory_order_acquire);
}
__device__ __forceinline__ unsigned int load_relaxed(const unsigned int* flag) {
  return cuda::atomic_ref<const unsigned int, cuda::thread_scope_device>(*flag).load(cuda::memory_order_relaxed);
}
__device__ __forceinline__ void store_release(unsigned int* flag, unsigned int value) {
  cuda::atomic_ref<unsigned int, cuda::thread_scope_device>(*flag).store(value, cuda::memory_order_release);
}

constexpr int kThreads = 1024;
constexpr int kLoadsInFlight = 4;  // 16-byte loads each thread issues before it counts them
constexpr int kFlagRound = 4;      // the round of loads after which thread 0 reads the flag

// One count into the block's histogram (shared memory), or the global one beyond it (step 2's).
__device__ __forceinline__ void count_one(std::uint32_t c, std::uint32_t* shared_bins, std::uint32_t in_shared,
                                          std::uint32_t* bins, std::uint32_t num_bins) {
  if (c < in_shared) {
    atomicAdd(&shared_bins[c], 1u);
  } else if (c < num_bins) {
    atomicAdd(&bins[c], 1u);
  }
}

// Four counts: one test for the four (their largest) instead of two per count, then four
// shared-memory atomics with nothing between them. Only a count past the block's copy takes
// step 5's way.
__device__ __forceinline__ void count_four(const uint4& c, std::uint32_t* shared_bins, std::uint32_t in_shared,
                                           std::uint32_t* bins, std::uint32_t num_bins) {
  if (max(max(c.x, c.y), max(c.z, c.w)) < in_shared) {
    atomicAdd(&shared_bins[c.x], 1u);
    atomicAdd(&shared_bins[c.y], 1u);
    atomicAdd(&shared_bins[c.z], 1u);
    atomicAdd(&shared_bins[c.w], 1u);
  } else {
    count_one(c.x, shared_bins, in_shared, bins, num_bins);
    count_one(c.y, shared_bins, in_shared, bins, num_bins);
    count_one(c.z, shared_bins, in_shared, bins, num_bins);
    count_one(c.w, shared_bins, in_shared, bins, num_bins);
  }
}

// Thread 0 of the block that took ticket 0: the global bins to zero (16-byte stores where the
// bins are aligned), then the flag. The release store orders this thread's zeros before the flag.
__device__ __forceinline__ void zero_bins(std::uint32_t* bins, std::uint32_t num_bins, unsigned int launch) {
  std::uint32_t b = 0;
  if (reinterpret_cast<std::uintptr_t>(bins) % sizeof(uint4) == 0) {
    for (; b + 4 <= num_bins; b += 4) *reinterpret_cast<uint4*>(bins + b) = make_uint4(0, 0, 0, 0);
  }
  for (; b < num_bins; ++b) bins[b] = 0;
  store_release(&zeroed_launch, launch);
}

__global__ void __launch_bounds__(kThreads, 1)
    hist_streamed_one_launch(const std::uint32_t* __restrict__ counts, std::size_t n, std::uint32_t* __restrict__ bins,
                             std::uint32_t num_bins, std::uint32_t in_shared, bool aligned, unsigned int launch) {
  extern __shared__ std::uint32_t shared_bins[];  // in_shared bins, this block's private copy
  const std::size_t thread = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  const std::size_t quads = aligned ? n / 4 : 0;  // four counts per 16-byte load
  const auto* counts4 = reinterpret_cast<const uint4*>(counts);
  // Thread 0 asks for the block's ticket first and does not wait for it: the answer is needed
  // only after the first round of counts (or, with bins beyond shared memory, before counting).
  const unsigned int ticket = blockIdx.x == 0 ? 0u : 1u;  // block 0 clears: every block resident (cooperative launch)
  // The first four loads go out before the clearing. Near the end some of the four are past the
  // last quad: neither loaded nor counted.
  std::size_t q = thread;
  uint4 c[kLoadsInFlight] = {};
#pragma unroll
  for (int k = 0; k < kLoadsInFlight; ++k) {
    if (q + k * stride < quads) c[k] = counts4[q + k * stride];
  }
  for (std::uint32_t b = threadIdx.x; b < in_shared; b += blockDim.x) shared_bins[b] = 0;
  const bool early = num_bins > in_shared;  // high counts go to the global bins while counting
  bool zeroed = false;                      // thread 0 of the first block: the bins are zero
  if (early && threadIdx.x == 0) {
    if (ticket == 0) {
      zero_bins(bins, num_bins, launch);
      zeroed = true;
    } else {
      while (load_acquire(&zeroed_launch) != launch) {
      }
    }
  }
  __syncthreads();  // the private copy is clear (and, early, the global bins are zero)

  // Step 5's counting, its loads one batch ahead. Thread 0 of the first block zeroes the global
  // bins after its first round; every other thread 0 reads the flag after the fourth (a relaxed
  // load: nothing waits for it until the merge; 4,096 x 4,096 counts make 8 rounds).
  unsigned int seen = 0;
  int round = 0;
  while (q < quads) {
#pragma unroll
    for (int k = 0; k < kLoadsInFlight; ++k) {
      if (q + k * stride < quads) count_four(c[k], shared_bins, in_shared, bins, num_bins);
    }
    q += kLoadsInFlight * stride;
#pragma unroll
    for (int k = 0; k < kLoadsInFlight; ++k) {
      if (q + k * stride < quads) c[k] = counts4[q + k * stride];
    }
    // After the next loads are out, so that the zeroing's release (which waits for this thread's
    // stores) overlaps their round trip instead of delaying them.
    ++round;
    if (threadIdx.x == 0 && !early) {
      if (ticket == 0 && !zeroed) {
        zero_bins(bins, num_bins, launch);
        zeroed = true;
      } else if (ticket != 0 && round == kFlagRound) {
        seen = load_relaxed(&zeroed_launch);
      }
    }
  }
  for (std::size_t i = 4 * quads + thread; i < n; i += stride) {  // the last n % 4 (all of them if unaligned)
    count_one(counts[i], shared_bins, in_shared, bins, num_bins);
  }
  if (threadIdx.x == 0 && !early) {  // the zeros must come before this block's atomics
    if (ticket == 0) {
      if (!zeroed) zero_bins(bins, num_bins, launch);  // no round at all (a small input)
    } else if (seen == launch) {
      __threadfence();  // the flag seen: the fence after that read makes it an acquire
    } else {
      while (load_acquire(&zeroed_launch) != launch) {
      }
    }
  }
  __syncthreads();  // every thread of the block has counted (and the zeros are there)

  for (std::uint32_t b = threadIdx.x; b < in_shared; b += blockDim.x) {  // the merge: one copy per SM
    const std::uint32_t v = shared_bins[b];
    if (v != 0) atomicAdd(&bins[b], v);
  }
}

}  // namespace step9b

namespace step9c {
__device__ unsigned int next_ticket = 0;   // the blocks' tickets; back to 0 after each launch
__device__ unsigned int zeroed_launch = 0;  // the number of the launch whose histogram is zeroed

__device__ __forceinline__ unsigned int load_acquire(const unsigned int* flag) {
  return cuda::atomic_ref<const unsigned int, cuda::thread_scope_device>(*flag).load(cuda::memory_order_acquire);
}
__device__ __forceinline__ unsigned int load_relaxed(const unsigned int* flag) {
  return cuda::atomic_ref<const unsigned int, cuda::thread_scope_device>(*flag).load(cuda::memory_order_relaxed);
}
__device__ __forceinline__ void store_release(unsigned int* flag, unsigned int value) {
  cuda::atomic_ref<unsigned int, cuda::thread_scope_device>(*flag).store(value, cuda::memory_order_release);
}

constexpr int kThreads = 1024;
constexpr int kLoadsInFlight = 4;  // 16-byte loads each thread issues before it counts them
constexpr int kFlagRound = 4;      // the round of loads after which thread 0 reads the flag

// One count into the block's histogram (shared memory), or the global one beyond it (step 2's).
__device__ __forceinline__ void count_one(std::uint32_t c, std::uint32_t* shared_bins, std::uint32_t in_shared,
                                          std::uint32_t* bins, std::uint32_t num_bins) {
  if (c < in_shared) {
    atomicAdd(&shared_bins[c], 1u);
  } else if (c < num_bins) {
    atomicAdd(&bins[c], 1u);
  }
}

// Four counts: one test for the four (their largest) instead of two per count, then four
// shared-memory atomics with nothing between them. Only a count past the block's copy takes
// step 5's way.
__device__ __forceinline__ void count_four(const uint4& c, std::uint32_t* shared_bins, std::uint32_t in_shared,
                                           std::uint32_t* bins, std::uint32_t num_bins) {
  if (max(max(c.x, c.y), max(c.z, c.w)) < in_shared) {
    atomicAdd(&shared_bins[c.x], 1u);
    atomicAdd(&shared_bins[c.y], 1u);
    atomicAdd(&shared_bins[c.z], 1u);
    atomicAdd(&shared_bins[c.w], 1u);
  } else {
    count_one(c.x, shared_bins, in_shared, bins, num_bins);
    count_one(c.y, shared_bins, in_shared, bins, num_bins);
    count_one(c.z, shared_bins, in_shared, bins, num_bins);
    count_one(c.w, shared_bins, in_shared, bins, num_bins);
  }
}

// Thread 0 of the block that took ticket 0: the global bins to zero (16-byte stores where the
// bins are aligned), then the flag. The release store orders this thread's zeros before the flag.
__device__ __forceinline__ void zero_bins(std::uint32_t* bins, std::uint32_t num_bins, unsigned int launch) {
  std::uint32_t b = 0;
  if (reinterpret_cast<std::uintptr_t>(bins) % sizeof(uint4) == 0) {
    for (; b + 4 <= num_bins; b += 4) *reinterpret_cast<uint4*>(bins + b) = make_uint4(0, 0, 0, 0);
  }
  for (; b < num_bins; ++b) bins[b] = 0;
  store_release(&zeroed_launch, launch);
}

__global__ void __launch_bounds__(kThreads, 1)
    hist_streamed_one_launch(const std::uint32_t* __restrict__ counts, std::size_t n, std::uint32_t* __restrict__ bins,
                             std::uint32_t num_bins, std::uint32_t in_shared, bool aligned, unsigned int launch) {
  extern __shared__ std::uint32_t shared_bins[];  // in_shared bins, this block's private copy
  const std::size_t thread = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  const std::size_t quads = aligned ? n / 4 : 0;  // four counts per 16-byte load
  const auto* counts4 = reinterpret_cast<const uint4*>(counts);
  // Thread 0 asks for the block's ticket first and does not wait for it: the answer is needed
  // only after the first round of counts (or, with bins beyond shared memory, before counting).
  unsigned int ticket = 1;
  if (threadIdx.x == 0) ticket = atomicInc(&next_ticket, gridDim.x - 1);
  // The first four loads go out before the clearing. Near the end some of the four are past the
  // last quad: neither loaded nor counted.
  std::size_t q = thread;
  uint4 c[kLoadsInFlight] = {};
#pragma unroll
  for (int k = 0; k < kLoadsInFlight; ++k) {
    if (q + k * stride < quads) c[k] = counts4[q + k * stride];
  }
  for (std::uint32_t b = threadIdx.x; b < in_shared; b += blockDim.x) shared_bins[b] = 0;
  const bool early = num_bins > in_shared;  // high counts go to the global bins while counting
  bool zeroed = false;                      // thread 0 of the first block: the bins are zero
  if (early && threadIdx.x == 0) {
    if (ticket == 0) {
      zero_bins(bins, num_bins, launch);
      zeroed = true;
    } else {
      while (load_acquire(&zeroed_launch) != launch) {
      }
    }
  }
  __syncthreads();  // the private copy is clear (and, early, the global bins are zero)

  // Step 5's counting, its loads one batch ahead. Thread 0 of the first block zeroes the global
  // bins after its first round; every other thread 0 reads the flag after the fourth (a relaxed
  // load: nothing waits for it until the merge; 4,096 x 4,096 counts make 8 rounds).
  unsigned int seen = 0;
  int round = 0;
  while (q < quads) {
#pragma unroll
    for (int k = 0; k < kLoadsInFlight; ++k) {
      if (q + k * stride < quads) count_four(c[k], shared_bins, in_shared, bins, num_bins);
    }
    q += kLoadsInFlight * stride;
#pragma unroll
    for (int k = 0; k < kLoadsInFlight; ++k) {
      if (q + k * stride < quads) c[k] = counts4[q + k * stride];
    }
    // After the next loads are out, so that the zeroing's release (which waits for this thread's
    // stores) overlaps their round trip instead of delaying them.
    ++round;
    if (threadIdx.x == 0 && !early) {
      if (ticket == 0 && !zeroed) {
        zero_bins(bins, num_bins, launch);
        zeroed = true;
      } else if (ticket != 0 && round == kFlagRound) {
        seen = load_relaxed(&zeroed_launch);
        __threadfence();  // the acquire now, mid-kernel: the merge need not wait for it
      }
    }
  }
  for (std::size_t i = 4 * quads + thread; i < n; i += stride) {  // the last n % 4 (all of them if unaligned)
    count_one(counts[i], shared_bins, in_shared, bins, num_bins);
  }
  if (threadIdx.x == 0 && !early) {  // the zeros must come before this block's atomics
    if (ticket == 0) {
      if (!zeroed) zero_bins(bins, num_bins, launch);  // no round at all (a small input)
    } else if (seen == launch) {
    } else {
      while (load_acquire(&zeroed_launch) != launch) {
      }
    }
  }
  __syncthreads();  // every thread of the block has counted (and the zeros are there)

  for (std::uint32_t b = threadIdx.x; b < in_shared; b += blockDim.x) {  // the merge: one copy per SM
    const std::uint32_t v = shared_bins[b];
    if (v != 0) atomicAdd(&bins[b], v);
  }
}

}  // namespace step9c

int main() {
  int sms = 0; CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  int l2 = 0; CK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0));
  const int w = 4096, h = 4096; const size_t n = (size_t)w * h; const uint32_t nb = 1001;
  uint32_t *counts, *bins; uint4* flush; unsigned* sink;
  CK(cudaMalloc(&counts, n * 4)); CK(cudaMalloc(&bins, (size_t)sms * nb * 4)); CK(cudaMalloc(&flush, 2 * (size_t)l2)); CK(cudaMalloc(&sink, 4));
  CK(cudaMemset(flush, 1, 2 * (size_t)l2));
  mandel<<<dim3(w / 32, h / 8), dim3(32, 8)>>>(counts, w, h, 1000); CK(cudaDeviceSynchronize());
  cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
  cudaStream_t st = 0;
  auto time = [&](auto&& enqueue) {
    std::vector<float> ms;
    for (int r = 0; r < 43; ++r) {
      flush_read<<<sms * 4, 512, 0, st>>>(flush, 2 * (size_t)l2 / 16, sink);
      cudaEventRecord(e0, st); enqueue(); cudaEventRecord(e1, st); cudaEventSynchronize(e1);
      float t = 0; cudaEventElapsedTime(&t, e0, e1); if (r >= 3) ms.push_back(t * 1000.0f);
    }
    std::sort(ms.begin(), ms.end()); return ms[ms.size() / 2];
  };
  uint32_t* copy_dst; CK(cudaMalloc(&copy_dst, n * 4));
  cudaStream_t created; CK(cudaStreamCreateWithFlags(&created, cudaStreamNonBlocking));
  for (int round = 0; round < 2; ++round) {
    st = round % 2 == 0 ? (cudaStream_t)0 : created;
    if (round == 2) CK(cudaMemset(flush, 0, 2 * (size_t)l2));  // rounds 2, 3: a zero-filled flush buffer
    printf("%s stream, flush buffer %s; ", st ? "non-blocking" : "legacy default", round >= 2 ? "zeros" : "0x01 bytes");
    printf("memcpy 64 MiB %7.2f us\n", time([&] { cudaMemcpyAsync(copy_dst, counts, n * 4, cudaMemcpyDeviceToDevice, st); }));
    printf("round %d, 4096 x 4096 counts (1000 iterations), 1001 bins, %d blocks of 1024; median of 40 (us), L2 flushed\n", round, sms);
    printf("  plain read (sum)                          %7.2f\n", time([&] { hist<0><<<sms, 1024, 0, st>>>(counts, n, bins, nb, sink); }));
    printf("  memset + count + atomic merge (step 5)    %7.2f\n", time([&] { cudaMemsetAsync(bins, 0, nb * 4, st); hist<1><<<sms, 1024, 0, st>>>(counts, n, bins, nb, sink); }));
    printf("  count + atomic merge, no memset           %7.2f\n", time([&] { hist<1><<<sms, 1024, 0, st>>>(counts, n, bins, nb, sink); }));
    printf("  count + private copies stored (no atomics)%7.2f\n", time([&] { hist<2><<<sms, 1024, 0, st>>>(counts, n, bins, nb, sink); }));
    printf("  count, no merge                           %7.2f\n", time([&] { hist<3><<<sms, 1024, 0, st>>>(counts, n, bins, nb, sink); }));
    printf("  lesson's step 5 kernel, memset before     %7.2f\n", time([&] { cudaMemsetAsync(bins, 0, nb * 4, st); lesson::hist_private_streamed<<<sms, 1024, nb * 4, st>>>(counts, n, bins, nb, nb, true); }));
    printf("  lesson's step 5 kernel, no memset         %7.2f\n", time([&] { lesson::hist_private_streamed<<<sms, 1024, nb * 4, st>>>(counts, n, bins, nb, nb, true); }));
    printf("  lesson's step 8 kernel, memset before     %7.2f\n", time([&] { cudaMemsetAsync(bins, 0, nb * 4, st); step8::hist_streamed_lean<<<sms, 1024, nb * 4, st>>>(counts, n, bins, nb, nb, true); }));
    printf("  lesson's step 8 kernel, no memset         %7.2f\n", time([&] { step8::hist_streamed_lean<<<sms, 1024, nb * 4, st>>>(counts, n, bins, nb, nb, true); }));
    static unsigned launches = 0;
    printf("  lesson's step 9 kernel                    %7.2f\n", time([&] { ++launches; step9::hist_streamed_one_launch<<<sms, 1024, nb * 4, st>>>(counts, n, bins, nb, nb, true, launches); }));
    static unsigned launches_b = 0;
    printf("  step 9, block 0 clears (cooperative)      %7.2f\n", time([&] { ++launches_b; const uint32_t* c0 = counts; size_t n0 = n; uint32_t* b0 = bins; uint32_t nb0 = nb, is0 = nb; bool al = true; unsigned l0 = launches_b;
      void* args[] = {&c0, &n0, &b0, &nb0, &is0, &al, &l0};
      cudaLaunchCooperativeKernel((void*)step9b::hist_streamed_one_launch, dim3(sms), dim3(1024), args, nb * 4, st); }));
    printf("  (cooperative launches: %s)\n", cudaGetErrorString(cudaGetLastError()));
    static unsigned launches_c = 0;
    printf("  step 9, the acquire fence mid-kernel      %7.2f\n", time([&] { ++launches_c; step9c::hist_streamed_one_launch<<<sms, 1024, nb * 4, st>>>(counts, n, bins, nb, nb, true, launches_c); }));
    printf("  lesson's step 9 kernel (again)            %7.2f\n", time([&] { ++launches; step9::hist_streamed_one_launch<<<sms, 1024, nb * 4, st>>>(counts, n, bins, nb, nb, true, launches); }));
    printf("  count + atomic merge into 8 copies        %7.2f\n", time([&] { hist<4><<<sms, 1024, 0, st>>>(counts, n, bins, nb, sink); }));
  }
  return 0;
}
