// Lesson 07, step 2: several options per thread, every load issued before the arithmetic.
//
// Teaches: a memory-bound kernel is fast when enough bytes are in flight. In step 1 each thread
// issues its 3 loads and then waits about a microsecond for DRAM before computing; at one option
// per thread, only the other resident warps hide that wait. Here each thread loads 4 options
// (12 independent loads, all in flight at once), then prices them: 4 times the bytes in flight per
// thread, and the long arithmetic of one option overlaps the loads of the others' warps. The grid
// still covers the options exactly once (no loop). The arithmetic is step 1's, unchanged.
//
// What changed from step 1: each block owns a tile of kOptionsPerThread * blockDim.x consecutive
// options; thread t takes options t, t + blockDim.x, ... of it (so for every k a warp reads 32
// consecutive elements of each array: coalesced), loads all of them, then prices them.
#include <cuda_runtime.h>

#include "black_scholes.hpp"
#include "course/check.hpp"

namespace black_scholes {

namespace {

constexpr int kOptionsPerThread = 4;

// __launch_bounds__(1024): any block size a user asks for must launch, so ptxas keeps the
// registers at or below 64 per thread (65,536 per SM / 1,024 threads).
template <class T, int kPerThread>
__global__ void __launch_bounds__(1024)
    ilp_kernel(Arrays<T> a, std::size_t n, Coefficients<T> market) {
  const std::size_t base = static_cast<std::size_t>(blockIdx.x) * kPerThread * blockDim.x;
  T S[kPerThread], X[kPerThread], t[kPerThread];
#pragma unroll
  for (int k = 0; k < kPerThread; ++k) {  // all 3 * kPerThread loads first
    const std::size_t i = base + k * blockDim.x + threadIdx.x;
    if (i < n) {
      S[k] = a.price[i];
      X[k] = a.strike[i];
      t[k] = a.years[i];
    }
  }
#pragma unroll
  for (int k = 0; k < kPerThread; ++k) {
    const std::size_t i = base + k * blockDim.x + threadIdx.x;
    if (i < n) {
      const Prices<T> p = price_classic<detail::DeviceMath>(S[k], X[k], t[k], market.rate, market.volatility);
      a.call[i] = p.call;
      a.put[i] = p.put;
    }
  }
}

}  // namespace

// Step 3 falls back to this launcher when its pointers are not 16-byte aligned.
template <class T>
void launch_ilp(const PricingArgs<T>& args, cudaStream_t stream) {
  if (args.count == 0) return;
  const int block = args.block_size > 0 ? args.block_size : kDefaultBlock;
  const std::size_t per_block = static_cast<std::size_t>(kOptionsPerThread) * block;
  const unsigned grid = checked_grid((args.count + per_block - 1) / per_block, "ilp_kernel");
  ilp_kernel<T, kOptionsPerThread><<<grid, block, 0, stream>>>(arrays_of(args), args.count, args.market);
  CUDA_CHECK_LAUNCH("ilp_kernel");
}

template void launch_ilp<float>(const PricingArgs<float>&, cudaStream_t);
template void launch_ilp<double>(const PricingArgs<double>&, cudaStream_t);

}  // namespace black_scholes
