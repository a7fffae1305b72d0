// Lesson 01, first contact: a whole CUDA program with nothing but the CUDA runtime.
//
// Teaches the five steps every CUDA program takes: allocate GPU memory (cudaMalloc), copy the
// input in (cudaMemcpy), launch a kernel (<<<blocks, threads>>>), copy the result back, free the
// memory (cudaFree); and that every one of them can fail, so every one is checked: a launch
// returns nothing, cudaGetLastError() reports a bad launch, and the next synchronizing call
// reports an error inside the kernel. The rest of the course wraps these steps in common/.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <cuda_runtime.h>

// Stops the program with the failed call, its error and where it was: one line on stderr.
#define CHECK(call)                                                                                  \
  do {                                                                                               \
    cudaError_t status = (call);                                                                     \
    if (status != cudaSuccess) {                                                                     \
      std::fprintf(stderr, "first_contact: %s failed: %s (%s) at %s:%d\n", #call,                  \
                   cudaGetErrorName(status), cudaGetErrorString(status), __FILE__, __LINE__);        \
      std::exit(3);                                                                                  \
    }                                                                                                \
  } while (0)

// [docs:kernel]
// Every thread computes one element; the last block's extra threads do nothing.
__global__ void exp_kernel(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = expf(x[i]);
}
// [docs:end kernel]

int main(int argc, char** argv) {
  // It takes no arguments: --help says what it does; anything else is a mistake (exit 2).
  if (argc == 2 && (std::strcmp(argv[1], "--help") == 0 || std::strcmp(argv[1], "-h") == 0)) {
    std::printf("Usage: %s (no arguments): y = exp(x) for 1,000 floats on the GPU, checked against the CPU.\n", argv[0]);
    return 0;
  }
  if (argc > 1) {
    std::fprintf(stderr, "%s: error: unexpected argument '%s': this program takes none (see --help)\n", argv[0], argv[1]);
    return 2;
  }
  const int n = 1000;
  std::vector<float> x(n), y(n);
  for (int i = 0; i < n; ++i) x[i] = -5.0f + 10.0f * i / n;  // inputs from -5 to 5

  // [docs:launch]
  float *d_x = nullptr, *d_y = nullptr;
  CHECK(cudaMalloc(&d_x, n * sizeof(float)));
  CHECK(cudaMalloc(&d_y, n * sizeof(float)));
  CHECK(cudaMemcpy(d_x, x.data(), n * sizeof(float), cudaMemcpyHostToDevice));

  const int threads = 256, blocks = (n + threads - 1) / threads;  // ceil(n / threads)
  exp_kernel<<<blocks, threads>>>(d_x, d_y, n);
  CHECK(cudaGetLastError());       // was the launch accepted?
  CHECK(cudaDeviceSynchronize());  // did the kernel run without error?

  CHECK(cudaMemcpy(y.data(), d_y, n * sizeof(float), cudaMemcpyDeviceToHost));
  CHECK(cudaFree(d_x));
  CHECK(cudaFree(d_y));
  // [docs:end launch]

  int wrong = 0;  // expf is accurate to 2 ulp: a relative error of 1e-6 is generous
  for (int i = 0; i < n; ++i) wrong += !(std::fabs(y[i] - std::exp(x[i])) <= 1e-6f * std::exp(x[i]));
  std::printf("exp of %d floats on the GPU: %s (y[0] = %.6g, y[%d] = %.6g)\n", n,
              wrong == 0 ? "matches the CPU" : "DOES NOT MATCH", y[0], n - 1, y[n - 1]);
  return wrong == 0 ? 0 : 1;
}
