// cuBLAS SGEMM as a measured ceiling: what NVIDIA's library reaches on this GPU, in this run.
//
// Teaches:
//  - cuBLAS is column-major. A row-major C = A x B is the column-major C^T = B^T x A^T, and a
//    row-major matrix read as column-major is its transpose: so call sgemm with B first, A
//    second, and the dimensions (n, m, k). No copy, no transpose kernel.
//  - FP32 means FP32: on GPUs with tensor cores, cuBLAS may be allowed to use TF32 (a 10-bit
//    mantissa) for "FP32" GEMMs (NVIDIA_TF32_OVERRIDE, CUBLAS_TF32_TENSOR_OP_MATH, or a framework
//    default). That runs several times faster and is less accurate, so it is not a fair
//    ceiling for FP32 CUDA-core kernels. CUBLAS_PEDANTIC_MATH forbids it (and any other
//    reduced-precision shortcut), whatever the environment says.
//
// Link course::cublas_ceiling to use it.
//
//   course::CublasHandle handle;                                  // pedantic FP32, bound to a stream
//   course::sgemm_row_major(handle, m, n, k, d_a, d_b, d_c, stream);
//   const course::Ceiling ceiling = course::measure_cublas_sgemm(m, n, k, repeat);  // GFLOP/s
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <utility>

#include "course/ceilings.hpp"
#include "course/timing.hpp"

namespace course {

// Owns a cuBLAS handle (RAII, move-only), created with CUBLAS_PEDANTIC_MATH: true FP32.
class CublasHandle {
 public:
  CublasHandle();
  ~CublasHandle();
  CublasHandle(CublasHandle&& other) noexcept : handle_(std::exchange(other.handle_, nullptr)) {}
  CublasHandle& operator=(CublasHandle&& other) noexcept;
  CublasHandle(const CublasHandle&) = delete;
  CublasHandle& operator=(const CublasHandle&) = delete;

  cublasHandle_t get() const { return handle_; }

 private:
  cublasHandle_t handle_ = nullptr;
};

// Row-major C (m x n) = A (m x k) x B (k x n), all densely packed, FP32, enqueued in `stream`.
void sgemm_row_major(const CublasHandle& handle, int m, int n, int k, const float* a, const float* b, float* c,
                     cudaStream_t stream);

// Times sgemm_row_major on random inputs of this shape: Ceiling "cublas_sgemm", in GFLOP/s
// (2 m n k / median time). Allocates its own A, B, C (throws if they do not fit).
// Timed as the lessons time their rows: with flush_l2, the L2 is flushed before each call, and
// the flush also keeps the GPU busy while the host enqueues the call. Without anything queued
// before it, the start event would fire at once and the interval would include cuBLAS's own host
// work (choosing and launching its kernel: microseconds), a large share of a small GEMM.
Ceiling measure_cublas_sgemm(int m, int n, int k, const RepeatOptions& options, bool flush_l2 = true);

}  // namespace course
