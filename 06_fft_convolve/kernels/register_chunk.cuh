// The inner loop of the register-blocked direct kernels (06 direct_blocked, 07 separable_blocked):
// one filter row applied to kOutputs neighbouring outputs of one image row, from registers.
//
// acc[p] += sum over j < K of taps[j] * line[p + j]   for p < kOutputs
//
// The taps are walked in chunks of 8 that the compiler unrolls completely (compile-time trip
// counts: the values stay in registers), then the last K mod 8 taps in one chunk of exactly that
// many (a switch over 7 compiled sizes), so any K runs exactly K multiply-adds per output, with
// no slow generic loop. `line` is 16-byte aligned and readable up to kOutputs + K + 2 floats.
#pragma once

#include <cuda_runtime.h>

namespace fft_convolve::detail {

// kTaps taps of one filter row for kOutputs outputs: the kOutputs + kTaps - 1 pixels they need
// come in as float4 (one shared load feeds up to 4 x kTaps FMAs), each tap is read once (a
// constant-cache broadcast when `taps` is in constant memory) and used kOutputs times.
// [docs:blocked_chunk]
template <int kOutputs, int kTaps>
__device__ __forceinline__ void accumulate_chunk(const float* __restrict__ line, const float* taps, float (&acc)[kOutputs]) {
  constexpr int kValues = (kOutputs + kTaps - 1 + 3) / 4 * 4;  // the pixels needed, whole float4s
  float v[kValues];
#pragma unroll
  for (int e = 0; e < kValues / 4; ++e) {
    const float4 four = reinterpret_cast<const float4*>(line)[e];
    v[4 * e] = four.x;
    v[4 * e + 1] = four.y;
    v[4 * e + 2] = four.z;
    v[4 * e + 3] = four.w;
  }
#pragma unroll
  for (int j = 0; j < kTaps; ++j) {
    const float w = taps[j];
#pragma unroll
    for (int p = 0; p < kOutputs; ++p) acc[p] = fmaf(w, v[p + j], acc[p]);
  }
}
// [docs:end blocked_chunk]

// A whole filter row of k taps: chunks of 8, then the remainder.
// [docs:blocked_row]
template <int kOutputs>
__device__ __forceinline__ void accumulate_row(const float* __restrict__ line, const float* taps, int k,
                                               float (&acc)[kOutputs]) {
  int j = 0;
  for (; j + 8 <= k; j += 8) accumulate_chunk<kOutputs, 8>(line + j, taps + j, acc);
  switch (k - j) {
    case 1: accumulate_chunk<kOutputs, 1>(line + j, taps + j, acc); break;
    case 2: accumulate_chunk<kOutputs, 2>(line + j, taps + j, acc); break;
    case 3: accumulate_chunk<kOutputs, 3>(line + j, taps + j, acc); break;
    case 4: accumulate_chunk<kOutputs, 4>(line + j, taps + j, acc); break;
    case 5: accumulate_chunk<kOutputs, 5>(line + j, taps + j, acc); break;
    case 6: accumulate_chunk<kOutputs, 6>(line + j, taps + j, acc); break;
    case 7: accumulate_chunk<kOutputs, 7>(line + j, taps + j, acc); break;
    default: break;
  }
}
// [docs:end blocked_row]

}  // namespace fft_convolve::detail
