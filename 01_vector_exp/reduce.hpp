// Lesson 01, part two (--op sum, --op max, --op softmax): from y = exp(x) to softmax.
//
//   softmax(x)_i = exp(x_i - m) / sum_j exp(x_j - m),   m = max_j x_j
//
// needs two reductions over the whole vector (a max and a sum) around the exp the lesson
// already has. This header is that part's API, shared by softmax_rows.cpp and the tests: the
// CPU reference (long double, pairwise), the bound on a float sum's error for each summation
// order, the CPU rows, the GPU kernels (kernels/08_ to 14_, listed in kernels/reduce_registry.inc
// and kernels/softmax_registry.inc) and the library calls (reduce_library.cu). Like
// vector_exp.hpp it is light: kernel files include it.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>

#include "course/kernel_registry.hpp"
#include "course/launch.hpp"
#include "course/verify.hpp"
#include "vector_exp.hpp"

namespace vector_exp {

// The two reductions softmax needs. A max is exact in any order; a float sum is not.
enum class Reduction { sum, max };
const char* reduction_name(Reduction op);  // "sum", "max"

// ---- Error bounds of a float sum (Higham, Accuracy and Stability of Numerical Algorithms, 4.2) ----
// Each float addition rounds once, with relative error at most u = 2^-24. A value that passes
// through d additions on its way to the result carries at most d of those errors, so
//   |computed - exact| <= gamma(d) * sum |x_i|,   gamma(d) = d u / (1 - d u),
// where d is the DEPTH of the summation order, the longest chain of additions:
//   recursive (s += x[i], one thread)    d = n - 1        (useless once n u nears 1: n ~ 2^24)
//   pairwise (halve, sum the halves)     d = ceil(log2 n)
//   a GPU tree: each thread's own loop of k values, then the block's tree, then the blocks'
//   d = k + ceil(log2 threads) + (the combine's own loop and tree): a few dozen at 2^28.
inline constexpr double kUnitRoundoff = 0x1p-24;
double gamma(double depth);               // +inf when depth * u >= 1 (the bound says nothing)
int ceil_log2(std::size_t n);             // 0 for n <= 1
double sum_error_bound(double depth, double sum_abs);  // gamma(depth) sum|x|, gamma capped at 1
// The depth of a grid's order: `per_thread` values summed in one thread, a tree over `threads`
// per block, `blocks` partial results combined by `combine_threads` threads (loop, then tree).
double grid_sum_depth(double per_thread, int threads, long long blocks, int combine_threads);

// ---- CPU reference and rows (reduce_cpu.cpp) ----
struct SumReference {
  long double sum = 0;      // pairwise in long double (64-bit significand): exact to ~1e-19 relative
  long double sum_abs = 0;  // sum |x_i|, for the error bounds
  float max = 0;            // exact
};
SumReference sum_reference(std::span<const float> x);
long double pairwise_sum_long(std::span<const float> x);

// softmax in long double: m = max x, S = sum exp(x - m) (pairwise), y_i = exp(x_i - m) / S,
// computed block by block while verifying.
course::ReferenceBlock softmax_reference(std::span<const float> x, const SumReference& reference);

// The teaching loop: s += x[i] in float, one thread, the order of the source (depth n - 1).
float sum_naive(std::span<const float> x);
// Pairwise over blocks of kPairwiseBlock floats, each block in 16 independent lanes (SIMD), one
// thread; and the same over all cores (equal slices, their results combined pairwise).
inline constexpr std::size_t kPairwiseBlock = 256;
float sum_pairwise_simd(std::span<const float> x);
float sum_pairwise_parallel(std::span<const float> x);
double pairwise_depth(std::size_t n);           // sum_pairwise_simd's order
double pairwise_parallel_depth(std::size_t n);  // sum_pairwise_parallel's, with the threads in effect
float max_naive(std::span<const float> x);
float max_simd(std::span<const float> x);
float max_parallel(std::span<const float> x);

// softmax on the CPU: three passes of std::exp (the teaching loop), and the SIMD rows (libmvec
// expf in cache-sized chunks, the chunk's sum pairwise), one thread and all cores.
void softmax_naive(std::span<const float> x, std::span<float> y);
void softmax_simd(std::span<const float> x, std::span<float> y);
void softmax_parallel(std::span<const float> x, std::span<float> y);
// Relative error per element a softmax may have when its sum has depth `depth`: the sum's
// gamma(depth), expf's and the division's few ulp, and the rounding of x - m (at most
// (max - min) u, magnified by exp); online softmax adds one rescale per chain link (x4 depth).
double softmax_tolerance(double depth, float x_min, float x_max);

// ---- GPU ----------------------------------------------------------------------------------
// Scratch the reductions share: one partial per block (two for softmax: max and sum), and the
// counter the last-block-done steps count finished blocks with (zero between launches).
inline constexpr long long kMaxPartials = 8192;  // grids of the reduction kernels are capped here
// --op sum and --op max run blocks of 1,024 threads unless --block says otherwise (exp and
// softmax: 256). The same threads per SM in fewer, larger blocks: on the H100 one wave of 264
// blocks of 1,024 beat 1,056 of 256 by about 1.5% at 2^26 and 2^28 (the sweeps of block, grid
// and --ilp in docs/data/h100-2026-11-27/reduce-sweep and candidates/x01_*), putting reduce_vectorized ahead of
// cub::DeviceReduce::Sum at both sizes; with 256-thread blocks it was level at 2^26 and 1% behind
// at 2^28.
inline constexpr int kReductionBlock = 1024;
struct ReduceWorkspace {
  float* partials = nullptr;  // 2 * kMaxPartials floats
  unsigned* counter = nullptr;  // one, zero before the first launch; the kernels leave it zero
  float* scalars = nullptr;     // 2 floats: softmax's m and S between its launches
};

// What a reduction launcher did: its (first) grid, and the depth of the float sum it computed.
struct ReduceShape {
  course::LaunchShape launch;
  double depth = 0;
};

// Every reduction's launcher: *result = op over x[0, n), in `stream`, checked. `result` is one
// float on the device. Kernels that cannot take any --block round it (a multiple of 32 or a power
// of two): the launched shape says what ran.
using ReduceLauncher = ReduceShape (*)(const float* x, std::size_t n, float* result, Reduction op,
                                       const ReduceWorkspace& work, const LaunchConfig& config, cudaStream_t stream);
// Every softmax launcher: y = softmax(x), in `stream`, checked.
using SoftmaxLauncher = ReduceShape (*)(const float* x, std::size_t n, float* y, const ReduceWorkspace& work,
                                        const LaunchConfig& config, cudaStream_t stream);

// [docs:reduce_table]
#define COURSE_KERNEL(name, summary, ...)                                                               \
  ReduceShape launch_##name(const float* x, std::size_t n, float* result, Reduction op, const ReduceWorkspace& work, \
                            const LaunchConfig& config, cudaStream_t stream);
#include "kernels/reduce_registry.inc"
#undef COURSE_KERNEL
inline constexpr course::KernelEntry<ReduceLauncher> kReduceTable[] = {
#define COURSE_KERNEL COURSE_KERNEL_ENTRY
#include "kernels/reduce_registry.inc"
#undef COURSE_KERNEL
};
// [docs:end reduce_table]
inline std::span<const course::KernelEntry<ReduceLauncher>> reduce_kernels() { return kReduceTable; }
inline const course::KernelEntry<ReduceLauncher>& reduce_kernel(std::string_view name) {
  return course::find_kernel(reduce_kernels(), name);
}

// Softmax's list has one more field per line: the bytes per element the kernel moves.
#define SOFTMAX_KERNEL(name, bytes_per_element, summary, ...)                                            \
  ReduceShape launch_##name(const float* x, std::size_t n, float* y, const ReduceWorkspace& work, \
                            const LaunchConfig& config, cudaStream_t stream);
#include "kernels/softmax_registry.inc"
#undef SOFTMAX_KERNEL
inline constexpr course::KernelEntry<SoftmaxLauncher> kSoftmaxTable[] = {
#define SOFTMAX_KERNEL(name, bytes_per_element, summary, ...) COURSE_KERNEL_ENTRY(name, summary, __VA_ARGS__)
#include "kernels/softmax_registry.inc"
#undef SOFTMAX_KERNEL
};
inline std::span<const course::KernelEntry<SoftmaxLauncher>> softmax_kernels() { return kSoftmaxTable; }
inline const course::KernelEntry<SoftmaxLauncher>& softmax_kernel(std::string_view name) {
  return course::find_kernel(softmax_kernels(), name);
}
// The bytes per element a softmax kernel moves, from its registry line.
inline int softmax_bytes_per_element(std::string_view name) {
  struct Entry {
    std::string_view name;
    int bytes;
  };
  constexpr Entry table[] = {
#define SOFTMAX_KERNEL(name, bytes_per_element, summary, ...) {#name, bytes_per_element},
#include "kernels/softmax_registry.inc"
#undef SOFTMAX_KERNEL
  };
  for (const Entry& entry : table) {
    if (entry.name == name) return entry.bytes;
  }
  throw std::out_of_range("no softmax kernel named " + std::string(name));
}

// The libraries (reduce_library.cu). CUB's calls need temporary device storage: ask for its
// size once (a setup step), allocate it, then call with it.
std::size_t cub_reduce_temp_bytes(std::size_t n, Reduction op);
void cub_reduce(const float* x, std::size_t n, float* result, Reduction op, void* temp, std::size_t temp_bytes,
                cudaStream_t stream);
float thrust_reduce(const float* x, std::size_t n, Reduction op, cudaStream_t stream);  // returns to the host
// softmax from CUB: DeviceReduce::Max, DeviceReduce::TransformReduce (sum of exp(x - m)), then
// DeviceTransform::Transform (exp(x - m) / S): x read three times, y written once.
std::size_t cub_softmax_temp_bytes(std::size_t n);
void cub_softmax(const float* x, std::size_t n, float* y, float* scalars, void* temp, std::size_t temp_bytes,
                 cudaStream_t stream);

}  // namespace vector_exp
