// Lesson 05, histogram step 8: hist_chunks, one wave of blocks, each counting one contiguous chunk.
//
// Teaches: at 4096 x 4096 the counts are 64 MiB, read in a few tens of microseconds, so what a
// block does besides reading (starting, zeroing its private copy, merging it, waiting for the
// slowest block of the grid) is a large share of the time. This step sizes the grid to exactly one
// wave: as many blocks as the GPU holds at once (the SM count times the blocks one SM keeps
// resident, asked of the runtime with cudaOccupancyMaxActiveBlocksPerMultiprocessor), and gives
// each block one contiguous chunk of the counts, the same size for every block, so every block
// starts at once, none waits for a second wave, and all finish together. Inside its chunk a block
// reads like a copy kernel: each thread issues `Loads` 16-byte loads before it counts any of
// them, and each load of a warp reads 512 consecutive bytes.
// Two more changes, both about the shared-memory atomics: a warp whose 128 counts of one load are
// all equal (the interior, a wide band) adds them with one atomicAdd (one shuffle and one vote,
// as step 4 did for 32); otherwise each thread adds each run of equal counts among its four with
// one atomicAdd (step 6's runs, on four neighbours: its loads stay coalesced).
// What changed from step 5 (hist_private_streamed): the grid (one full wave, contiguous chunks
// instead of a grid stride), the loads per thread, and the two shortcuts. The shared histogram,
// the counts beyond it (straight to the global histogram), the merge of the non-zero bins, the
// unaligned path and the exact result are step 5's.
// Four variants are registered, so that one run compares them: three shapes, 1,024 threads x 4
// loads, 512 x 8 and 256 x 8 (more, smaller blocks per SM: more private copies to merge, but a
// block that waits on its loads holds up fewer threads), and the first shape clearing the global
// histogram itself, as step 7 (13_hist_one_launch.cu) does, instead of a cudaMemsetAsync before
// the kernel (hist_chunks_one_launch: the first block to start zeroes it, the others wait for its
// flag only before they merge; the ticket counter and the flag are this file's own).
#include <algorithm>
#include <cstdint>

#include <cuda/atomic>

#include "course/check.hpp"
#include "histogram.hpp"

namespace mandelbrot::histogram {

namespace {

// hist_chunks_one_launch's state between launches (step 7's scheme): the blocks' tickets (back to
// 0 after each launch) and the number of the launch whose histogram is zeroed.
__device__ unsigned int chunk_ticket = 0;
__device__ unsigned int chunk_zeroed_launch = 0;

__device__ __forceinline__ unsigned int load_acquire(const unsigned int* flag) {
  return cuda::atomic_ref<const unsigned int, cuda::thread_scope_device>(*flag).load(cuda::memory_order_acquire);
}
__device__ __forceinline__ void store_release(unsigned int* flag, unsigned int value) {
  cuda::atomic_ref<unsigned int, cuda::thread_scope_device>(*flag).store(value, cuda::memory_order_release);
}
// Every thread of the block calls it: returns once launch `launch`'s histogram is zeroed.
__device__ __forceinline__ void wait_until_zeroed(unsigned int launch) {
  if (threadIdx.x == 0) {
    while (load_acquire(&chunk_zeroed_launch) != launch) {
    }
  }
  __syncthreads();
}

// `how_many` counts of c into the block's histogram (shared memory), or the global one beyond it.
__device__ __forceinline__ void add_count(std::uint32_t c, std::uint32_t how_many, std::uint32_t* shared_bins,
                                          std::uint32_t in_shared, std::uint32_t* bins, std::uint32_t num_bins) {
  if (c < in_shared) {
    atomicAdd(&shared_bins[c], how_many);
  } else if (c < num_bins) {
    atomicAdd(&bins[c], how_many);
  }
}

// [docs:hist_chunks_count]
// The four counts of one 16-byte load of every lane of the warp (all lanes call it; `inside`:
// this lane's load was inside the chunk). One count in all 128: lane 0 adds 128 once. Otherwise
// each lane adds each run of equal neighbours among its four once, with the run's length.
__device__ __forceinline__ void count_load(const uint4& q, bool inside, std::uint32_t* shared_bins,
                                           std::uint32_t in_shared, std::uint32_t* bins, std::uint32_t num_bins) {
  const std::uint32_t first = __shfl_sync(0xffffffffu, q.x, 0);
  const bool uniform = inside && q.x == first && q.y == first && q.z == first && q.w == first;
  if (__all_sync(0xffffffffu, uniform)) {
    if (threadIdx.x % 32 == 0) add_count(first, 128, shared_bins, in_shared, bins, num_bins);
    return;
  }
  if (!inside) return;
  std::uint32_t run = 1;
  if (q.y == q.x) { ++run; } else { add_count(q.x, run, shared_bins, in_shared, bins, num_bins); run = 1; }
  if (q.z == q.y) { ++run; } else { add_count(q.y, run, shared_bins, in_shared, bins, num_bins); run = 1; }
  if (q.w == q.z) { ++run; } else { add_count(q.z, run, shared_bins, in_shared, bins, num_bins); run = 1; }
  add_count(q.w, run, shared_bins, in_shared, bins, num_bins);
}
// [docs:end hist_chunks_count]

// [docs:hist_chunks]
// Block b counts quads [b * chunk, min((b + 1) * chunk, quads)) (a quad: four counts, one 16-byte
// load); chunk is a multiple of Threads x Loads, so every round of a block but its last is full.
// ZeroesItself: the global histogram is not zeroed before the launch; the block with ticket 0
// zeroes it (step 7's scheme), and `launch` numbers the launch.
template <int Threads, int Loads, bool ZeroesItself>
__global__ void __launch_bounds__(Threads)
    hist_chunks(const std::uint32_t* __restrict__ counts, std::size_t n, std::uint32_t* __restrict__ bins,
                std::uint32_t num_bins, std::uint32_t in_shared, std::size_t quads, std::size_t chunk,
                unsigned int launch) {
  extern __shared__ std::uint32_t shared_bins[];  // in_shared bins, this block's private copy
  bool zeroes = false;  // this block clears the global histogram (ZeroesItself only)
  if constexpr (ZeroesItself) {
    __shared__ unsigned int ticket;
    if (threadIdx.x == 0) ticket = atomicInc(&chunk_ticket, gridDim.x - 1);
    __syncthreads();
    zeroes = ticket == 0;  // the first block to start
    if (zeroes) {
      for (std::uint32_t b = threadIdx.x; b < num_bins; b += Threads) bins[b] = 0;
      __threadfence();
      __syncthreads();
      if (threadIdx.x == 0) store_release(&chunk_zeroed_launch, launch);
    } else if (num_bins > in_shared) {
      wait_until_zeroed(launch);  // high counts go straight to the global histogram while counting
    }
  }
  for (std::uint32_t b = threadIdx.x; b < in_shared; b += Threads) shared_bins[b] = 0;
  __syncthreads();

  const auto* counts4 = reinterpret_cast<const uint4*>(counts);
  const std::size_t begin = static_cast<std::size_t>(blockIdx.x) * chunk;
  const std::size_t end = begin + chunk < quads ? begin + chunk : quads;
  // Every thread of every block goes round the same number of times (the shuffle and the vote
  // need the whole warp); loads past the end of the chunk are neither made nor counted.
  for (std::size_t base = begin; base < begin + chunk; base += static_cast<std::size_t>(Threads) * Loads) {
    uint4 q[Loads];
    bool inside[Loads];
#pragma unroll
    for (int k = 0; k < Loads; ++k) {  // Loads 16-byte loads in flight, then the counting
      const std::size_t i = base + static_cast<std::size_t>(k) * Threads + threadIdx.x;
      inside[k] = i < end;
      q[k] = inside[k] ? counts4[i] : make_uint4(0, 0, 0, 0);
    }
#pragma unroll
    for (int k = 0; k < Loads; ++k) count_load(q[k], inside[k], shared_bins, in_shared, bins, num_bins);
  }
  // The last n - 4 * quads counts (n % 4; all of them when the counts are not 16-byte aligned).
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * Threads;
  for (std::size_t i = 4 * quads + static_cast<std::size_t>(blockIdx.x) * Threads + threadIdx.x; i < n; i += stride) {
    add_count(counts[i], 1, shared_bins, in_shared, bins, num_bins);
  }
  __syncthreads();  // every thread of the block has counted
  if constexpr (ZeroesItself) {
    if (!zeroes && num_bins <= in_shared) wait_until_zeroed(launch);  // long done, as a rule
  }

  for (std::uint32_t b = threadIdx.x; b < in_shared; b += Threads) {  // the merge: the non-zero bins
    const std::uint32_t v = shared_bins[b];
    if (v != 0) atomicAdd(&bins[b], v);
  }
}
// [docs:end hist_chunks]

// The blocks one SM keeps resident for this shape and shared-memory size (asked once per shape,
// device and size: the answer does not change, and the launch should not wait for it).
template <int Threads, int Loads, bool ZeroesItself>
int resident_blocks(std::size_t shared_bytes) {
  static int known_device = -1;
  static std::size_t known_bytes = 0;
  static int known_blocks = 0;
  int device = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  if (device != known_device || shared_bytes != known_bytes) {
    int blocks = 0;
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, hist_chunks<Threads, Loads, ZeroesItself>, Threads,
                                                             shared_bytes));
    known_device = device;
    known_bytes = shared_bytes;
    known_blocks = std::max(blocks, 1);
  }
  return known_blocks;
}

template <int Threads, int Loads, bool ZeroesItself = false>
void launch_chunks(const HistogramArgs& args, cudaStream_t stream) {
  unsigned int launch = 0;
  if constexpr (ZeroesItself) {
    static unsigned int launches = 0;   // numbers the launches: the flag's value for this one
    if (++launches == 0) launches = 1;  // 0 is the flag's value before any launch
    launch = launches;
    // The bins (up to 48 KB) and the block's ticket pass the 48 KB a launch may ask for without
    // opting in: ask once for the whole of the bins (the attribute stays with the kernel).
    static const bool opted_in = [] {
      CUDA_CHECK(cudaFuncSetAttribute(hist_chunks<Threads, Loads, true>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                      static_cast<int>(kSharedBins * sizeof(std::uint32_t))));
      return true;
    }();
    (void)opted_in;
  } else {
    CUDA_CHECK(cudaMemsetAsync(args.bins, 0, static_cast<std::size_t>(args.num_bins) * sizeof(std::uint32_t), stream));
    if (args.n == 0) return;
  }
  const auto in_shared = static_cast<std::uint32_t>(std::min(args.num_bins, kSharedBins));
  const std::size_t shared_bytes = in_shared * sizeof(std::uint32_t);
  const bool aligned = reinterpret_cast<std::uintptr_t>(args.counts) % sizeof(uint4) == 0;
  const std::size_t quads = aligned ? args.n / 4 : 0;
  // One wave: every block resident at once; fewer for a small input (at least one full round of
  // loads per block), at least one block (with no counts, it still zeroes the histogram where the
  // kernel does). (Unaligned counts all take the last loop, which the grid covers with a grid stride.)
  constexpr std::size_t kRound = static_cast<std::size_t>(Threads) * Loads;
  const std::size_t wave = static_cast<std::size_t>(resident_blocks<Threads, Loads, ZeroesItself>(shared_bytes)) *
                           static_cast<std::size_t>(current_sm_count());
  const std::size_t blocks = std::clamp<std::size_t>((args.n / 4 + kRound - 1) / kRound, 1, wave);
  // Equal chunks, each a whole number of rounds (the last block's chunk may end early).
  const std::size_t rounds = (quads + blocks * kRound - 1) / (blocks * kRound);
  hist_chunks<Threads, Loads, ZeroesItself><<<static_cast<unsigned>(blocks), Threads, shared_bytes, stream>>>(
      args.counts, args.n, args.bins, static_cast<std::uint32_t>(args.num_bins), in_shared, quads, rounds * kRound,
      launch);
  CUDA_CHECK_LAUNCH("hist_chunks");
}

}  // namespace

// The four registered variants (kernels/histogram_registry.inc): threads per block x 16-byte loads
// in flight per thread, and the first shape zeroing the histogram itself.
void launch_hist_chunks_1024x4(const HistogramArgs& args, cudaStream_t stream) {
  launch_chunks<1024, 4>(args, stream);
}
void launch_hist_chunks_512x8(const HistogramArgs& args, cudaStream_t stream) {
  launch_chunks<512, 8>(args, stream);
}
void launch_hist_chunks_256x8(const HistogramArgs& args, cudaStream_t stream) {
  launch_chunks<256, 8>(args, stream);
}
void launch_hist_chunks_one_launch(const HistogramArgs& args, cudaStream_t stream) {
  launch_chunks<1024, 4, true>(args, stream);
}

}  // namespace mandelbrot::histogram
