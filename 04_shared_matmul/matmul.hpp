// Lesson 04: C = A x B in single precision (FP32, SGEMM), from the naive kernel to cuBLAS speed.
//
// This header is the lesson's API, shared by main.cpp, the tests and the tuning benchmark: the
// CPU versions and references (matmul_cpu.cpp), the verification of a product
// (matmul_verify.cpp), and one launcher per kernel (kernels/NN_name.cu), all with the same
// signature, listed in kernels/registry.inc (the table: below). It is light on
// purpose, since every kernel file includes it: the CUDA runtime's declarations and light course
// headers only (no CLI11, no JSON).
//
// Layout everywhere: row-major, densely packed. A is M x K (element (i, p) at a[i * K + p]),
// B is K x N, C is M x N. Every kernel and CPU function accepts any M, N, K >= 1.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "course/kernel_registry.hpp"
#include "course/verify.hpp"

namespace matmul {

// What every launcher receives: the shape and three device pointers.
struct MatmulArgs {
  int m = 0, n = 0, k = 0;
  const float* a = nullptr;  // M x K
  const float* b = nullptr;  // K x N
  float* c = nullptr;        // M x N, written entirely (no beta: C = A x B)
};

// Floating-point operations of one product: K multiplies and K adds per element of C.
inline double matmul_flops(std::int64_t m, std::int64_t n, std::int64_t k) {
  return 2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);
}

// A product's shape, as main, the sweep, the tuning benchmark and the tests take it.
struct Shape {
  int m = 0, n = 0, k = 0;
  std::size_t a_count() const { return static_cast<std::size_t>(m) * static_cast<std::size_t>(k); }
  std::size_t b_count() const { return static_cast<std::size_t>(k) * static_cast<std::size_t>(n); }
  std::size_t c_count() const { return static_cast<std::size_t>(m) * static_cast<std::size_t>(n); }
  double flops() const { return matmul_flops(m, n, k); }
  std::string text() const { return std::to_string(m) + " x " + std::to_string(n) + " x " + std::to_string(k); }
};

// ---- GPU: the registry ---------------------------------------------------------------------
// One declaration per line of kernels/registry.inc: void launch_naive(const MatmulArgs&, cudaStream_t); ...
// Each launcher enqueues its kernel in `stream` and checks the launch (course::ApiError on failure).
#define COURSE_KERNEL(name, summary, ...) void launch_##name(const MatmulArgs& args, cudaStream_t stream);
#include "kernels/registry.inc"
#include "exercises/registry.inc"
#undef COURSE_KERNEL

using Launcher = void (*)(const MatmulArgs&, cudaStream_t);

// Other tile shapes and pipeline depths of kernels 06 to 09 and 11, for the tuning benchmark
// (matmul_tune) and the exercises: the registry holds the configuration each kernel ships with;
// these are its neighbours, measured to justify that choice. Each list is defined in its
// kernel's file.
namespace tuning {
struct TileConfig {  // one tile shape of a kernel, for matmul_tune (not a row: course::Variant is)
  std::string_view name;  // "cp_async 128x128x16 s3 w64x32"
  Launcher launch;
};
std::span<const TileConfig> warp_tiled_configs();       // kernels/06_warp_tiled.cu
std::span<const TileConfig> double_buffered_configs();  // kernels/07_double_buffered.cu
std::span<const TileConfig> cp_async_configs();         // kernels/08_cp_async.cu
std::span<const TileConfig> cp_async_16b_configs();     // kernels/09_cp_async_16b.cu
std::span<const TileConfig> wide_thread_configs();      // kernels/11_wide_thread.cu
}  // namespace tuning

// The registry: every kernel above, in the order of the progression, with its traits;
// kernels() is the table, kernel(name) one entry (std::out_of_range if there is none).
inline constexpr course::KernelEntry<Launcher> kKernelTable[] = {
#define COURSE_KERNEL COURSE_KERNEL_ENTRY
#include "kernels/registry.inc"
#include "exercises/registry.inc"  // the "make it fast" exercise: runs only when --kernel names it
#undef COURSE_KERNEL
};
COURSE_KERNEL_ACCESSORS(Launcher, kKernelTable)

// ---- What every kernel file uses -------------------------------------------------------------
namespace detail {

// Blocks needed to cover n items, b per block.
__host__ __device__ inline int ceil_div(int a, int b) { return (a + b - 1) / b; }

// A float4 access must be 16-byte aligned. A row of A starts at a + i * K, so float4 loads of A
// need K % 4 == 0 (and B's, C's need N % 4 == 0) besides aligned base pointers; a kernel that
// assumes it silently breaks (misaligned address error) at K = 513. The kernels from 05 on are
// templates on kVec4, and their launchers pick the float4 version only where this says it is legal.
inline bool aligned16(const void* pointer) { return reinterpret_cast<std::uintptr_t>(pointer) % 16 == 0; }
inline bool float4_ok(const MatmulArgs& args) {
  return args.k % 4 == 0 && args.n % 4 == 0 && aligned16(args.a) && aligned16(args.b) && aligned16(args.c);
}

#ifdef __CUDACC__
// 64-bit offset of element (row, col) in a row-major matrix with `cols` columns: 32-bit
// arithmetic would overflow beyond 2^31 elements (a 46341 x 46341 matrix).
__device__ __forceinline__ std::size_t at(int row, int col, int cols) {
  return static_cast<std::size_t>(row) * static_cast<std::size_t>(cols) + static_cast<std::size_t>(col);
}
#endif

}  // namespace detail

// Kernel 12's table (kernels/12_split_k.cu): what runs an m x n x k product on a GPU of `sms`
// SMs. kWideThread: kernel 11 (enough 128 x 128 tiles); else kTiles128 or kTiles64 with each
// tile's k-steps cut into `splits` slices (1: none).
struct SplitKPlan {
  enum Kind { kWideThread, kTiles128, kTiles64 } kind = kWideThread;
  int tile = 128;
  int splits = 1;
};
SplitKPlan plan_split_k(int m, int n, int k, int sms);

// ---- CPU -----------------------------------------------------------------------------------
// All take row-major A (m x k), B (k x n) and write all of C (m x n).

// The three loops as written in a textbook, one thread: the teaching row. Slow (B is read down
// its columns); main refuses it above kNaiveMaxFlops.
void matmul_naive(std::span<const float> a, std::span<const float> b, std::span<float> c, int m, int n, int k);
inline constexpr double kNaiveMaxFlops = 4.3e10;  // 2 * 2800^3: about a minute at ~0.7 GFLOP/s

// Cache-blocked, OpenMP over rows of blocks, the innermost loop vectorised (omp simd): the
// teaching row for what tiling does on a CPU.
void matmul_blocked(std::span<const float> a, std::span<const float> b, std::span<float> c, int m, int n, int k);

// OpenBLAS cblas_sgemm on every core: the CPU row the GPU is compared with.
void matmul_openblas(std::span<const float> a, std::span<const float> b, std::span<float> c, int m, int n, int k);

// OpenBLAS itself (openblas.cpp), loaded on first use with the kernel set ("core") chosen from
// the CPU's features: row-major C = A x B with no transposes, and its settings.
void openblas_sgemm(int m, int n, int k, const float* a, const float* b, float* c);
void openblas_dgemm(int m, int n, int k, const double* a, const double* b, double* c);
void set_openblas_threads(int threads);
int openblas_threads();
std::string_view openblas_core();         // e.g. "SkylakeX"
std::string_view openblas_description();  // its configuration, the core, and how the core was chosen

// ---- Verification --------------------------------------------------------------------------
// The reference, in double from the same float inputs (OpenBLAS dgemm), with what the error
// bound needs: |A| x |B| (elementwise absolute values), also in double.
struct Reference {
  std::vector<double> c;      // A x B
  std::vector<double> abs_c;  // |A| x |B|
  int k = 0;
};
Reference reference_product(std::span<const float> a, std::span<const float> b, int m, int n, int k);

// How far a correct FP32 product may be from the exact one, for inner dimension k:
//  - every element: |c - ref| <= gamma(k) * (|A| |B|)_ij, gamma(k) = k u / (1 - k u), u = 2^-24
//    (the classic bound for a sum of k products in any order, FMA or not);
//  - the whole matrix: ||c - ref||_2 / ||ref||_2 <= sqrt(k) * u * kNormFactor (what random
//    rounding errors add up to; a systematic error, like TF32's 10-bit mantissa, breaks it).
inline constexpr double kNormFactor = 8.0;
double gamma_bound(int k);
double rel_l2_bound(int k);

// Both checks above; NaN, infinity and never-written (poisoned) elements fail.
course::VerifyResult verify_product(std::span<const float> c, const Reference& reference);

// Exact check: for small-integer inputs every partial sum is an integer below 2^24, so every
// correct kernel returns exactly the integer product.
course::VerifyResult verify_exact(std::span<const float> c, std::span<const double> expected);

// When a result fails against the reference, which of the two is wrong? A third computation,
// independent of both (one thread, the textbook loop in double, no BLAS), recomputes the
// elements that failed (or, when only the norm failed, elements spread over C), at most
// `max_elements` of them, and holds each side to it: the result within gamma(K) (|A||B|)_ij, the
// reference within the double-precision bound.
struct Arbitration {
  std::size_t recomputed = 0;        // elements the third computation recomputed
  std::size_t failing = 0;           // elements that failed against the reference (all of them)
  std::size_t result_wrong = 0;      // recomputed elements where the result disagrees with it
  std::size_t reference_wrong = 0;   // recomputed elements where the reference disagrees with it
  std::size_t first_result_wrong = 0, first_reference_wrong = 0;  // an example index of each
  std::string verdict() const;       // one line: which side is wrong, with the counts
};
Arbitration arbitrate(std::span<const float> a, std::span<const float> b, int m, int n, int k,
                      std::span<const float> result, const Reference& reference, std::size_t max_elements = 4096);

}  // namespace matmul
