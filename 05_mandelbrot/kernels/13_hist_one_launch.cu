// Lesson 05, histogram step 7: hist_one_launch, step 6 without the cudaMemsetAsync before it.
//
// Teaches: a launch is not free. Every step so far clears the histogram with cudaMemsetAsync,
// a second operation in the stream before the kernel: its own small launch, and the kernel starts
// only after it. For 64 MiB of counts that is a few percent of the time. Here the kernel clears
// the histogram itself. The first block to start (the one that takes ticket 0 from a counter,
// atomicInc) zeroes the global bins and then raises a flag; every other block waits for the flag
// only before its first global atomicAdd: its merge at the end, long after, or, with more bins
// than shared memory, before it counts. A block waits only for a block that has started (it took
// ticket 0 before this one took its own), so the waiting always ends.
// The flag holds the launch's number (the launcher counts its launches), so no reset is needed
// between launches: a flag from the previous launch is a different number. The counter resets
// itself: atomicInc(counter, blocks - 1) wraps to 0 after the last block takes its ticket.
// What changed from step 6, and nothing else: the zeroing and the flag. The counter and the flag
// are __device__ variables of this file: two launches of this kernel running at the same time (in
// two streams) would share them, which the lesson never does.
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
__device__ __forceinline__ void store_release(unsigned int* flag, unsigned int value) {
  cuda::atomic_ref<unsigned int, cuda::thread_scope_device>(*flag).store(value, cuda::memory_order_release);
}

// Every thread of the block calls it: returns once launch `launch`'s histogram is zeroed.
__device__ __forceinline__ void wait_until_zeroed(unsigned int launch) {
  if (threadIdx.x == 0) {
    while (load_acquire(&zeroed_launch) != launch) {
    }
  }
  __syncthreads();
}

constexpr int kThreads = 1024;
constexpr int kLoads = 4;              // 16-byte loads per thread, all issued before any count
constexpr int kRun = 4 * kLoads;       // 16 neighbouring counts per thread

// `how_many` counts of c into the block's histogram (shared memory), or the global one beyond it.
__device__ __forceinline__ void count_run(std::uint32_t c, std::uint32_t how_many, std::uint32_t* shared_bins,
                                          std::uint32_t in_shared, std::uint32_t* bins, std::uint32_t num_bins) {
  if (c < in_shared) {
    atomicAdd(&shared_bins[c], how_many);
  } else if (c < num_bins) {
    atomicAdd(&bins[c], how_many);
  }
}

// [docs:hist_one_launch]
__global__ void __launch_bounds__(kThreads, 1)
    hist_one_launch(const std::uint32_t* __restrict__ counts, std::size_t n, std::uint32_t* __restrict__ bins,
                    std::uint32_t num_bins, std::uint32_t in_shared, bool aligned, unsigned int launch) {
  extern __shared__ std::uint32_t shared_bins[];  // in_shared bins, this block's private copy
  __shared__ unsigned int ticket;
  if (threadIdx.x == 0) ticket = atomicInc(&next_ticket, gridDim.x - 1);
  for (std::uint32_t b = threadIdx.x; b < in_shared; b += blockDim.x) shared_bins[b] = 0;
  __syncthreads();
  const bool zeroes = ticket == 0;  // the first block to start clears the global histogram
  if (zeroes) {
    for (std::uint32_t b = threadIdx.x; b < num_bins; b += blockDim.x) bins[b] = 0;
    __threadfence();
    __syncthreads();
    if (threadIdx.x == 0) store_release(&zeroed_launch, launch);
  } else if (num_bins > in_shared) {
    wait_until_zeroed(launch);  // high counts go straight to the global histogram while counting
  }
// [docs:end hist_one_launch]

  const std::size_t thread = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  const std::size_t groups = aligned ? n / kRun : 0;  // 16 neighbouring counts each
  const auto* counts4 = reinterpret_cast<const uint4*>(counts);
  // Every thread goes round the loop the same number of times, so the shuffle and the vote below
  // always have the full warp; a thread past the last group counts nothing.
  const std::size_t rounds = (groups + stride - 1) / stride;
  for (std::size_t round = 0; round < rounds; ++round) {
    const std::size_t g = thread + round * stride;
    const bool inside = g < groups;
    std::uint32_t c[kRun];
#pragma unroll
    for (int k = 0; k < kLoads; ++k) {  // four 16-byte loads in flight, then the counting
      const uint4 q = inside ? counts4[g * kLoads + k] : make_uint4(0, 0, 0, 0);
      c[4 * k] = q.x, c[4 * k + 1] = q.y, c[4 * k + 2] = q.z, c[4 * k + 3] = q.w;
    }
    // One count in the whole warp (every lane inside): the first lane adds 512 once.
    const std::uint32_t first = __shfl_sync(0xffffffffu, c[0], 0);
    bool one_count = inside;
#pragma unroll
    for (int k = 0; k < kRun; ++k) one_count = one_count && c[k] == first;
    if (__all_sync(0xffffffffu, one_count)) {
      if (threadIdx.x % 32 == 0) count_run(first, static_cast<std::uint32_t>(32 * kRun), shared_bins, in_shared, bins, num_bins);
      continue;
    }
    if (!inside) continue;
    // Each run of equal neighbours: one atomicAdd of its length, at its last element.
    std::uint32_t run = 1;
#pragma unroll
    for (int k = 0; k < kRun; ++k) {
      if (k + 1 < kRun && c[k + 1] == c[k]) {
        ++run;
      } else {
        count_run(c[k], run, shared_bins, in_shared, bins, num_bins);
        run = 1;
      }
    }
  }
  for (std::size_t i = kRun * groups + thread; i < n; i += stride) {  // the last n % 16 (all if unaligned)
    count_run(counts[i], 1, shared_bins, in_shared, bins, num_bins);
  }
  __syncthreads();  // every thread of the block has counted
  if (!zeroes && num_bins <= in_shared) wait_until_zeroed(launch);  // long done, as a rule

  for (std::uint32_t b = threadIdx.x; b < in_shared; b += blockDim.x) {  // the merge: one copy per SM
    const std::uint32_t v = shared_bins[b];
    if (v != 0) atomicAdd(&bins[b], v);
  }
}

}  // namespace

void launch_hist_one_launch(const HistogramArgs& args, cudaStream_t stream) {
  static unsigned int launches = 0;  // numbers the launches: the flag's value for this one
  if (++launches == 0) launches = 1;  // 0 is the flag's value before any launch
  const auto in_shared = static_cast<std::uint32_t>(std::min(args.num_bins, kSharedBins));
  const bool aligned = reinterpret_cast<std::uintptr_t>(args.counts) % sizeof(uint4) == 0;
  // One block per SM at most (fewer for a small input: at least one group of 16 per thread). With
  // no counts the one block still zeroes the histogram.
  const std::size_t needed = (args.n / kRun + kThreads) / kThreads;
  const auto blocks = static_cast<unsigned>(std::clamp<std::size_t>(needed, 1, static_cast<std::size_t>(current_sm_count())));
  // 48 KB of bins plus the block's ticket pass the 48 KB a launch may ask for without opting in:
  // ask once for the whole of the bins (the attribute stays with the kernel).
  static const bool opted_in = [] {
    CUDA_CHECK(cudaFuncSetAttribute(hist_one_launch, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    static_cast<int>(kSharedBins * sizeof(std::uint32_t))));
    return true;
  }();
  (void)opted_in;
  hist_one_launch<<<blocks, kThreads, in_shared * sizeof(std::uint32_t), stream>>>(
      args.counts, args.n, args.bins, static_cast<std::uint32_t>(args.num_bins), in_shared, aligned, launches);
  CUDA_CHECK_LAUNCH("hist_one_launch");
}

}  // namespace mandelbrot::histogram
