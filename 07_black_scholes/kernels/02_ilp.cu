// Lesson 07, step 2: several options per thread, every load issued before the arithmetic.
//
// Teaches: a memory-bound kernel is fast when enough bytes are in flight. In step 1 each thread
// issues its 3 loads and then waits about a microsecond for DRAM before computing; at one option
// per thread, only the other resident warps hide that wait. Here each thread loads 4 options
// (12 independent loads, all in flight at once), then prices them: 4 times the bytes in flight per
// thread, and the long arithmetic of one option overlaps the loads of the others' warps. The grid
// still covers the options exactly once (no loop). The arithmetic is step 1's, unchanged.
#include "kernels/pricing.cuh"

namespace black_scholes {

template <class T>
void launch_ilp(const PricingArgs<T>& args, cudaStream_t stream) {
  detail::launch_ilp<T, detail::ClassicPricer<detail::DeviceMath>>(args, stream);
}

template void launch_ilp<float>(const PricingArgs<float>&, cudaStream_t);
template void launch_ilp<double>(const PricingArgs<double>&, cudaStream_t);

}  // namespace black_scholes
