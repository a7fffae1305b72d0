// Lesson 07, exercise 1 (starter): the digital call, e^(-rT) N(d2), one thread per option.
//
// Fill in the kernel: find this thread's option, check it is inside the arrays, compute d2 as in
// price_classic (formula.hpp), and write e^(-rT) N(d2) with cnd_classic<detail::DeviceMath>.
// Hint: kernels/01_classic.cu is the shape; args.market has rate, volatility and the drift
// r + v^2 / 2 already computed. Check it with
//   ./scripts/check_exercise.sh 07 digital
// (PASS or FAIL with the reason; then compare with exercises/digital_solution.cu).
#include <cuda_runtime.h>

#include "course/check.hpp"
#include "exercises/exercises.hpp"

namespace black_scholes::exercises {

namespace {
__global__ void digital_kernel(DigitalArgs args) {
  // TODO: args.digital[i] = e^(-r T) N(d2) for the option i of this thread, if i < args.count.
  (void)args;
}
}  // namespace

void launch_digital_starter(const DigitalArgs& args, cudaStream_t stream) {
  if (args.count == 0) return;
  const unsigned threads = 256;
  const auto blocks = static_cast<unsigned>((args.count + threads - 1) / threads);
  digital_kernel<<<blocks, threads, 0, stream>>>(args);
  CUDA_CHECK_LAUNCH("digital_kernel (starter)");
}

}  // namespace black_scholes::exercises
