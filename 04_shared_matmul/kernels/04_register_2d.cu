// Kernel 04, register_2d: each thread computes an 8 x 8 block of C (an outer product per k).
//
// Teaches: per step of k a thread loads 8 values of A and 8 of B into registers and does
// 8 x 8 = 64 FMAs with them: 16 loads for 64 FMAs (kernel 03: 9 for 8). The block computes a
// 128 x 128 tile with 256 threads, and loads 4 elements of each tile per thread. The price: 64
// accumulators plus the fragments per thread, over 100 registers (see --resource-usage in the
// docs), which limits how many blocks fit on an SM. Left for kernel 05: scalar loads, and
// shared-memory bank conflicts in the reads of B (thread tc reads columns tc*8 .. tc*8+7, so
// threads tc and tc + 4 hit the same bank).
#include "course/check.hpp"
#include "matmul.hpp"

namespace matmul {

namespace {

constexpr int BM = 128, BN = 128, BK = 8, TM = 8, TN = 8;
constexpr int kThreads = (BM / TM) * (BN / TN);  // 256

__global__ void __launch_bounds__(kThreads) register_2d_kernel(MatmulArgs p) {
  __shared__ float sA[BM][BK];
  __shared__ float sB[BK][BN];
  const int tid = threadIdx.x;
  const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
  const int tr = tid / (BN / TN), tc = tid % (BN / TN);  // this thread's 8 x 8 block in the tile

  float acc[TM][TN] = {};
  float a_frag[TM], b_frag[TN];
  for (int k0 = 0; k0 < p.k; k0 += BK) {
#pragma unroll
    for (int i = 0; i < BM * BK / kThreads; ++i) {  // 4 elements of each tile per thread
      const int e = tid + i * kThreads;
      const int am = m0 + e / BK, ak = k0 + e % BK;
      sA[e / BK][e % BK] = (am < p.m && ak < p.k) ? p.a[detail::at(am, ak, p.k)] : 0.0f;
      const int bk = k0 + e / BN, bn = n0 + e % BN;
      sB[e / BN][e % BN] = (bk < p.k && bn < p.n) ? p.b[detail::at(bk, bn, p.n)] : 0.0f;
    }
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < BK; ++kk) {
#pragma unroll
      for (int i = 0; i < TM; ++i) a_frag[i] = sA[tr * TM + i][kk];
#pragma unroll
      for (int j = 0; j < TN; ++j) b_frag[j] = sB[kk][tc * TN + j];
#pragma unroll
      for (int i = 0; i < TM; ++i) {
#pragma unroll
        for (int j = 0; j < TN; ++j) acc[i][j] += a_frag[i] * b_frag[j];
      }
    }
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < TM; ++i) {
#pragma unroll
    for (int j = 0; j < TN; ++j) {
      const int m = m0 + tr * TM + i, n = n0 + tc * TN + j;
      if (m < p.m && n < p.n) p.c[detail::at(m, n, p.n)] = acc[i][j];
    }
  }
}

}  // namespace

void launch_register_2d(const MatmulArgs& args, cudaStream_t stream) {
  const dim3 grid(detail::ceil_div(args.n, BN), detail::ceil_div(args.m, BM));
  register_2d_kernel<<<grid, kThreads, 0, stream>>>(args);
  CUDA_CHECK_LAUNCH("register_2d_kernel");
}

}  // namespace matmul
