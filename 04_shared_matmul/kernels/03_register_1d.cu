// Kernel 03, register_1d: each thread computes 8 outputs of one column of C.
//
// Teaches: in kernel 02 every FMA needs two shared-memory loads, and shared memory, not the
// FMA units, sets the pace. Here a block of 512 threads computes a 64 x 64 tile; each thread
// keeps 8 results (8 consecutive rows of one column) in registers. Per step of k it loads one
// value of B into a register and reuses it for 8 FMAs with 8 values of A: 9 loads for 8 FMAs
// instead of 16. The tile walks along K in steps of BK = 8.
#include "course/check.hpp"
#include "matmul.hpp"

namespace matmul {

namespace {

constexpr int BM = 64, BN = 64, BK = 8, TM = 8;
constexpr int kThreads = BM * BN / TM;  // 512
static_assert(BM * BK == kThreads && BN * BK == kThreads, "one element of each tile per thread");

__global__ void __launch_bounds__(kThreads) register_1d_kernel(MatmulArgs p) {
  __shared__ float sA[BM][BK];
  __shared__ float sB[BK][BN];
  const int tid = threadIdx.x;
  const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
  const int col = tid % BN;       // this thread's column of the tile
  const int row0 = tid / BN * TM;  // and its first row: rows row0 .. row0 + 7
  // Which element of each tile this thread loads: consecutive threads, consecutive addresses.
  const int a_row = tid / BK, a_col = tid % BK;
  const int b_row = tid / BN, b_col = tid % BN;

  float acc[TM] = {};
  for (int k0 = 0; k0 < p.k; k0 += BK) {
    const int am = m0 + a_row, ak = k0 + a_col, bk = k0 + b_row, bn = n0 + b_col;
    sA[a_row][a_col] = (am < p.m && ak < p.k) ? p.a[detail::at(am, ak, p.k)] : 0.0f;
    sB[b_row][b_col] = (bk < p.k && bn < p.n) ? p.b[detail::at(bk, bn, p.n)] : 0.0f;
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < BK; ++kk) {
      const float b = sB[kk][col];  // one load of B, reused 8 times
#pragma unroll
      for (int i = 0; i < TM; ++i) acc[i] += sA[row0 + i][kk] * b;
    }
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < TM; ++i) {
    const int m = m0 + row0 + i, n = n0 + col;
    if (m < p.m && n < p.n) p.c[detail::at(m, n, p.n)] = acc[i];
  }
}

}  // namespace

void launch_register_1d(const MatmulArgs& args, cudaStream_t stream) {
  const dim3 grid(detail::ceil_div(args.n, BN), detail::ceil_div(args.m, BM));
  register_1d_kernel<<<grid, kThreads, 0, stream>>>(args);
  CUDA_CHECK_LAUNCH("register_1d_kernel");
}

}  // namespace matmul
