// Lesson 05, histogram step 2: hist_private_shared, a private histogram per block in shared memory.
//
// Teaches: privatisation. Each block counts its share of the pixels into its own copy of the
// histogram in shared memory (an atomicAdd there is done by the SM itself, much nearer and faster
// than one in L2, and only the block's own threads compete for an address). When the block has
// seen all its pixels it adds its copy into the global histogram: one global atomicAdd per bin
// that is not zero, instead of one per pixel. A few hundred blocks, so a few hundred updates per
// global bin in all, however many pixels there are.
// What changed from step 1: the shared histogram, its merge, a grid of a few blocks per SM (fewer
// copies to merge), and each thread reads four counts at once (one 16-byte load, uint4).
// Bins beyond kSharedBins (48 KB of them; --iters 20000 has 20,001 bins) do not fit: a count
// there goes straight to the global histogram, as in step 1. Correct for any number of bins.
#include <algorithm>
#include <cstdint>

#include "course/check.hpp"
#include "histogram.hpp"

namespace mandelbrot::histogram {

namespace {

// One count into the block's histogram (shared memory), or the global one beyond it.
__device__ __forceinline__ void count_one(std::uint32_t c, std::uint32_t* shared_bins, std::uint32_t in_shared,
                                          std::uint32_t* bins, std::uint32_t num_bins) {
  if (c < in_shared) {
    atomicAdd(&shared_bins[c], 1u);
  } else if (c < num_bins) {
    atomicAdd(&bins[c], 1u);
  }
}

// [docs:hist_private_shared]
__global__ void hist_private_shared(const std::uint32_t* __restrict__ counts, std::size_t n,
                                    std::uint32_t* __restrict__ bins, std::uint32_t num_bins, std::uint32_t in_shared,
                                    bool aligned) {
  extern __shared__ std::uint32_t shared_bins[];  // in_shared bins, this block's private copy
  for (std::uint32_t b = threadIdx.x; b < in_shared; b += blockDim.x) shared_bins[b] = 0;
  __syncthreads();

  const std::size_t thread = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  const std::size_t quads = aligned ? n / 4 : 0;  // four counts per 16-byte load
  const auto* counts4 = reinterpret_cast<const uint4*>(counts);
  for (std::size_t q = thread; q < quads; q += stride) {
    const uint4 c = counts4[q];
    count_one(c.x, shared_bins, in_shared, bins, num_bins);
    count_one(c.y, shared_bins, in_shared, bins, num_bins);
    count_one(c.z, shared_bins, in_shared, bins, num_bins);
    count_one(c.w, shared_bins, in_shared, bins, num_bins);
  }
  for (std::size_t i = 4 * quads + thread; i < n; i += stride) {  // the last n % 4 (all of them if unaligned)
    count_one(counts[i], shared_bins, in_shared, bins, num_bins);
  }
  __syncthreads();  // every thread of the block has counted

  for (std::uint32_t b = threadIdx.x; b < in_shared; b += blockDim.x) {  // the merge
    const std::uint32_t v = shared_bins[b];
    if (v != 0) atomicAdd(&bins[b], v);
  }
}
// [docs:end hist_private_shared]

}  // namespace

void launch_hist_private_shared(const HistogramArgs& args, cudaStream_t stream) {
  CUDA_CHECK(cudaMemsetAsync(args.bins, 0, static_cast<std::size_t>(args.num_bins) * sizeof(std::uint32_t), stream));
  if (args.n == 0) return;
  constexpr int kThreads = 512;
  const auto in_shared = static_cast<std::uint32_t>(std::min(args.num_bins, kSharedBins));
  const bool aligned = reinterpret_cast<std::uintptr_t>(args.counts) % sizeof(uint4) == 0;
  // Four blocks per SM: every SM busy, and few private copies to merge.
  const std::size_t needed = (args.n / 4 + kThreads) / kThreads;
  const auto blocks = static_cast<unsigned>(std::clamp<std::size_t>(needed, 1, 4 * static_cast<std::size_t>(current_sm_count())));
  hist_private_shared<<<blocks, kThreads, in_shared * sizeof(std::uint32_t), stream>>>(
      args.counts, args.n, args.bins, static_cast<std::uint32_t>(args.num_bins), in_shared, aligned);
  CUDA_CHECK_LAUNCH("hist_private_shared");
}

}  // namespace mandelbrot::histogram
