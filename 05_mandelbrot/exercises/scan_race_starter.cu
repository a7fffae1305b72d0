// Lesson 05, exercise 3 (find the bug, on a GPU): the CDF of the histogram, a block scan with a race.
//
// cdf[i] = bins[0] + ... + bins[i]. One block of kThreads walks the bins a tile at a time: the
// tile goes into shared memory, the block scans it in place (Hillis-Steele: at each step every
// thread adds the value `offset` places to its left, offset 1, 2, 4, ...), adds the carry of the
// tiles before, and the last element becomes the next carry. It often gives the right answer,
// and the test that compares it with the CPU may even pass: the bug is a race on shared memory,
// which depends on how the warps happen to be scheduled. compute-sanitizer's racecheck finds it
// every time. The check runs the test under it:
//   ./scripts/check_exercise.sh 05 scan_race          (FAIL names what racecheck reported)
// Find the race and fix it (one line). Hints: ./scripts/check_exercise.sh 05 scan_race --hint
#include <cuda_runtime.h>

#include "course/check.hpp"
#include "exercises/exercises.hpp"

namespace mandelbrot::exercises {

namespace {

constexpr int kThreads = 1024;

__global__ void scan_race_kernel(const std::uint32_t* __restrict__ bins, std::uint32_t* __restrict__ cdf, int num_bins) {
  __shared__ std::uint32_t s[kThreads];
  __shared__ std::uint32_t carry;
  const int t = static_cast<int>(threadIdx.x);
  if (t == 0) carry = 0;
  for (int base = 0; base < num_bins; base += kThreads) {
    s[t] = base + t < num_bins ? bins[base + t] : 0u;
    __syncthreads();  // the tile (and the carry) are in shared memory
    for (int offset = 1; offset < kThreads; offset *= 2) {
      const std::uint32_t left = t >= offset ? s[t - offset] : 0u;
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

void launch_scan_race_starter(const std::uint32_t* bins, std::uint32_t* cdf, int num_bins, cudaStream_t stream) {
  if (num_bins <= 0) return;
  scan_race_kernel<<<1, kThreads, 0, stream>>>(bins, cdf, num_bins);
  CUDA_CHECK_LAUNCH("scan_race_kernel (starter)");
}

}  // namespace mandelbrot::exercises
