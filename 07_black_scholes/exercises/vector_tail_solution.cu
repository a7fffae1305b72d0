// Lesson 07, find-the-bug exercise vector_tail, solution: whole groups as float4, the tail one by one.
//
// When the count is not a multiple of four, the last group's float4 loads read up to 12 bytes
// past the end of price, strike and years: the writes were guarded, the loads were not. A guard
// cannot go inside a float4 load, so the kernel splits the work: a thread whose four options all
// exist loads them as float4s; the thread of the last, partial group loads its options one float
// at a time. (Arrays that may start off a 16-byte boundary also need a scalar head: lesson 02's
// deep dive, "Alignment, head and tail"; the course's buffers start on one.)
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

__global__ void digital_by_four_checked(DigitalArgs args) {
  const std::size_t group = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::size_t first = 4 * group;
  if (first >= args.count) return;
  if (first + 4 <= args.count) {  // a whole group: three 16-byte loads
    const float4 S = reinterpret_cast<const float4*>(args.price)[group];
    const float4 X = reinterpret_cast<const float4*>(args.strike)[group];
    const float4 T = reinterpret_cast<const float4*>(args.years)[group];
    float4 out;
    out.x = digital_price(S.x, X.x, T.x, args.market);
    out.y = digital_price(S.y, X.y, T.y, args.market);
    out.z = digital_price(S.z, X.z, T.z, args.market);
    out.w = digital_price(S.w, X.w, T.w, args.market);
    reinterpret_cast<float4*>(args.digital)[group] = out;
    return;
  }
  for (std::size_t i = first; i < args.count; ++i) {  // the tail: one to three options
    args.digital[i] = digital_price(args.price[i], args.strike[i], args.years[i], args.market);
  }
}

}  // namespace

void launch_vector_tail_solution(const DigitalArgs& args, cudaStream_t stream) {
  if (args.count == 0) return;
  const unsigned threads = 256;
  const std::size_t groups = (args.count + 3) / 4;
  const auto blocks = static_cast<unsigned>((groups + threads - 1) / threads);
  digital_by_four_checked<<<blocks, threads, 0, stream>>>(args);
  CUDA_CHECK_LAUNCH("digital_by_four_checked (solution)");
}

}  // namespace black_scholes::exercises
