// Kernel 01, naive: one thread per element of C, everything read from global memory.
//
// Teaches: the direct translation of c[i][j] = sum_p a[i][p] * b[p][j] into threads. Thread
// (x, y) of the grid computes C(row = y, col = x): the 32 threads of a warp have consecutive x,
// so they read one element of A (the same one: a broadcast) and 32 consecutive elements of a
// row of B (coalesced) per step. Correct for any size, and slow: every product needs two
// loads, 8 bytes for 2 flops, so the kernel is limited by how fast the caches serve loads,
// not by the FMA units (arithmetic intensity, see the docs).
#include "course/check.hpp"
#include "matmul.hpp"

namespace matmul {

namespace {

__global__ void naive_kernel(MatmulArgs p) {
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row >= p.m || col >= p.n) return;  // no __syncthreads() below, so returning early is fine
  float sum = 0.0f;
  for (int i = 0; i < p.k; ++i) sum += p.a[detail::at(row, i, p.k)] * p.b[detail::at(i, col, p.n)];
  p.c[detail::at(row, col, p.n)] = sum;
}

}  // namespace

void launch_naive(const MatmulArgs& args, cudaStream_t stream) {
  const dim3 block(32, 8);
  const dim3 grid(detail::ceil_div(args.n, 32), detail::ceil_div(args.m, 8));
  naive_kernel<<<grid, block, 0, stream>>>(args);
  CUDA_CHECK_LAUNCH("naive_kernel");
}

}  // namespace matmul
