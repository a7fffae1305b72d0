// Lesson 07, step 3: 16-byte loads and stores, and a block size promised to the compiler.
//
// Teaches: one float4 (double2) load moves 4 (2) options' worth of one array with one
// instruction, so the load/store and index instructions shrink by 4x (2x), and each thread keeps
// 3 x 2 x 16 = 96 bytes in flight. The block size is fixed (256) and declared with
// __launch_bounds__(256, 4): ptxas then keeps the registers at or below 64 per thread, so that 4
// blocks (1,024 threads) fit on an SM, instead of spending registers on a schedule that lowers
// occupancy. Pointers that are not 16-byte aligned take step 2's kernel instead. The arithmetic
// is still step 1's.
#include "kernels/pricing.cuh"

namespace black_scholes {

template <class T>
void launch_vector(const PricingArgs<T>& args, cudaStream_t stream) {
  detail::launch_vector<T, detail::ClassicPricer<detail::DeviceMath>>(args, stream);
}

template void launch_vector<float>(const PricingArgs<float>&, cudaStream_t);
template void launch_vector<double>(const PricingArgs<double>&, cudaStream_t);

}  // namespace black_scholes
