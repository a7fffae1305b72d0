// Lesson 07, step 5: the special-function unit's approximations, in float.
//
// Teaches: __expf, __logf and __fdividef are a few instructions each (the SFU's ex2 and lg2
// approximations and a reciprocal), where expf and logf are tens; their error is larger and, for
// __expf, grows with |x| (2 + 1.17 |x| ulp). Here the error it adds is measured against the long
// double reference and held to a looser bound (K = 64 instead of 16: the max_ulp trait in
// kernels/registry.inc). There are no such intrinsics for double: the lesson runs this kernel in
// float only (its precisions trait), and its double instantiation, which exists so that the
// registry's table links, refuses to run.
#include <stdexcept>
#include <type_traits>

#include "kernels/pricing.cuh"

namespace black_scholes {

template <class T>
void launch_fast_math(const PricingArgs<T>& args, cudaStream_t stream) {
  if constexpr (std::is_same_v<T, float>) {
    detail::launch_vector<float, detail::SharedExpPricer<detail::FastMath>>(args, stream);
  } else {
    (void)args;
    (void)stream;
    throw std::invalid_argument("fast_math: float only (CUDA has no fast double exp or log)");
  }
}

template void launch_fast_math<float>(const PricingArgs<float>&, cudaStream_t);
template void launch_fast_math<double>(const PricingArgs<double>&, cudaStream_t);

}  // namespace black_scholes
