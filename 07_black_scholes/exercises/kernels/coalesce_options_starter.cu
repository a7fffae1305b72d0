// Exercise "coalesce_options" (make it fast), the starter: every option priced right, slowly.
//
// Each thread prices a run of kRun neighbouring options, one after the other, like a CPU core
// walking through its share of the arrays. On a GPU the 32 threads of a warp issue each load
// together: at every step they ask for 32 prices (and strikes, and years) that lie kRun * 4 =
// 128 bytes apart, one memory sector per thread for 4 useful bytes, and they store the calls
// and puts the same way. The memory system moves several times what the kernel uses.
//
// Goal (float, the lesson's default options): at least 75% of the device copy, the d2d_copy
// ceiling the same run measures, as
//   ./scripts/check_exercise.sh 07 coalesce_options
// reports. Keep the launcher's name and signature and the formula (price_classic with the
// accurate math): the check verifies every call and put like every row of the lesson.
// Hints: ./scripts/check_exercise.sh 07 coalesce_options --hint
#include <cuda_runtime.h>

#include "black_scholes.hpp"
#include "course/check.hpp"
#include "formula.hpp"

namespace black_scholes {

namespace {

constexpr std::size_t kRun = 32;  // options per thread, one after another

template <class T>
__global__ void coalesce_options_starter(const T* __restrict__ price, const T* __restrict__ strike,
                                         const T* __restrict__ years, T* __restrict__ call, T* __restrict__ put,
                                         std::size_t n, T rate, T volatility) {
  const std::size_t thread = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::size_t first = thread * kRun;
  const std::size_t last = first + kRun < n ? first + kRun : n;
  for (std::size_t i = first; i < last; ++i) {
    const Prices<T> p = price_classic<detail::DeviceMath>(price[i], strike[i], years[i], rate, volatility);
    call[i] = p.call;
    put[i] = p.put;
  }
}

}  // namespace

template <class T>
void launch_exercise_coalesce_options(const PricingArgs<T>& args, cudaStream_t stream) {
  if (args.count == 0) return;
  const int block = args.block_size > 0 ? args.block_size : kDefaultBlock;
  const std::size_t threads = (args.count + kRun - 1) / kRun;
  const unsigned grid = checked_grid((threads + block - 1) / block, "coalesce_options_starter");
  coalesce_options_starter<T><<<grid, block, 0, stream>>>(args.price, args.strike, args.years, args.call, args.put,
                                                          args.count, args.market.rate, args.market.volatility);
  CUDA_CHECK_LAUNCH("coalesce_options_starter");
}

template void launch_exercise_coalesce_options<float>(const PricingArgs<float>&, cudaStream_t);
template void launch_exercise_coalesce_options<double>(const PricingArgs<double>&, cudaStream_t);

}  // namespace black_scholes
