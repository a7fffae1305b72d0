// Lesson 07, exercise (find the bug, on a GPU): the digital call, four options per thread.
//
// Each thread prices four neighbouring options, 4i to 4i + 3, and loads their S, X and T as one
// float4 each (16 bytes: a quarter of the load instructions, as in the deep dive's "vectors per
// thread"). Every price it writes is right, for every count, and the test that compares them
// with the CPU passes. Yet for some counts the kernel touches memory the program does not own.
// compute-sanitizer's memcheck watches every access and reports the bad one. The check runs the
// test under it:
//   ./scripts/check_exercise.sh 07 vector_tail          (FAIL names what memcheck reported)
// Find the bad access and fix it. Hints: ./scripts/check_exercise.sh 07 vector_tail --hint
#include <cuda_runtime.h>

#include "course/check.hpp"
#include "exercises/exercises.hpp"

namespace black_scholes::exercises {

namespace {

__device__ float digital_price(float S, float X, float years, const Coefficients<float>& c) {
  const float v_sqrt_t = c.volatility * sqrtf(years);
  const float d2 = (logf(S / X) + c.drift * years) / v_sqrt_t - v_sqrt_t;
  return expf(-c.rate * years) * cnd_classic<detail::DeviceMath>(d2);
}

__global__ void digital_by_four(DigitalArgs args) {
  const std::size_t group = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::size_t first = 4 * group;
  if (first >= args.count) return;
  const float4 S = reinterpret_cast<const float4*>(args.price)[group];
  const float4 X = reinterpret_cast<const float4*>(args.strike)[group];
  const float4 T = reinterpret_cast<const float4*>(args.years)[group];
  const float prices[4] = {digital_price(S.x, X.x, T.x, args.market), digital_price(S.y, X.y, T.y, args.market),
                           digital_price(S.z, X.z, T.z, args.market), digital_price(S.w, X.w, T.w, args.market)};
  for (std::size_t k = 0; k < 4; ++k) {
    if (first + k < args.count) args.digital[first + k] = prices[k];  // only the options that exist
  }
}

}  // namespace

void launch_vector_tail_starter(const DigitalArgs& args, cudaStream_t stream) {
  if (args.count == 0) return;
  const unsigned threads = 256;
  const std::size_t groups = (args.count + 3) / 4;  // the last group may hold fewer than four
  const auto blocks = static_cast<unsigned>((groups + threads - 1) / threads);
  digital_by_four<<<blocks, threads, 0, stream>>>(args);
  CUDA_CHECK_LAUNCH("digital_by_four (starter)");
}

}  // namespace black_scholes::exercises
