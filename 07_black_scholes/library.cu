// Lesson 07 beside its kernels: the same pricing through Thrust, the library a C++ programmer
// would call instead of writing a kernel.
//
// Teaches: a kernel with three inputs and two outputs per element is still one transform. Zip
// iterators present the three arrays S, X, T as one sequence of tuples and the two outputs as
// one sequence to write (call, put) tuples into; the function object prices one option. Thrust
// (CUB's DeviceTransform underneath) picks the grid and the loads; the arithmetic is the headline
// kernel's (shared_exp, accurate math), so the two rows differ only in how memory is moved.
#include <cuda/functional>
#include <thrust/execution_policy.h>
#include <thrust/iterator/zip_iterator.h>
#include <thrust/transform.h>
#include <thrust/tuple.h>

#include "black_scholes.hpp"
#include "course/check.hpp"
#include "course/check_thrust.hpp"

namespace black_scholes {

namespace {

// One option's (S, X, T) in, its (call, put) out: the headline kernel's formula.
template <class T>
struct PriceOption {
  Coefficients<T> market;
  __device__ thrust::tuple<T, T> operator()(const thrust::tuple<T, T, T>& option) const {
    const Prices<T> p = price_shared_exp<detail::DeviceMath, T>(thrust::get<0>(option), thrust::get<1>(option),
                                                                thrust::get<2>(option), market);
    return thrust::make_tuple(p.call, p.put);
  }
};

}  // namespace

template <class T>
void thrust_price(const PricingArgs<T>& args, cudaStream_t stream) {
  if (args.count == 0) return;
  const auto options = thrust::make_zip_iterator(args.price, args.strike, args.years);
  const auto prices = thrust::make_zip_iterator(args.call, args.put);
  // par_nosync.on(stream): in the lesson's stream, no synchronization after the launch.
  // proclaim_copyable_arguments: the pricer reads its option by value, so Thrust may hand it
  // copies of the inputs (and choose the faster algorithm that stages them).
  THRUST_CHECK(thrust::transform(thrust::cuda::par_nosync.on(stream), options, options + args.count, prices,
                                 ::cuda::proclaim_copyable_arguments(PriceOption<T>{args.market})));
  CUDA_CHECK_LAUNCH("thrust::transform");
}

template void thrust_price<float>(const PricingArgs<float>&, cudaStream_t);
template void thrust_price<double>(const PricingArgs<double>&, cudaStream_t);

}  // namespace black_scholes
