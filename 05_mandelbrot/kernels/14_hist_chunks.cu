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
// Three shapes are registered, so that one run compares them: 1,024 threads x 4 loads, 512 x 8
// and 256 x 8 (more, smaller blocks per SM: more private copies to merge, but a block that waits
// on its loads holds up fewer threads).
#include <algorithm>
#include <cstdint>

#include "course/check.hpp"
#include "histogram.hpp"

namespace mandelbrot::histogram {

namespace {

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
template <int Threads, int Loads>
__global__ void __launch_bounds__(Threads)
    hist_chunks(const std::uint32_t* __restrict__ counts, std::size_t n, std::uint32_t* __restrict__ bins,
                std::uint32_t num_bins, std::uint32_t in_shared, std::size_t quads, std::size_t chunk) {
  extern __shared__ std::uint32_t shared_bins[];  // in_shared bins, this block's private copy
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

  for (std::uint32_t b = threadIdx.x; b < in_shared; b += Threads) {  // the merge: the non-zero bins
    const std::uint32_t v = shared_bins[b];
    if (v != 0) atomicAdd(&bins[b], v);
  }
}
// [docs:end hist_chunks]

// The blocks one SM keeps resident for this shape and shared-memory size (asked once per shape,
// device and size: the answer does not change, and the launch should not wait for it).
template <int Threads, int Loads>
int resident_blocks(std::size_t shared_bytes) {
  static int known_device = -1;
  static std::size_t known_bytes = 0;
  static int known_blocks = 0;
  int device = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  if (device != known_device || shared_bytes != known_bytes) {
    int blocks = 0;
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, hist_chunks<Threads, Loads>, Threads, shared_bytes));
    known_device = device;
    known_bytes = shared_bytes;
    known_blocks = std::max(blocks, 1);
  }
  return known_blocks;
}

template <int Threads, int Loads>
void launch_chunks(const HistogramArgs& args, cudaStream_t stream) {
  CUDA_CHECK(cudaMemsetAsync(args.bins, 0, static_cast<std::size_t>(args.num_bins) * sizeof(std::uint32_t), stream));
  if (args.n == 0) return;
  const auto in_shared = static_cast<std::uint32_t>(std::min(args.num_bins, kSharedBins));
  const std::size_t shared_bytes = in_shared * sizeof(std::uint32_t);
  const bool aligned = reinterpret_cast<std::uintptr_t>(args.counts) % sizeof(uint4) == 0;
  const std::size_t quads = aligned ? args.n / 4 : 0;
  // One wave: every block resident at once; fewer for a small input (at least one full round of
  // loads per block), at least one block. (Unaligned counts all take the last loop, which the
  // same grid covers with a grid stride.)
  constexpr std::size_t kRound = static_cast<std::size_t>(Threads) * Loads;
  const std::size_t wave = static_cast<std::size_t>(resident_blocks<Threads, Loads>(shared_bytes)) *
                           static_cast<std::size_t>(current_sm_count());
  const std::size_t blocks = std::clamp<std::size_t>((args.n / 4 + kRound - 1) / kRound, 1, wave);
  // Equal chunks, each a whole number of rounds (the last block's chunk may end early).
  const std::size_t rounds = (quads + blocks * kRound - 1) / (blocks * kRound);
  hist_chunks<Threads, Loads><<<static_cast<unsigned>(blocks), Threads, shared_bytes, stream>>>(
      args.counts, args.n, args.bins, static_cast<std::uint32_t>(args.num_bins), in_shared, quads, rounds * kRound);
  CUDA_CHECK_LAUNCH("hist_chunks");
}

}  // namespace

// The three registered shapes (kernels/histogram_registry.inc): threads per block x 16-byte loads
// in flight per thread.
void launch_hist_chunks_1024x4(const HistogramArgs& args, cudaStream_t stream) {
  launch_chunks<1024, 4>(args, stream);
}
void launch_hist_chunks_512x8(const HistogramArgs& args, cudaStream_t stream) {
  launch_chunks<512, 8>(args, stream);
}
void launch_hist_chunks_256x8(const HistogramArgs& args, cudaStream_t stream) {
  launch_chunks<256, 8>(args, stream);
}

}  // namespace mandelbrot::histogram
