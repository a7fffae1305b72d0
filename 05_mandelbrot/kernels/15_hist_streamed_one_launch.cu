// Lesson 05, histogram step 9: hist_streamed_one_launch, step 8 (hist_streamed_lean) in one
// launch: the kernel clears the global histogram itself, and nothing waits for the clearing.
//
// Teaches: what is left of a 0.028 ms kernel once it reads at the memory's pace is what it does
// before its first load and after its last, where nothing hides it. Steps 5 and 8 run behind a
// cudaMemsetAsync (its own small launch, which the kernel starts after: about 1.4 microseconds
// in a bare timing loop). What changed from step 8:
//  - no memset: the first block to start (ticket 0 from atomicInc, step 7's way) zeroes the
//    global bins and raises a flag holding the launch's number; every other block needs the
//    zeros only for its merge at the end. Nobody waits at the start: thread 0 asks for the
//    ticket and reads the answer after its first round of counts; thread 0 of the first block
//    then zeroes (16-byte stores, then the flag as a release store), and every other thread 0
//    reads the flag after its fourth round (a relaxed load, checked only at the merge, with a
//    fence after it as the acquire). A block waits only for a block that has started, so the
//    waiting always ends. With more bins than shared memory (counts added to the global bins
//    while counting) the zeros are waited for before counting, as step 7 does.
//  - the first four loads go out before the private copy is cleared, and the zeroing comes
//    after the next round's loads are out: its release store waits for the zeros to land, and
//    that wait overlaps the loads' round trip instead of delaying them.
// The counter and the flag are __device__ variables of this file: two launches of this kernel at
// the same time (two streams) would share them, which the lesson never does.
#include <algorithm>
#include <cstdint>

#include <cuda/atomic>

#include "course/check.hpp"
#include "histogram.hpp"

namespace mandelbrot::histogram {

namespace {

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

// [docs:hist_streamed_one_launch]
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
// [docs:end hist_streamed_one_launch]

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

}  // namespace

void launch_hist_streamed_one_launch(const HistogramArgs& args, cudaStream_t stream) {
  static unsigned int launches = 0;   // numbers the launches: the flag's value for this one
  if (++launches == 0) launches = 1;  // 0 is the flag's value before any launch
  const auto in_shared = static_cast<std::uint32_t>(std::min(args.num_bins, kSharedBins));
  const bool aligned = reinterpret_cast<std::uintptr_t>(args.counts) % sizeof(uint4) == 0;
  // One block per SM at most (fewer for a small input: at least one 16-byte load per thread). With
  // no counts the one block still zeroes the histogram.
  const std::size_t needed = (args.n / 4 + kThreads) / kThreads;
  const auto blocks = static_cast<unsigned>(std::clamp<std::size_t>(needed, 1, static_cast<std::size_t>(current_sm_count())));
  // 48 KB of bins plus the block's ticket pass the 48 KB a launch may ask for without opting in:
  // ask once for the whole of the bins (the attribute stays with the kernel).
  static const bool opted_in = [] {
    CUDA_CHECK(cudaFuncSetAttribute(hist_streamed_one_launch, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    static_cast<int>(kSharedBins * sizeof(std::uint32_t))));
    return true;
  }();
  (void)opted_in;
  hist_streamed_one_launch<<<blocks, kThreads, in_shared * sizeof(std::uint32_t), stream>>>(
      args.counts, args.n, args.bins, static_cast<std::uint32_t>(args.num_bins), in_shared, aligned, launches);
  CUDA_CHECK_LAUNCH("hist_streamed_one_launch");
}

}  // namespace mandelbrot::histogram
