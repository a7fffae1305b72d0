// Lesson 05, histogram step 3: hist_warp_aggregated, equal counts in a warp added with one atomic.
//
// Teaches: warp aggregation. Neighbouring pixels often have the same count (whole stretches of the
// interior, the smooth bands outside), so the 32 threads of a warp often add 1 to the same shared
// bin at the same moment, and the SM does those 32 updates of one address one after another.
// __match_any_sync(mask, c) gives every thread the set of lanes (a 32-bit mask) holding the same c;
// the lowest of them, the leader, adds the set's size (__popc) once. A warp whose 32 counts are
// equal makes 1 update instead of 32; a warp whose counts all differ makes 32, as before.
// What changed from step 2: count_aggregated instead of count_one, and a loop whose trip count is
// the same for every lane of a warp (the __match_any_sync and __ballot_sync calls need every lane
// named in the mask to reach them together).
#include <algorithm>
#include <cstdint>

#include "course/check.hpp"
#include "histogram.hpp"

namespace mandelbrot::histogram {

namespace {

// [docs:count_aggregated]
// Every lane of `active` calls this with its count c; each distinct c is added once, by its leader.
__device__ __forceinline__ void count_aggregated(std::uint32_t c, unsigned active, std::uint32_t* shared_bins,
                                                 std::uint32_t in_shared, std::uint32_t* bins, std::uint32_t num_bins) {
  const unsigned peers = __match_any_sync(active, c);  // the lanes whose count is c, this one included
  const int leader = __ffs(static_cast<int>(peers)) - 1;
  if (static_cast<int>(threadIdx.x % 32) != leader) return;
  const auto how_many = static_cast<std::uint32_t>(__popc(peers));
  if (c < in_shared) {
    atomicAdd(&shared_bins[c], how_many);
  } else if (c < num_bins) {
    atomicAdd(&bins[c], how_many);
  }
}
// [docs:end count_aggregated]

__global__ void hist_warp_aggregated(const std::uint32_t* __restrict__ counts, std::size_t n,
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
      count_aggregated(c.x, active, shared_bins, in_shared, bins, num_bins);
      count_aggregated(c.y, active, shared_bins, in_shared, bins, num_bins);
      count_aggregated(c.z, active, shared_bins, in_shared, bins, num_bins);
      count_aggregated(c.w, active, shared_bins, in_shared, bins, num_bins);
    }
  }
  // The last n % 4 counts (all of them when the array is not 16-byte aligned), in the same
  // warp-uniform loop.
  for (std::size_t first = 4 * quads + static_cast<std::size_t>(blockIdx.x) * blockDim.x; first < n; first += stride) {
    const std::size_t i = first + threadIdx.x;
    const unsigned active = __ballot_sync(0xffffffffu, i < n);
    if (i < n) count_aggregated(counts[i], active, shared_bins, in_shared, bins, num_bins);
  }
  __syncthreads();

  for (std::uint32_t b = threadIdx.x; b < in_shared; b += blockDim.x) {  // the merge, as in step 2
    const std::uint32_t v = shared_bins[b];
    if (v != 0) atomicAdd(&bins[b], v);
  }
}

}  // namespace

void launch_hist_warp_aggregated(const HistogramArgs& args, cudaStream_t stream) {
  CUDA_CHECK(cudaMemsetAsync(args.bins, 0, static_cast<std::size_t>(args.num_bins) * sizeof(std::uint32_t), stream));
  if (args.n == 0) return;
  constexpr int kThreads = 512;  // a multiple of 32: whole warps
  const auto in_shared = static_cast<std::uint32_t>(std::min(args.num_bins, kSharedBins));
  const bool aligned = reinterpret_cast<std::uintptr_t>(args.counts) % sizeof(uint4) == 0;
  const std::size_t needed = (args.n / 4 + kThreads) / kThreads;
  const auto blocks = static_cast<unsigned>(std::clamp<std::size_t>(needed, 1, 4 * static_cast<std::size_t>(current_sm_count())));
  hist_warp_aggregated<<<blocks, kThreads, in_shared * sizeof(std::uint32_t), stream>>>(
      args.counts, args.n, args.bins, static_cast<std::uint32_t>(args.num_bins), in_shared, aligned);
  CUDA_CHECK_LAUNCH("hist_warp_aggregated");
}

}  // namespace mandelbrot::histogram
