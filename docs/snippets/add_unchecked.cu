// add_unchecked.cu: the standard add kernel WITHOUT its bounds check, for
// docs/02_elementwise_add.md. Not part of the build: it is wrong on purpose.
//
//   nvcc -arch=native -o add_unchecked docs/snippets/add_unchecked.cu
//   ./add_unchecked                      # may well report no error at all
//   compute-sanitizer ./add_unchecked    # reports every out-of-bounds access
#include <cuda_runtime.h>

#include <cstdio>

__global__ void add_unchecked(const float* a, const float* b, float* c, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  c[i] = a[i] + b[i];  // no `if (i < n)`: threads 1000..1023 of the last block run past the end
}

int main() {
  const int n = 1000;  // not a multiple of 256: 4 blocks of 256 threads = 1024 threads
  float *a = nullptr, *b = nullptr, *c = nullptr;
  cudaMalloc(&a, n * sizeof(float));
  cudaMalloc(&b, n * sizeof(float));
  cudaMalloc(&c, n * sizeof(float));
  cudaMemset(a, 0, n * sizeof(float));
  cudaMemset(b, 0, n * sizeof(float));
  add_unchecked<<<(n + 255) / 256, 256>>>(a, b, c, n);
  std::printf("launch: %s\n", cudaGetErrorString(cudaGetLastError()));
  std::printf("synchronize: %s\n", cudaGetErrorString(cudaDeviceSynchronize()));
  cudaFree(a);
  cudaFree(b);
  cudaFree(c);
  return 0;
}
