// Lesson 05, histogram step 6: hist_runs, each thread counts runs of equal neighbours, not pixels.
//
// Teaches: fewer atomics by using what the data looks like. Neighbouring pixels of a Mandelbrot
// image mostly share their escape count (the interior is one count; outside, the counts change in
// wide bands), so a warp's 32 shared-memory atomics often all hit one address and are done one
// after the other. Step 5 reads four counts per load, but from 32 lanes a grid-stride apart; here
// each thread reads 16 neighbouring counts (64 bytes: four 16-byte loads, all in flight), walks
// them once and adds each run of equal counts with one atomicAdd of its length. A warp whose 512
// counts are all one count adds it once (one shuffle and one vote, as step 4 does for 32).
// The warp's loads are no longer one run of 512 bytes each: lane k reads bytes 64k .. 64k + 63,
// so each load touches 16 cache lines; the four loads of a thread share their lines (L1), so the
// bytes from memory are the same.
// What changed from step 5, and nothing else: 16 neighbouring counts per thread instead of four
// groups of four a grid-stride apart, and the runs. The block per SM, the shared histogram, the
// counts beyond it, the unaligned path and the exact result are step 5's.
#include <algorithm>
#include <cstdint>

#include "course/check.hpp"
#include "histogram.hpp"

namespace mandelbrot::histogram {

namespace {

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

__global__ void __launch_bounds__(kThreads, 1)
    hist_runs(const std::uint32_t* __restrict__ counts, std::size_t n, std::uint32_t* __restrict__ bins,
              std::uint32_t num_bins, std::uint32_t in_shared, bool aligned) {
  extern __shared__ std::uint32_t shared_bins[];  // in_shared bins, this block's private copy
  for (std::uint32_t b = threadIdx.x; b < in_shared; b += blockDim.x) shared_bins[b] = 0;
  __syncthreads();

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
    // [docs:hist_runs_count]
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
    // [docs:end hist_runs_count]
  }
  for (std::size_t i = kRun * groups + thread; i < n; i += stride) {  // the last n % 16 (all if unaligned)
    count_run(counts[i], 1, shared_bins, in_shared, bins, num_bins);
  }
  __syncthreads();  // every thread of the block has counted

  for (std::uint32_t b = threadIdx.x; b < in_shared; b += blockDim.x) {  // the merge: one copy per SM
    const std::uint32_t v = shared_bins[b];
    if (v != 0) atomicAdd(&bins[b], v);
  }
}

}  // namespace

void launch_hist_runs(const HistogramArgs& args, cudaStream_t stream) {
  CUDA_CHECK(cudaMemsetAsync(args.bins, 0, static_cast<std::size_t>(args.num_bins) * sizeof(std::uint32_t), stream));
  if (args.n == 0) return;
  const auto in_shared = static_cast<std::uint32_t>(std::min(args.num_bins, kSharedBins));
  const bool aligned = reinterpret_cast<std::uintptr_t>(args.counts) % sizeof(uint4) == 0;
  // One block per SM at most (fewer for a small input: at least one group of 16 per thread).
  const std::size_t needed = (args.n / kRun + kThreads) / kThreads;
  const auto blocks = static_cast<unsigned>(std::clamp<std::size_t>(needed, 1, static_cast<std::size_t>(current_sm_count())));
  hist_runs<<<blocks, kThreads, in_shared * sizeof(std::uint32_t), stream>>>(
      args.counts, args.n, args.bins, static_cast<std::uint32_t>(args.num_bins), in_shared, aligned);
  CUDA_CHECK_LAUNCH("hist_runs");
}

}  // namespace mandelbrot::histogram
