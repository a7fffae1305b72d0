// Lesson 01: y = exp(x) for a vector of floats, on the CPU and on the GPU.
//
// This header is the lesson's API, shared by main.cpp and the tests: the CPU versions
// (vector_exp_cpu.cpp), the reference they are all checked against, and the GPU kernels, one
// per file in kernels/, listed in kernels/registry.inc. It is light on purpose: kernel files
// include it, so it pulls in nothing but the CUDA runtime's declarations.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <span>
#include <string_view>

#include "course/kernel_registry.hpp"
#include "course/launch.hpp"
#include "course/verify.hpp"

namespace vector_exp {

// ---- CPU ----------------------------------------------------------------------------------
void exp_serial(std::span<const float> x, std::span<float> y);    // one thread, std::exp (scalar)
void exp_parallel(std::span<const float> x, std::span<float> y);  // all cores, OpenMP, scalar
// SIMD with glibc's vector expf (vector_exp_simd.cpp): the CPU rows the GPU is compared with
// use software prefetch; without it (hardware prefetchers only) is a teaching row.
enum class Prefetch { hardware_only, software };
void exp_simd_serial(std::span<const float> x, std::span<float> y, Prefetch prefetch = Prefetch::software);
void exp_simd_parallel(std::span<const float> x, std::span<float> y, Prefetch prefetch = Prefetch::software);
const char* simd_width_name();  // "AVX2, 8 lanes", ...

// exp(x) in double precision, computed block by block while verifying (never stored whole).
course::ReferenceBlock exp_reference(std::span<const float> x);

// ---- GPU ----------------------------------------------------------------------------------
struct LaunchConfig {
  int block_size = 256;  // threads per block
  int grid_size = 0;     // blocks; 0 = the kernel's own choice (see each kernel file)
  int ilp = 4;           // grid_stride_ilp and fast_expf: elements each thread loads first (1, 2, 4, 8)
  int tile = 1024;       // bulk_copy: floats in a block's tile (a multiple of 4, 4 to 16384; see its file)
};

// Every kernel's launcher has this shape: y[i] = exp(x[i]) for i < n, device pointers, in
// `stream`, launch checked. It returns the grid it launched.
using Launcher = course::LaunchShape (*)(const float* x, float* y, std::size_t n, const LaunchConfig& config,
                                         cudaStream_t stream);

// [docs:kernel_table]
#define COURSE_KERNEL(name, summary, ...)                                                                 \
  course::LaunchShape launch_##name(const float* x, float* y, std::size_t n, const LaunchConfig& config, \
                                    cudaStream_t stream);
#include "kernels/registry.inc"
#include "exercises/registry.inc"
#undef COURSE_KERNEL

// The registry: every kernel above, in the order of the progression, with its traits;
// kernels() is the table, kernel(name) one entry (std::out_of_range if there is none).
inline constexpr course::KernelEntry<Launcher> kKernelTable[] = {
#define COURSE_KERNEL COURSE_KERNEL_ENTRY
#include "kernels/registry.inc"
#include "exercises/registry.inc"  // the "make it fast" exercise: runs only when --kernel names it
#undef COURSE_KERNEL
};
COURSE_KERNEL_ACCESSORS(Launcher, kKernelTable)
// [docs:end kernel_table]

// The same y[i] = expf(x[i]) through the GPU libraries (library.cu), the rows the kernels are
// compared with: thrust::transform and cub::DeviceTransform::Transform, in `stream`, checked.
void thrust_exp(const float* x, float* y, std::size_t n, cudaStream_t stream);
void cub_exp(const float* x, float* y, std::size_t n, cudaStream_t stream);

// The accuracy a kernel promises, read from its registry line (.max_ulp, .ulp_per_abs_input;
// CUDA Programming Guide, mathematical functions appendix): expf at most 2 ulp, the default for
// a line that says nothing; __expf (fast_expf) at most 2 + floor(|1.173 x|) ulp, so it depends
// on the inputs.
inline constexpr double kDefaultUlp = 2.0;
inline double promised_ulp(const course::KernelTraits& traits, double max_abs_x) {
  return course::promised_ulp(traits, max_abs_x, kDefaultUlp);
}
inline double promised_ulp(std::string_view kernel_name, double max_abs_x) {
  return promised_ulp(kernel(kernel_name).traits, max_abs_x);
}

// The classic demo's check by eye (first_values.cpp): the first `count` elements of x through
// std::exp, through the headline kernel (expf) and through the kernel whose promise grows with
// |x| (__expf), each one's error against exp in double. d_x holds x on the GPU; d_y is scratch.
void print_first_values(std::span<const float> x, const float* d_x, float* d_y, const LaunchConfig& config,
                        cudaStream_t stream, int count);

// Largest |x| in the input, for promised_ulp.
double max_abs(std::span<const float> x);

}  // namespace vector_exp
