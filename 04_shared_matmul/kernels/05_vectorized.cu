// Kernel 05, vectorized: float4 loads from global and shared memory, A transposed, no bank conflicts.
//
// Teaches, on top of kernel 04 (same 128 x 128 tile, 256 threads, 8 x 8 outputs per thread):
//  - float4 global loads (tile_io.cuh): one 16-byte load per 4 floats, when every row is
//    16-byte aligned (K and N multiples of 4); otherwise the same kernel with scalar loads;
//  - A stored transposed in shared memory, sA[k][m]: the 8 values of A a thread needs at one k
//    are then consecutive, read as two float4 (kernel 04: 8 scalar loads);
//  - a bank-conflict-free split: thread (tr, tc) owns rows tr*4 .. tr*4+3 and 64+tr*4 .. 64+tr*4+3
//    and columns tc*4 .. tc*4+3 and 64+tc*4 .. 64+tc*4+3. The 16 threads of a half-warp then
//    read 16 consecutive float4 of a row of sB (256 bytes, the minimum 2 wavefronts) instead of
//    kernel 04's tc*8 pattern, where threads tc and tc+4 collide in the same bank.
#include "course/check.hpp"
#include "tile_io.cuh"

namespace matmul {

namespace {

constexpr int BM = 128, BN = 128, BK = 8;
constexpr int kThreads = 256;
constexpr int LDA = BM + 4, LDB = BN;  // sA row padded: the transposing stores hit different banks

template <bool kVec4>
__global__ void __launch_bounds__(kThreads) vectorized_kernel(MatmulArgs p) {
  __shared__ __align__(16) float sA[BK * LDA];
  __shared__ __align__(16) float sB[BK * LDB];
  const int tid = threadIdx.x;
  const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
  const int tr = tid / 16, tc = tid % 16;

  detail::ATileLoader<BM, BK, kThreads, kVec4> a_tile;
  detail::BTileLoader<BN, BK, kThreads, kVec4> b_tile;
  float acc[8][8] = {};
  for (int k0 = 0; k0 < p.k; k0 += BK) {
    a_tile.load(p, m0, k0, tid);
    b_tile.load(p, k0, n0, tid);
    a_tile.template store<LDA>(sA, tid);
    b_tile.template store<LDB>(sB, tid);
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < BK; ++kk) {
      const float4 a0 = *reinterpret_cast<const float4*>(&sA[kk * LDA + tr * 4]);
      const float4 a1 = *reinterpret_cast<const float4*>(&sA[kk * LDA + 64 + tr * 4]);
      const float4 b0 = *reinterpret_cast<const float4*>(&sB[kk * LDB + tc * 4]);
      const float4 b1 = *reinterpret_cast<const float4*>(&sB[kk * LDB + 64 + tc * 4]);
      const float a[8] = {a0.x, a0.y, a0.z, a0.w, a1.x, a1.y, a1.z, a1.w};
      const float b[8] = {b0.x, b0.y, b0.z, b0.w, b1.x, b1.y, b1.z, b1.w};
#pragma unroll
      for (int i = 0; i < 8; ++i) {
#pragma unroll
        for (int j = 0; j < 8; ++j) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
      }
    }
    __syncthreads();
  }
  int rows[8];
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    rows[i] = m0 + tr * 4 + i;
    rows[4 + i] = m0 + 64 + tr * 4 + i;
  }
  const int cols[2] = {n0 + tc * 4, n0 + 64 + tc * 4};
  detail::store_8x8<kVec4>(p, acc, rows, cols);
}

}  // namespace

void launch_vectorized(const MatmulArgs& args, cudaStream_t stream) {
  const dim3 grid(detail::ceil_div(args.n, BN), detail::ceil_div(args.m, BM));
  if (detail::float4_ok(args)) {
    vectorized_kernel<true><<<grid, kThreads, 0, stream>>>(args);
  } else {
    vectorized_kernel<false><<<grid, kThreads, 0, stream>>>(args);
  }
  CUDA_CHECK_LAUNCH("vectorized_kernel");
}

}  // namespace matmul
