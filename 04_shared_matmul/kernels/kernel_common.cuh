// What the kernels of lesson 04 share: grid arithmetic, the alignment test that decides whether
// 16-byte (float4) accesses are allowed, and thin wrappers for cp.async.
//
// Teaches: a float4 access must be 16-byte aligned. A row of A starts at a + i * K, so float4
// loads of A need K % 4 == 0 (and B's, C's need N % 4 == 0) besides aligned base pointers; a
// kernel that assumes it silently breaks (misaligned address error) at K = 513. The kernels are
// templates on kVec4 and the launchers pick the float4 version only where it is legal.
// The docs marker comments below bracket what docs/04_shared_matmul.md quotes (test docs.quotes).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "matmul.hpp"

namespace matmul::detail {

__host__ __device__ inline int ceil_div(int a, int b) { return (a + b - 1) / b; }

inline bool aligned16(const void* pointer) { return reinterpret_cast<std::uintptr_t>(pointer) % 16 == 0; }

// float4 loads of A and B and float4 stores of C are legal for every row.
inline bool float4_ok(const MatmulArgs& args) {
  return args.k % 4 == 0 && args.n % 4 == 0 && aligned16(args.a) && aligned16(args.b) && aligned16(args.c);
}

// 64-bit offset of element (row, col) in a row-major matrix with `cols` columns: 32-bit
// arithmetic would overflow beyond 2^31 elements (a 46341 x 46341 matrix).
__device__ __forceinline__ std::size_t at(int row, int col, int cols) {
  return static_cast<std::size_t>(row) * static_cast<std::size_t>(cols) + static_cast<std::size_t>(col);
}

// ---- cp.async (sm_80 and newer) ----------------------------------------------------------------
// cp.async copies global memory straight into shared memory: no registers hold the data on the
// way, and the thread does not wait for it; cp.async.wait_group waits for groups of copies.
// With src_size = 0 nothing is read and the destination is filled with zeros: the edge tiles'
// padding comes for free. Older GPUs (sm_75) get an ordinary load and store, same results.
// [docs:cp_async_4]
__device__ __forceinline__ void cp_async_4(float* shared, const float* global, bool valid) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  const unsigned address = static_cast<unsigned>(__cvta_generic_to_shared(shared));
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(address), "l"(global), "r"(valid ? 4 : 0)
               : "memory");
#else
  *shared = valid ? *global : 0.0f;
#endif
}
// [docs:end cp_async_4]

__device__ __forceinline__ void cp_async_16(float* shared, const float* global, bool valid) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  const unsigned address = static_cast<unsigned>(__cvta_generic_to_shared(shared));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(address), "l"(global),
               "r"(valid ? 16 : 0)
               : "memory");
#else
  *reinterpret_cast<float4*>(shared) = valid ? *reinterpret_cast<const float4*>(global) : make_float4(0, 0, 0, 0);
#endif
}

__device__ __forceinline__ void cp_async_commit() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.commit_group;\n" ::: "memory");
#endif
}

// Waits until at most `kPending` committed groups are still in flight.
template <int kPending>
__device__ __forceinline__ void cp_async_wait() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.wait_group %0;\n" ::"n"(kPending) : "memory");
#endif
}

}  // namespace matmul::detail
