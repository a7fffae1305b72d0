// Lesson 05, histogram step 4: hist_warp_uniform, a whole warp with one count adds once (vote).
//
// Teaches: a cheaper aggregation (a sort-free trick). __match_any_sync finds every group of equal
// counts in a warp, but it is a slow instruction, paid for every count. The hottest case is the
// simplest: the whole warp holds one count (32 neighbouring pixels of the interior, or of one
// smooth band). Two fast instructions detect it: __shfl_sync hands every lane the first active
// lane's count, __all_sync asks whether every lane holds it. If so the first lane adds the number
// of active lanes, once; otherwise every lane adds 1 on its own, as in step 2.
// What changed from step 3: count_uniform_or_each instead of count_aggregated. Which of the two is
// faster depends on how often a warp's counts are all equal, and how often they form several
// groups: run both views (the classic and the benchmark) and compare their rows.
#include <algorithm>
#include <cstdint>

#include "course/check.hpp"
#include "histogram.hpp"

namespace mandelbrot::histogram {

namespace {

// [docs:count_uniform_or_each]
// Every lane of `active` calls this with its count c: a warp whose lanes all hold the same count
// adds it once; any other warp adds one per lane.
__device__ __forceinline__ void count_uniform_or_each(std::uint32_t c, unsigned active, std::uint32_t* shared_bins,
                                                      std::uint32_t in_shared, std::uint32_t* bins,
                                                      std::uint32_t num_bins) {
  const int first = __ffs(static_cast<int>(active)) - 1;
  const std::uint32_t first_count = __shfl_sync(active, c, first);
  std::uint32_t how_many = 1;
  if (__all_sync(active, c == first_count)) {  // one count in the whole warp
    if (static_cast<int>(threadIdx.x % 32) != first) return;
    how_many = static_cast<std::uint32_t>(__popc(active));
  }
  if (c < in_shared) {
    atomicAdd(&shared_bins[c], how_many);
  } else if (c < num_bins) {
    atomicAdd(&bins[c], how_many);
  }
}
// [docs:end count_uniform_or_each]

__global__ void hist_warp_uniform(const std::uint32_t* __restrict__ counts, std::size_t n,
                                     std::uint32_t* __restrict__ bins, std::uint32_t num_bins, std::uint32_t in_shared,
                                     bool aligned) {
  extern __shared__ std::uint32_t shared_bins[];  // in_shared bins, this block's private copy
  for (std::uint32_t b = threadIdx.x; b < in_shared; b += blockDim.x) shared_bins[b] = 0;
  __syncthreads();

  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  const std::size_t quads = aligned ? n / 4 : 0;
  const auto* counts4 = reinterpret_cast<const uint4*>(counts);
  // `first` is the same for the whole block, so every lane of a warp runs the same iterations.
  for (std::size_t first = static_cast<std::size_t>(blockIdx.x) * blockDim.x; first < quads; first += stride) {
    const std::size_t q = first + threadIdx.x;
    const unsigned active = __ballot_sync(0xffffffffu, q < quads);
    if (q < quads) {
      const uint4 c = counts4[q];
      count_uniform_or_each(c.x, active, shared_bins, in_shared, bins, num_bins);
      count_uniform_or_each(c.y, active, shared_bins, in_shared, bins, num_bins);
      count_uniform_or_each(c.z, active, shared_bins, in_shared, bins, num_bins);
      count_uniform_or_each(c.w, active, shared_bins, in_shared, bins, num_bins);
    }
  }
  // The last n % 4 counts (all of them when the array is not 16-byte aligned), in the same
  // warp-uniform loop.
  for (std::size_t first = 4 * quads + static_cast<std::size_t>(blockIdx.x) * blockDim.x; first < n; first += stride) {
    const std::size_t i = first + threadIdx.x;
    const unsigned active = __ballot_sync(0xffffffffu, i < n);
    if (i < n) count_uniform_or_each(counts[i], active, shared_bins, in_shared, bins, num_bins);
  }
  __syncthreads();

  for (std::uint32_t b = threadIdx.x; b < in_shared; b += blockDim.x) {  // the merge, as in step 2
    const std::uint32_t v = shared_bins[b];
    if (v != 0) atomicAdd(&bins[b], v);
  }
}

}  // namespace

void launch_hist_warp_uniform(const HistogramArgs& args, cudaStream_t stream) {
  CUDA_CHECK(cudaMemsetAsync(args.bins, 0, static_cast<std::size_t>(args.num_bins) * sizeof(std::uint32_t), stream));
  if (args.n == 0) return;
  constexpr int kThreads = 512;  // a multiple of 32: whole warps
  const auto in_shared = static_cast<std::uint32_t>(std::min(args.num_bins, kSharedBins));
  const bool aligned = reinterpret_cast<std::uintptr_t>(args.counts) % sizeof(uint4) == 0;
  const std::size_t needed = (args.n / 4 + kThreads) / kThreads;
  const auto blocks = static_cast<unsigned>(std::clamp<std::size_t>(needed, 1, 4 * static_cast<std::size_t>(current_sm_count())));
  hist_warp_uniform<<<blocks, kThreads, in_shared * sizeof(std::uint32_t), stream>>>(
      args.counts, args.n, args.bins, static_cast<std::uint32_t>(args.num_bins), in_shared, aligned);
  CUDA_CHECK_LAUNCH("hist_warp_uniform");
}

}  // namespace mandelbrot::histogram
