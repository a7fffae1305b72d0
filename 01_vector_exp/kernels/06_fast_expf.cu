// Lesson 01, step 6: __expf, the hardware approximation.
//
// Teaches: expf is accurate to 2 ulp and costs a dozen instructions; __expf is one
// special-function-unit instruction (ex2.approx after a multiply) whose error grows with |x|
// (2 + floor(1.173 |x|) ulp). In a memory-bound kernel the saving buys no time at all: the
// table shows both at the copy's speed. The intrinsic pays only where arithmetic is the
// bottleneck, and only where its error is acceptable.
#include "kernels/grid_stride_ilp.cuh"

namespace vector_exp {

course::LaunchShape launch_fast_expf(const float* x, float* y, std::size_t n, const LaunchConfig& config,
                                     cudaStream_t stream) {
  return detail::launch_ilp<true>(x, y, n, config, stream);
}

}  // namespace vector_exp
