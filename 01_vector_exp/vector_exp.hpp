// Lesson 01: y = exp(x) for a vector of floats, on the CPU and on the GPU.
//
// This header is the lesson's API, shared by main.cpp and the tests: the CPU versions
// (vector_exp_cpu.cpp), the GPU kernels and their launchers (vector_exp_gpu.cu, and
// exp_float4.cu, the solution of exercise 1), and the reference they are all checked against.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <span>
#include <string>

#include "course/verify.hpp"

namespace vector_exp {

// ---- CPU ----------------------------------------------------------------------------------
void exp_serial(std::span<const float> x, std::span<float> y);    // one thread, std::exp
void exp_parallel(std::span<const float> x, std::span<float> y);  // all cores, OpenMP

// exp(x) in double precision, computed block by block while verifying (never stored whole).
course::ReferenceBlock exp_reference(std::span<const float> x);

// ---- GPU ----------------------------------------------------------------------------------
enum class Kernel {
  expf_grid_stride,  // expf: the accurate CUDA math function (at most 2 ulp)
  fast_expf,         // __expf: the hardware approximation (error grows with |x|)
  expf_float4,       // expf with 16-byte float4 loads and stores (exercise 1)
};
std::string kernel_label(Kernel kernel);

struct LaunchConfig {
  int block_size = 256;  // threads per block
  int grid_size = 0;     // blocks; 0 = 4 waves of the blocks that can be resident at once
  int ilp = 4;           // elements each thread loads before it computes (1, 2, 4 or 8)
};

// Launches `kernel` on device arrays x and y of n floats in `stream` and checks the launch.
// Returns the grid size actually used.
int launch_exp(Kernel kernel, const float* x, float* y, std::size_t n, const LaunchConfig& config,
               cudaStream_t stream);

// The float4 kernel's launcher (exp_float4.cu, exercise 1); launch_exp calls it.
int launch_exp_float4(const float* x, float* y, std::size_t n, const LaunchConfig& config, cudaStream_t stream);

// The accuracy each kernel promises (CUDA Programming Guide, mathematical functions appendix):
// expf at most 2 ulp; __expf at most 2 + floor(|1.173 x|) ulp, so it depends on the inputs.
double promised_ulp(Kernel kernel, double max_abs_x);

// Largest |x| in the input, for promised_ulp.
double max_abs(std::span<const float> x);

}  // namespace vector_exp
