// Exercise "privatise" (make it fast), the solution: a private histogram per block in shared
// memory, merged into the global one at the end.
//
// Each block counts its share of the counts into its own copy of the histogram in shared memory:
// an atomicAdd there is done by the SM itself, and only the block's own threads compete for an
// address. When the block has counted everything, it adds each non-zero bin of its copy to the
// global histogram with one atomicAdd: a few hundred blocks, so a few hundred updates per global
// bin, instead of one per count. Bins that do not fit in shared memory (kSharedBins and up) go
// straight to the global histogram, as in the starter. Each thread reads four counts with one
// 16-byte load where the counts are 16-byte aligned. Step 2 of the page
// (kernels/05_hist_private_shared.cu) is this kernel.
#include <algorithm>
#include <cstdint>

#include "course/check.hpp"
#include "histogram.hpp"

namespace mandelbrot::histogram {

namespace {

__device__ __forceinline__ void count_one(std::uint32_t c, std::uint32_t* shared_bins, std::uint32_t in_shared,
                                          std::uint32_t* bins, std::uint32_t num_bins) {
  if (c < in_shared) {
    atomicAdd(&shared_bins[c], 1u);  // the block's own copy: the SM does it, few threads compete
  } else if (c < num_bins) {
    atomicAdd(&bins[c], 1u);  // beyond the shared copy: the global histogram, as the starter
  }
}

__global__ void privatise_solution(const std::uint32_t* __restrict__ counts, std::size_t n,
                                   std::uint32_t* __restrict__ bins, std::uint32_t num_bins, std::uint32_t in_shared,
                                   bool aligned) {
  extern __shared__ std::uint32_t shared_bins[];  // in_shared bins
  for (std::uint32_t b = threadIdx.x; b < in_shared; b += blockDim.x) shared_bins[b] = 0;
  __syncthreads();  // zeroed before anyone counts

  const std::size_t thread = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  const std::size_t quads = aligned ? n / 4 : 0;
  const auto* counts4 = reinterpret_cast<const uint4*>(counts);
  for (std::size_t q = thread; q < quads; q += stride) {
    const uint4 c = counts4[q];
    count_one(c.x, shared_bins, in_shared, bins, num_bins);
    count_one(c.y, shared_bins, in_shared, bins, num_bins);
    count_one(c.z, shared_bins, in_shared, bins, num_bins);
    count_one(c.w, shared_bins, in_shared, bins, num_bins);
  }
  for (std::size_t i = 4 * quads + thread; i < n; i += stride) count_one(counts[i], shared_bins, in_shared, bins, num_bins);
  __syncthreads();  // counted before anyone merges

  for (std::uint32_t b = threadIdx.x; b < in_shared; b += blockDim.x) {
    const std::uint32_t v = shared_bins[b];
    if (v != 0) atomicAdd(&bins[b], v);  // one update per non-zero bin per block
  }
}

}  // namespace

void launch_exercise_privatise_solution(const HistogramArgs& args, cudaStream_t stream) {
  CUDA_CHECK(cudaMemsetAsync(args.bins, 0, static_cast<std::size_t>(args.num_bins) * sizeof(std::uint32_t), stream));
  if (args.n == 0) return;
  constexpr int kThreads = 512;
  const auto in_shared = static_cast<std::uint32_t>(std::min(args.num_bins, kSharedBins));
  const bool aligned = reinterpret_cast<std::uintptr_t>(args.counts) % sizeof(uint4) == 0;
  // A few blocks per SM: every SM busy, and few private copies to merge.
  const std::size_t needed = (args.n / 4 + kThreads) / kThreads;
  const auto blocks = static_cast<unsigned>(std::clamp<std::size_t>(needed, 1, 4 * static_cast<std::size_t>(current_sm_count())));
  privatise_solution<<<blocks, kThreads, in_shared * sizeof(std::uint32_t), stream>>>(
      args.counts, args.n, args.bins, static_cast<std::uint32_t>(args.num_bins), in_shared, aligned);
  CUDA_CHECK_LAUNCH("privatise_solution");
}

}  // namespace mandelbrot::histogram
