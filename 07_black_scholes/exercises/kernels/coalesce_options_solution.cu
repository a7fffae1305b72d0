// Exercise "coalesce_options" (make it fast), a solution: the starter's formula, with the
// threads of a warp on neighbouring options.
//
// What changed from the starter: who prices which option. A block owns a tile of
// kPerThread * blockDim.x neighbouring options and thread t takes options t, t + blockDim.x,
// ... of it, so at every step a warp reads 32 neighbouring prices (one 128-byte line) and every
// byte moved is used. Each thread loads all its inputs before the first formula, so kPerThread
// options' loads are in flight together (step 2's idea). One thread per option, as step 1
// (classic) does, already meets the goal; the loads in flight add a little.
#include <cuda_runtime.h>

#include "black_scholes.hpp"
#include "course/check.hpp"
#include "formula.hpp"

namespace black_scholes {

namespace {

constexpr int kPerThread = 4;

template <class T>
__global__ void coalesce_options_solution(const T* __restrict__ price, const T* __restrict__ strike,
                                          const T* __restrict__ years, T* __restrict__ call, T* __restrict__ put,
                                          std::size_t n, T rate, T volatility) {
  const std::size_t base = static_cast<std::size_t>(blockIdx.x) * kPerThread * blockDim.x + threadIdx.x;
  if (base + (kPerThread - 1) * static_cast<std::size_t>(blockDim.x) < n) {
    T s[kPerThread], x[kPerThread], t[kPerThread];
#pragma unroll
    for (int k = 0; k < kPerThread; ++k) {
      const std::size_t i = base + static_cast<std::size_t>(k) * blockDim.x;
      s[k] = price[i];
      x[k] = strike[i];
      t[k] = years[i];
    }
#pragma unroll
    for (int k = 0; k < kPerThread; ++k) {
      const std::size_t i = base + static_cast<std::size_t>(k) * blockDim.x;
      const Prices<T> p = price_classic<detail::DeviceMath>(s[k], x[k], t[k], rate, volatility);
      call[i] = p.call;
      put[i] = p.put;
    }
  } else {
    // The last, partial tile: each option checked.
    for (int k = 0; k < kPerThread; ++k) {
      const std::size_t i = base + static_cast<std::size_t>(k) * blockDim.x;
      if (i < n) {
        const Prices<T> p = price_classic<detail::DeviceMath>(price[i], strike[i], years[i], rate, volatility);
        call[i] = p.call;
        put[i] = p.put;
      }
    }
  }
}

}  // namespace

template <class T>
void launch_exercise_coalesce_options_solution(const PricingArgs<T>& args, cudaStream_t stream) {
  if (args.count == 0) return;
  const int block = args.block_size > 0 ? args.block_size : kDefaultBlock;
  const std::size_t per_block = static_cast<std::size_t>(kPerThread) * static_cast<std::size_t>(block);
  const unsigned grid = checked_grid((args.count + per_block - 1) / per_block, "coalesce_options_solution");
  coalesce_options_solution<T><<<grid, block, 0, stream>>>(args.price, args.strike, args.years, args.call, args.put,
                                                           args.count, args.market.rate, args.market.volatility);
  CUDA_CHECK_LAUNCH("coalesce_options_solution");
}

template void launch_exercise_coalesce_options_solution<float>(const PricingArgs<float>&, cudaStream_t);
template void launch_exercise_coalesce_options_solution<double>(const PricingArgs<double>&, cudaStream_t);

}  // namespace black_scholes
