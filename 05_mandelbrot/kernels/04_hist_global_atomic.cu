// Lesson 05, histogram step 1: hist_global_atomic, one atomicAdd per pixel on the global histogram.
//
// Teaches: a histogram is a scatter: many threads add 1 to the same few places, and a plain
// `bins[c] += 1` from many threads loses updates (read, add, write interleave). atomicAdd makes each
// update indivisible: it is done in the L2 cache, one update of an address after another. That is
// correct, and fast while the addresses differ, but the Mandelbrot counts crowd into a few hot bins
// (the interior, the first few counts), so thousands of threads queue on one address: contention.
// Step 2 (05_hist_private_shared.cu) takes the queue off the global histogram.
#include <algorithm>

#include "course/check.hpp"
#include "histogram.hpp"

namespace mandelbrot::histogram {

namespace {

// [docs:hist_global_atomic]
__global__ void hist_global_atomic(const std::uint32_t* __restrict__ counts, std::size_t n,
                                   std::uint32_t* __restrict__ bins, std::uint32_t num_bins) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    const std::uint32_t c = counts[i];
    if (c < num_bins) atomicAdd(&bins[c], 1u);  // one update at a time per address, in L2
  }
}
// [docs:end hist_global_atomic]

}  // namespace

void launch_hist_global_atomic(const HistogramArgs& args, cudaStream_t stream) {
  CUDA_CHECK(cudaMemsetAsync(args.bins, 0, static_cast<std::size_t>(args.num_bins) * sizeof(std::uint32_t), stream));
  if (args.n == 0) return;
  constexpr int kThreads = 256;
  // Enough blocks to fill the GPU a few times over; the grid-stride loop covers any n.
  const std::size_t needed = (args.n + kThreads - 1) / kThreads;
  const auto blocks = static_cast<unsigned>(std::min<std::size_t>(needed, 32 * static_cast<std::size_t>(current_sm_count())));
  hist_global_atomic<<<blocks, kThreads, 0, stream>>>(args.counts, args.n, args.bins,
                                                      static_cast<std::uint32_t>(args.num_bins));
  CUDA_CHECK_LAUNCH("hist_global_atomic");
}

}  // namespace mandelbrot::histogram
