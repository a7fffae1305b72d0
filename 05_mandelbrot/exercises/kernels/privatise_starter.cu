// Exercise "privatise" (make it fast), the starter: the histogram of the escape counts, right and
// slow.
//
// One thread per count, and every count is one atomicAdd on the global histogram (step 1 of the
// page's histogram section, kernels/04_hist_global_atomic.cu). It is exact, but the Mandelbrot
// counts crowd into a few bins (a quarter of the pixels of the classic view at 1,000 iterations
// are in the interior, bin 1000), and the atomics on one address are done one after the other,
// in L2: thousands of threads queue on the hot bins.
//
// Goal (--width 4096 --height 4096 --iters 1000): at least 40% of the device copy (the d2d_copy
// ceiling the same run measures, the histogram counting the 4 bytes it reads per count), as
//   ./scripts/check_exercise.sh 05 privatise
// reports. Keep the launcher's name (launch_exercise_privatise) and every bin exact: the check
// verifies the histogram bin for bin against the CPU's, like every row of the lesson. The
// launcher fills the whole histogram (args.bins, args.num_bins bins: zero it first); counts of
// args.num_bins or more are not counted. args.num_bins can pass 12,288 (--iters 20000), more than
// a block's 48 KB of shared memory holds.
// Hints: ./scripts/check_exercise.sh 05 privatise --hint
#include <algorithm>

#include "course/check.hpp"
#include "histogram.hpp"

namespace mandelbrot::histogram {

namespace {

__global__ void privatise_starter(const std::uint32_t* __restrict__ counts, std::size_t n,
                                  std::uint32_t* __restrict__ bins, std::uint32_t num_bins) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    const std::uint32_t c = counts[i];
    if (c < num_bins) atomicAdd(&bins[c], 1u);  // every count: one update of the global histogram
  }
}

}  // namespace

void launch_exercise_privatise(const HistogramArgs& args, cudaStream_t stream) {
  CUDA_CHECK(cudaMemsetAsync(args.bins, 0, static_cast<std::size_t>(args.num_bins) * sizeof(std::uint32_t), stream));
  if (args.n == 0) return;
  constexpr int kThreads = 256;
  const std::size_t needed = (args.n + kThreads - 1) / kThreads;
  const auto blocks = static_cast<unsigned>(std::min<std::size_t>(needed, 32 * static_cast<std::size_t>(current_sm_count())));
  privatise_starter<<<blocks, kThreads, 0, stream>>>(args.counts, args.n, args.bins,
                                                     static_cast<std::uint32_t>(args.num_bins));
  CUDA_CHECK_LAUNCH("privatise_starter");
}

}  // namespace mandelbrot::histogram
