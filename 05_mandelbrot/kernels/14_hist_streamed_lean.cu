// Lesson 05, histogram step 8: hist_streamed_lean, step 5 with one test for a load's four counts
// instead of two tests per count.
//
// Teaches: a kernel that reads at the memory's pace still pays for its instructions where nothing
// hides them. Step 5 tests every count twice (in the block's copy? in the histogram at all?), a
// compare and a branch around each atomic. A bare timing loop (the page, section 13) found step
// 5's kernel about a microsecond slower than a histogram that does the same atomics with no
// tests. Here the largest of a load's four counts is compared once; below the block's copy
// (always, with 1,001 bins), four shared-memory atomics follow with nothing between them, and
// only a load with a count past the copy takes step 5's way.
// What changed from step 5, and nothing else: count_four.
#include <algorithm>
#include <cstdint>

#include "course/check.hpp"
#include "histogram.hpp"

namespace mandelbrot::histogram {

namespace {

constexpr int kThreads = 1024;
constexpr int kLoadsInFlight = 4;  // 16-byte loads each thread issues before it counts them

// One count into the block's histogram (shared memory), or the global one beyond it (step 2's).
__device__ __forceinline__ void count_one(std::uint32_t c, std::uint32_t* shared_bins, std::uint32_t in_shared,
                                          std::uint32_t* bins, std::uint32_t num_bins) {
  if (c < in_shared) {
    atomicAdd(&shared_bins[c], 1u);
  } else if (c < num_bins) {
    atomicAdd(&bins[c], 1u);
  }
}

// [docs:hist_streamed_lean]
__device__ __forceinline__ void count_four(const uint4& c, std::uint32_t* shared_bins, std::uint32_t in_shared,
                                           std::uint32_t* bins, std::uint32_t num_bins) {
  if (max(max(c.x, c.y), max(c.z, c.w)) < in_shared) {
    atomicAdd(&shared_bins[c.x], 1u);
    atomicAdd(&shared_bins[c.y], 1u);
    atomicAdd(&shared_bins[c.z], 1u);
    atomicAdd(&shared_bins[c.w], 1u);
  } else {
    count_one(c.x, shared_bins, in_shared, bins, num_bins);
    count_one(c.y, shared_bins, in_shared, bins, num_bins);
    count_one(c.z, shared_bins, in_shared, bins, num_bins);
    count_one(c.w, shared_bins, in_shared, bins, num_bins);
  }
}
// [docs:end hist_streamed_lean]

__global__ void __launch_bounds__(kThreads, 1)
    hist_streamed_lean(const std::uint32_t* __restrict__ counts, std::size_t n, std::uint32_t* __restrict__ bins,
                          std::uint32_t num_bins, std::uint32_t in_shared, bool aligned) {
  extern __shared__ std::uint32_t shared_bins[];  // in_shared bins, this block's private copy
  for (std::uint32_t b = threadIdx.x; b < in_shared; b += blockDim.x) shared_bins[b] = 0;
  __syncthreads();

  const std::size_t thread = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  const std::size_t quads = aligned ? n / 4 : 0;  // four counts per 16-byte load
  const auto* counts4 = reinterpret_cast<const uint4*>(counts);
  // Four loads issued back to back (independent addresses, one grid stride apart: every load of
  // the warp still reads 512 consecutive bytes), then the sixteen counts. Near the end some of
  // the four are past the last quad: those are neither loaded nor counted.
  for (std::size_t q = thread; q < quads; q += kLoadsInFlight * stride) {
    uint4 c[kLoadsInFlight] = {};
#pragma unroll
    for (int k = 0; k < kLoadsInFlight; ++k) {
      if (q + k * stride < quads) c[k] = counts4[q + k * stride];
    }
#pragma unroll
    for (int k = 0; k < kLoadsInFlight; ++k) {
      if (q + k * stride < quads) count_four(c[k], shared_bins, in_shared, bins, num_bins);
    }
  }
  for (std::size_t i = 4 * quads + thread; i < n; i += stride) {  // the last n % 4 (all of them if unaligned)
    count_one(counts[i], shared_bins, in_shared, bins, num_bins);
  }
  __syncthreads();  // every thread of the block has counted

  for (std::uint32_t b = threadIdx.x; b < in_shared; b += blockDim.x) {  // the merge: one copy per SM
    const std::uint32_t v = shared_bins[b];
    if (v != 0) atomicAdd(&bins[b], v);
  }
}

}  // namespace

void launch_hist_streamed_lean(const HistogramArgs& args, cudaStream_t stream) {
  CUDA_CHECK(cudaMemsetAsync(args.bins, 0, static_cast<std::size_t>(args.num_bins) * sizeof(std::uint32_t), stream));
  if (args.n == 0) return;
  const auto in_shared = static_cast<std::uint32_t>(std::min(args.num_bins, kSharedBins));
  const bool aligned = reinterpret_cast<std::uintptr_t>(args.counts) % sizeof(uint4) == 0;
  // One block per SM at most (fewer for a small input: at least one 16-byte load per thread).
  const std::size_t needed = (args.n / 4 + kThreads) / kThreads;
  const auto blocks = static_cast<unsigned>(std::clamp<std::size_t>(needed, 1, static_cast<std::size_t>(current_sm_count())));
  hist_streamed_lean<<<blocks, kThreads, in_shared * sizeof(std::uint32_t), stream>>>(
      args.counts, args.n, args.bins, static_cast<std::uint32_t>(args.num_bins), in_shared, aligned);
  CUDA_CHECK_LAUNCH("hist_streamed_lean");
}

}  // namespace mandelbrot::histogram
