// Lesson 05, kernel 1: mandel_classic, the classic's kernel: mandel() for every pixel.
//
// Teaches: the definition as anyone first writes it, z = z^2 + c with plain operators and the
// escape checked every iteration ("natural" arithmetic, mandelbrot_iteration.hpp). nvcc contracts
// some of its products and sums into fused multiply-adds and g++ (-ffp-contract=off) does not, so
// the same source rounds differently on the two sides: near the set's boundary a few pixels may
// escape one iteration earlier or later than on the CPU. Its counts are therefore held against the
// CPU's natural arithmetic with a bounded fraction of pixels allowed to differ.
#include "kernels/pixel_grid.cuh"

namespace mandelbrot {

namespace {

// [docs:kernel]
template <class T>
__global__ void mandel_classic(std::uint32_t* __restrict__ counts, Frame<T> frame, int max_iters) {
  for_each_pixel(counts, frame, [max_iters](T cx, T cy) { return mandel(cx, cy, max_iters); });
}
// [docs:end kernel]

}  // namespace

template <class T>
course::LaunchShape launch_mandel_classic(const RenderArgs<T>& args, cudaStream_t stream) {
  const course::LaunchShape launch = plan_launch(args.shape, args.frame.width, args.frame.height);
  mandel_classic<T><<<grid_of(launch), block_of(launch), 0, stream>>>(args.counts, args.frame, args.max_iters);
  CUDA_CHECK_LAUNCH("mandel_classic");
  return launch;
}

template course::LaunchShape launch_mandel_classic<float>(const RenderArgs<float>&, cudaStream_t);
template course::LaunchShape launch_mandel_classic<double>(const RenderArgs<double>&, cudaStream_t);

// FP instructions per iteration, read from the SASS of the loop on sm_90 (docs/05_mandelbrot.md):
// 2 multiplies, 4 adds and 1 FMA (nvcc contracted only 2xy + cy). Compares, branches and the
// counter come on top.
const KernelFacts facts_mandel_classic{.arithmetic = Arithmetic::natural, .fp_per_iteration = 7.0};

}  // namespace mandelbrot
