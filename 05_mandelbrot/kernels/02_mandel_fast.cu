// Lesson 05, kernel 2: mandel_fast, the lesson's headline: fused arithmetic, the escape checked
// once every 8 iterations.
//
// Teaches: two changes to the classic kernel, each worth having on its own.
//  - Fused arithmetic: every product that meets a sum is an explicit fma (mandelbrot_iteration.hpp),
//    so nothing is left for a compiler to contract. IEEE-754 defines fma's result exactly, so CPU
//    and GPU compute the same bits and the same escape counts: the check is exact equality. The
//    step is also shorter: 3 FMAs and 1 add, where the natural form compiles to 6 or 7.
//  - Fewer checks: kFastBlock iterations run without a compare or a branch, then |z|^2 is checked
//    once; when z escaped within the block, the block is replayed one checked iteration at a time
//    (mandel_fused_blocked), so the count is still exactly the definition's.
#include "kernels/pixel_grid.cuh"

namespace mandelbrot {

namespace {

constexpr int kFastBlock = 8;  // iterations between two escape checks

template <class T>
__global__ void mandel_fast(std::uint32_t* __restrict__ counts, Frame<T> frame, int max_iters) {
  for_each_pixel(counts, frame,
                 [max_iters](T cx, T cy) { return mandel_fused_blocked<kFastBlock>(cx, cy, max_iters); });
}

}  // namespace

template <class T>
course::LaunchShape launch_mandel_fast(const RenderArgs<T>& args, cudaStream_t stream) {
  const course::LaunchShape launch = plan_launch(args.shape, args.frame.width, args.frame.height);
  mandel_fast<T><<<grid_of(launch), block_of(launch), 0, stream>>>(args.counts, args.frame, args.max_iters);
  CUDA_CHECK_LAUNCH("mandel_fast");
  return launch;
}

template course::LaunchShape launch_mandel_fast<float>(const RenderArgs<float>&, cudaStream_t);
template course::LaunchShape launch_mandel_fast<double>(const RenderArgs<double>&, cudaStream_t);

// FP instructions per iteration, read from the SASS of the loop on sm_90 (docs/05_mandelbrot.md):
// the step's 3 FMAs and 1 add, plus a multiply and an FMA for |z|^2 once per block of 8.
const KernelFacts facts_mandel_fast{.arithmetic = Arithmetic::fused, .fp_per_iteration = 4.0 + 2.0 / kFastBlock};

}  // namespace mandelbrot
