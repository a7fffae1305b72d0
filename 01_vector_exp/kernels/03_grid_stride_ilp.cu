// Lesson 01, step 3: several loads in flight per thread (instruction-level parallelism).
//
// Teaches: step 2's loop issues one load, waits about a microsecond for DRAM, computes, stores,
// and only then loads again. A GPU hides that latency with other warps, but at full occupancy
// there are not enough of them to cover it: loading --ilp elements first keeps --ilp times as
// many bytes in flight per thread. See grid_stride_ilp.cuh for the kernel.
#include "kernels/grid_stride_ilp.cuh"

namespace vector_exp {

course::LaunchShape launch_grid_stride_ilp(const float* x, float* y, std::size_t n, const LaunchConfig& config,
                                           cudaStream_t stream) {
  return detail::launch_ilp<false>(x, y, n, config, stream);
}

}  // namespace vector_exp
