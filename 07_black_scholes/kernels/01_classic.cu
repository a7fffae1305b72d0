// Lesson 07, step 1: one thread per option, the formula as the classic wrote it.
//
// Teaches: mapping a formula onto threads. Thread i reads option i's three inputs (price, strike,
// years: one array each, so the 32 threads of a warp read 32 neighbouring elements of each),
// evaluates the formula in registers, and writes option i's call and put. Nothing is shared
// between threads, so nothing needs synchronising; the only care is the bounds check, since the
// grid is rounded up to whole blocks. The classic launched blocks of 1024 threads (--classic).
#include <cuda_runtime.h>

#include "black_scholes.hpp"
#include "course/check.hpp"

namespace black_scholes {

namespace {

// [docs:classic_kernel]
template <class T>
__global__ void classic_kernel(const T* __restrict__ price, const T* __restrict__ strike,
                               const T* __restrict__ years, T* __restrict__ call, T* __restrict__ put,
                               std::size_t n, T rate, T volatility) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) {
    const Prices<T> p = price_classic<detail::DeviceMath>(price[i], strike[i], years[i], rate, volatility);
    call[i] = p.call;
    put[i] = p.put;
  }
}
// [docs:end classic_kernel]

}  // namespace

template <class T>
void launch_classic(const PricingArgs<T>& args, cudaStream_t stream) {
  if (args.count == 0) return;
  const int block = args.block_size > 0 ? args.block_size : kDefaultBlock;
  const unsigned grid = checked_grid((args.count + block - 1) / block, "classic_kernel");
  classic_kernel<T><<<grid, block, 0, stream>>>(args.price, args.strike, args.years, args.call, args.put,
                                                args.count, args.market.rate, args.market.volatility);
  CUDA_CHECK_LAUNCH("classic_kernel");
}

template void launch_classic<float>(const PricingArgs<float>&, cudaStream_t);
template void launch_classic<double>(const PricingArgs<double>&, cudaStream_t);

}  // namespace black_scholes
