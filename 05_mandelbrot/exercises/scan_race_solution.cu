// Lesson 05, exercise 3 (solution): the CDF of the histogram, a block scan without a race.
//
// The starter read s[t - offset] and wrote s[t] in the same step with no barrier in between: a
// warp that has already added (written s[t]) can change the value another, slower warp is about
// to read as its left neighbour (a read-after-write hazard between warps, as racecheck says).
// The fix: every thread reads its left value, then the whole block waits (__syncthreads), then
// every thread writes. The barrier after the write stays: the next step reads what this one wrote.
#include <cuda_runtime.h>

#include "course/check.hpp"
#include "exercises/exercises.hpp"

namespace mandelbrot::exercises {

namespace {

constexpr int kThreads = 1024;

__global__ void scan_race_fixed_kernel(const std::uint32_t* __restrict__ bins, std::uint32_t* __restrict__ cdf, int num_bins) {
  __shared__ std::uint32_t s[kThreads];
  __shared__ std::uint32_t carry;
  const int t = static_cast<int>(threadIdx.x);
  if (t == 0) carry = 0;
  for (int base = 0; base < num_bins; base += kThreads) {
    s[t] = base + t < num_bins ? bins[base + t] : 0u;
    __syncthreads();  // the tile (and the carry) are in shared memory
    for (int offset = 1; offset < kThreads; offset *= 2) {
      const std::uint32_t left = t >= offset ? s[t - offset] : 0u;
      __syncthreads();  // every thread has read its left value before any writes
      s[t] += left;
      __syncthreads();  // this step is done before the next one reads
    }
    if (base + t < num_bins) cdf[base + t] = s[t] + carry;
    __syncthreads();  // everyone has read the carry
    if (t == 0) carry += s[kThreads - 1];
    __syncthreads();  // the new carry is visible, and the tile may be overwritten
  }
}

}  // namespace

void launch_scan_race_solution(const std::uint32_t* bins, std::uint32_t* cdf, int num_bins, cudaStream_t stream) {
  if (num_bins <= 0) return;
  scan_race_fixed_kernel<<<1, kThreads, 0, stream>>>(bins, cdf, num_bins);
  CUDA_CHECK_LAUNCH("scan_race_fixed_kernel (solution)");
}

}  // namespace mandelbrot::exercises
