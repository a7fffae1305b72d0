// Lesson 08's find-the-bug exercise on a GPU: a driver-API launch and its argument array.
// A starter (what you edit) and a solution (what the tests check); see launch_args_starter.cpp.
#pragma once

#include <cuda.h>

#include <cstddef>
#include <string>

namespace driver_saxpy::exercises {

// The kernel's text, which the tests compile with NVRTC (its entry: "saxpy"), and its launch
// through cuLaunchKernel: out[i] = a * x[i] + y[i] for i < n, one thread per element.
std::string launch_args_kernel_starter();
void launch_args_starter(CUfunction saxpy, float a, CUdeviceptr x, CUdeviceptr y, CUdeviceptr out, std::size_t n,
                         CUstream stream);

std::string launch_args_kernel_solution();
void launch_args_solution(CUfunction saxpy, float a, CUdeviceptr x, CUdeviceptr y, CUdeviceptr out, std::size_t n,
                          CUstream stream);

}  // namespace driver_saxpy::exercises
