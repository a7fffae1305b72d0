// Lesson 07, exercise 1 (solution): the digital call, e^(-rT) N(d2), one thread per option.
#include <cuda_runtime.h>

#include "course/check.hpp"
#include "exercises/exercises.hpp"

namespace black_scholes::exercises {

namespace {
__global__ void digital_kernel(DigitalArgs args) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= args.count) return;
  const float S = args.price[i], X = args.strike[i], years = args.years[i];
  const Coefficients<float> c = args.market;
  // [docs:digital_payoff]
  const float v_sqrt_t = c.volatility * sqrtf(years);
  const float d2 = (logf(S / X) + c.drift * years) / v_sqrt_t - v_sqrt_t;
  args.digital[i] = expf(-c.rate * years) * cnd_classic<detail::DeviceMath>(d2);
  // [docs:end digital_payoff]
}
}  // namespace

void launch_digital_solution(const DigitalArgs& args, cudaStream_t stream) {
  if (args.count == 0) return;
  const unsigned threads = 256;
  const auto blocks = static_cast<unsigned>((args.count + threads - 1) / threads);
  digital_kernel<<<blocks, threads, 0, stream>>>(args);
  CUDA_CHECK_LAUNCH("digital_kernel (solution)");
}

}  // namespace black_scholes::exercises
