// Lesson 08, exercise 4 (find the bug, on a GPU): a SAXPY launched through the driver API.
//
// out[i] = a * x[i] + y[i] for the n elements of x and y: the kernel below is compiled at run time
// by NVRTC, and launch_args_starter launches it with cuLaunchKernel, one thread per element in
// blocks of 256; the kernel's `if (i < n)` stops the last block's spare threads. Every element of
// out comes back right, and yet something is wrong. The check runs the lesson's test, then the
// same test under compute-sanitizer's memcheck, which reports it on every run:
//   ./scripts/check_exercise.sh 08 launch_args        (FAIL names what memcheck reported)
// Find the defect and fix it. Hints: ./scripts/check_exercise.sh 08 launch_args --hint
#include <string>

#include "course/check_driver.hpp"
#include "course/driver.hpp"
#include "exercises/launch_args.hpp"

namespace driver_saxpy::exercises {

// The #line makes compute-sanitizer's report name this file's lines.
std::string launch_args_kernel_starter() {
  return "#line " + std::to_string(__LINE__) + " \"launch_args_starter.cpp\"\n" R"(
extern "C" __global__ void saxpy(float a, const float* x, const float* y, float* out, unsigned long long n) {
  const unsigned long long i = static_cast<unsigned long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i] = a * x[i] + y[i];
}
)";
}

void launch_args_starter(CUfunction saxpy, float a, CUdeviceptr x, CUdeviceptr y, CUdeviceptr out, std::size_t n,
                         CUstream stream) {
  if (n == 0) return;
  // The launch's two numbers (this exercise never goes near 2^32 elements).
  struct Shape {
    unsigned elements;  // n
    unsigned block;     // threads per block
  };
  Shape shape{static_cast<unsigned>(n), 256};
  const auto blocks = static_cast<unsigned>((shape.elements + shape.block - 1) / shape.block);
  // One pointer per kernel parameter, in order: the driver copies each argument's value from it.
  void* args[] = {&a, &x, &y, &out, &shape.elements};
  CU_CHECK(course::driver::api().cuLaunchKernel(saxpy, blocks, 1, 1, shape.block, 1, 1, 0, stream, args, nullptr));
}

}  // namespace driver_saxpy::exercises
