// Lesson 08, exercise 4, a solution: the argument array must hold the kernel's types exactly.
//
// cuLaunchKernel copies each argument from the pointer given for it, as many bytes as the kernel's
// parameter has, and checks nothing else: the driver has only a void* for each, and no type. The
// kernel's n is an unsigned long long (8 bytes); the starter's shape.elements is an unsigned (4
// bytes), so the kernel's n got the 4 bytes of shape.block (256) as its high half: n = 1000 + 256
// x 2^32 for 1000 elements, and `if (i < n)` let every spare thread of the last block read x and y
// past their ends and write past the end of out. The fix is one type: shape.elements becomes an
// unsigned long long, the kernel's type (the alternative, an `unsigned n` in the kernel, works as
// well; what matters is that the two agree). With <<<>>> the compiler sees the kernel's
// declaration and converts each argument to its parameter's type, so this cannot happen there.
#include <string>

#include "course/check_driver.hpp"
#include "course/driver.hpp"
#include "exercises/launch_args.hpp"

namespace driver_saxpy::exercises {

// The #line makes compute-sanitizer's report name this file's lines.
std::string launch_args_kernel_solution() {
  return "#line " + std::to_string(__LINE__) + " \"launch_args_solution.cpp\"\n" R"(
extern "C" __global__ void saxpy(float a, const float* x, const float* y, float* out, unsigned long long n) {
  const unsigned long long i = static_cast<unsigned long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i] = a * x[i] + y[i];
}
)";
}

void launch_args_solution(CUfunction saxpy, float a, CUdeviceptr x, CUdeviceptr y, CUdeviceptr out, std::size_t n,
                          CUstream stream) {
  if (n == 0) return;
  // [docs:launch_args_fix]
  // The launch's two numbers.
  struct Shape {
    unsigned long long elements;  // n: the kernel's parameter type, exactly (8 bytes)
    unsigned block;               // threads per block
  };
  Shape shape{n, 256};
  const auto blocks = static_cast<unsigned>((shape.elements + shape.block - 1) / shape.block);
  // One pointer per kernel parameter, in order: the driver copies each argument's value from it.
  void* args[] = {&a, &x, &y, &out, &shape.elements};
  // [docs:end launch_args_fix]
  CU_CHECK(course::driver::api().cuLaunchKernel(saxpy, blocks, 1, 1, shape.block, 1, 1, 0, stream, args, nullptr));
}

}  // namespace driver_saxpy::exercises
