// Lesson 05, kernel 3: mandel_fused, the step between the two: the classic's loop (the escape
// checked every iteration) with mandel_fast's fused arithmetic.
//
// Teaches: mandel_fast differs from mandel_classic in two ways at once, and this kernel takes only
// the first. Its counts are already exact (fused arithmetic: the CPU's definition, bit for bit);
// what it leaves out is skipping the checks. Side by side in the table, the three rows split
// mandel_fast's speed-up over the classic into what the shorter step gives (3 FMAs and an add
// instead of 7 FP instructions) and what checking once every 8 iterations gives (2 FP
// instructions, a compare and a branch per iteration saved on 7 iterations out of 8).
#include "kernels/pixel_grid.cuh"

namespace mandelbrot {

namespace {

template <class T>
__global__ void mandel_fused(std::uint32_t* __restrict__ counts, Frame<T> frame, int max_iters) {
  for_each_pixel(counts, frame, [max_iters](T cx, T cy) { return escape_count<Fused<T>>(cx, cy, max_iters); });
}

}  // namespace

template <class T>
course::LaunchShape launch_mandel_fused(const RenderArgs<T>& args, cudaStream_t stream) {
  const course::LaunchShape launch = plan_launch(args.shape, args.frame.width, args.frame.height);
  mandel_fused<T><<<grid_of(launch), block_of(launch), 0, stream>>>(args.counts, args.frame, args.max_iters);
  CUDA_CHECK_LAUNCH("mandel_fused");
  return launch;
}

template course::LaunchShape launch_mandel_fused<float>(const RenderArgs<float>&, cudaStream_t);
template course::LaunchShape launch_mandel_fused<double>(const RenderArgs<double>&, cudaStream_t);

// FP instructions per iteration, from the source, where every one is explicit: the step's 3 FMAs
// and 1 add (Fused::step), and the check's multiply and FMA (|z|^2 = fma(x, x, y * y)) every
// iteration. The PTX of the loop (nvcc -ptx, sm_90) has these 6 and a neg.f32 for -y, which the
// SASS folds into the FMA's operand, as it does in mandel_fast's step.
const KernelFacts facts_mandel_fused{.arithmetic = Arithmetic::fused, .fp_per_iteration = 6.0};

}  // namespace mandelbrot
