// Lesson 02: c = a + b for vectors of floats, the classic first kernels.
//
// This header is the lesson's API, shared by main.cpp and the tests: the CPU versions and the
// reference (add_cpu.cpp), the two one-block demos of parts 1 and 2 (demo_kernels.cu), and the
// add kernels, one per file in kernels/, listed in kernels/registry.inc. It is light on
// purpose: kernel files include it, so it pulls in nothing but the CUDA runtime's declarations
// and small course headers (no CLI11, no JSON). The launch sweep's declarations, which need
// the report's JSON, are in launch_sweep.hpp.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <span>
#include <string_view>

#include "course/errors.hpp"
#include "course/kernel_registry.hpp"
#include "course/launch.hpp"
#include "course/verify.hpp"

namespace elementwise_add {

// ---- CPU ----------------------------------------------------------------------------------
void add_serial(std::span<const float> a, std::span<const float> b, std::span<float> c);    // one thread
void add_parallel(std::span<const float> a, std::span<const float> b, std::span<float> c);  // all cores, OpenMP
// The same with software prefetch (2 KiB ahead): the CPU rows the GPU's speedups are quoted against.
void add_prefetch_serial(std::span<const float> a, std::span<const float> b, std::span<float> c);
void add_prefetch_parallel(std::span<const float> a, std::span<const float> b, std::span<float> c);
void multiply_serial(std::span<const float> a, std::span<const float> b, std::span<float> dest);  // part 1

// a + b computed in double and rounded to float once, block by block while verifying. It is the
// correctly rounded float sum, so every correct float add matches it exactly (add_cpu.cpp says why).
course::ReferenceBlock add_reference(std::span<const float> a, std::span<const float> b);

// ---- GPU, parts 1 and 2: one block, i = threadIdx.x (demo_kernels.cu) ------------------------
// Part 1, the classic PyCUDA demo: dest[i] = a[i] * b[i] with i = threadIdx.x, one block of n
// threads (n = 400 in main; at most the device's maxThreadsPerBlock).
inline constexpr int kMultiplyLength = 400;
void launch_multiply_them(float* dest, const float* a, const float* b, int n, cudaStream_t stream);

// Part 2: the same indexing for c = a + b, one block of n threads, so n <= 1024. Larger n is
// refused by CUDA at the launch (course::ApiError), which part 2 shows on purpose.
course::LaunchShape launch_add_one_block(const float* a, const float* b, float* c, std::size_t n, cudaStream_t stream);

// True when `error` is CUDA refusing a launch whose block is larger than the GPU allows (part 2).
// The name of the refusal depends on the CUDA version: cudaErrorInvalidConfiguration ("invalid
// configuration argument") in CUDA 12 and before, cudaErrorInvalidValue ("invalid argument")
// with CUDA 13.0 (seen with driver 580 on an H100).
bool is_block_size_refusal(const course::ApiError& error);

// ---- GPU, the progression: kernels/NN_name.cu, listed in kernels/registry.inc ----------------
struct LaunchConfig {
  int block_size = 256;  // threads per block (every kernel)
  int grid_size = 0;     // blocks for add_grid_stride and add_float4; 0 = as many as can be resident at once
  int ilp = 2;           // float4 groups each thread of add_float4 and add_one_pass loads before it adds: 1, 2 or 4
  int tile = 768;        // add_bulk_copy: floats of a (and of b) in a block's tile (a multiple of 4, 4 to 16384)
};

// Every kernel's launcher has this shape: c[i] = a[i] + b[i] for i < n, device pointers, in
// `stream`, launch checked (course::ApiError on failure). n = 0 launches nothing. It returns
// the grid it launched.
using Launcher = course::LaunchShape (*)(const float* a, const float* b, float* c, std::size_t n,
                                         const LaunchConfig& config, cudaStream_t stream);

#define COURSE_KERNEL(name, summary, ...)                                                                         \
  course::LaunchShape launch_##name(const float* a, const float* b, float* c, std::size_t n,                 \
                                    const LaunchConfig& config, cudaStream_t stream);
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

// ---- GPU libraries: the rows the kernels are compared with (library.cu) ----------------------
// c[i] = a[i] + b[i] through thrust::transform (thrust::plus) and cub::DeviceTransform::Transform
// (two inputs), in `stream`, checked (course::ApiError on failure). n = 0 launches nothing.
void thrust_add(const float* a, const float* b, float* c, std::size_t n, cudaStream_t stream);
void cub_add(const float* a, const float* b, float* c, std::size_t n, cudaStream_t stream);

// A grid's x dimension holds at most 2^31 - 1 blocks: one thread per element stops there.
inline constexpr long long kMaxGridBlocks = 2147483647;

// Blocks of add_grid_stride at `block_size` that fit on one SM at once (the occupancy calculator,
// cudaOccupancyMaxActiveBlocksPerMultiprocessor): what the launch sweep's occupancy comes from.
int grid_stride_blocks_per_sm(int block_size);

}  // namespace elementwise_add
