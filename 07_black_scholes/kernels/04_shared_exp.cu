// Lesson 07, step 4: less arithmetic per option (price_shared_exp in formula.hpp).
//
// Teaches: when the memory side is as fast as it gets, what is left is the arithmetic, and in
// double it decides: an H100 runs FP64 at half the FP32 rate, and one option in double costs
// about as many FP64 instructions as the memory system's rate leaves it (docs, section 8). This
// step keeps step 3's memory pattern and changes the formula only:
//  - one exponential fewer: exp(-d2^2 / 2) is not computed, since S phi(d1) = X e^(-rT) phi(d2);
//  - one reciprocal square root instead of a square root and a division;
//  - each CND kept as its tail, so the put needs no 1 - (1 - tail): no cancellation.
#include "kernels/pricing.cuh"

namespace black_scholes {

template <class T>
void launch_shared_exp(const PricingArgs<T>& args, cudaStream_t stream) {
  detail::launch_vector<T, detail::SharedExpPricer<detail::DeviceMath>>(args, stream);
}

template void launch_shared_exp<float>(const PricingArgs<float>&, cudaStream_t);
template void launch_shared_exp<double>(const PricingArgs<double>&, cudaStream_t);

}  // namespace black_scholes
