// The asynchronous tile copies of the direct kernels 23, 25, 27 and 28: global to shared memory
// without passing through registers, so that a thread requests all of its tile's pixels before
// any arrives (step 20 introduces them, one pixel at a time).
#pragma once

#include <cuda_runtime.h>

namespace fft_convolve::detail {

// Asynchronous copies from global to shared memory (compute capability 8.0 and newer; before
// that an ordinary load and store). `source` must be a valid address even where nothing is read.
// 16 bytes (.cg: through L2 only, the tile is read once), of which `bytes` are read and the rest
// zero filled; `target` and `source` 16-byte aligned.
__device__ __forceinline__ void copy_four_async(float4* target, const float* source, int bytes) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  const unsigned address = static_cast<unsigned>(__cvta_generic_to_shared(target));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(address), "l"(source), "r"(bytes) : "memory");
#else
  float f[4];
  for (int i = 0; i < 4; ++i) f[i] = 4 * i < bytes ? source[i] : 0.0f;
  *target = make_float4(f[0], f[1], f[2], f[3]);
#endif
}
// One pixel, 0 when !inside: step 20's 4-byte copy.
__device__ __forceinline__ void copy_pixel_async(float* target, const float* source, bool inside) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  const unsigned address = static_cast<unsigned>(__cvta_generic_to_shared(target));
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(address), "l"(source), "r"(inside ? 4 : 0)
               : "memory");
#else
  *target = inside ? *source : 0.0f;
#endif
}
// Waits for this thread's asynchronous copies (a barrier after it makes everyone's visible).
__device__ __forceinline__ void wait_for_copies() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.wait_all;\n" ::: "memory");
#endif
}

}  // namespace fft_convolve::detail
