// Kernel 11, wide_thread: 128 threads per block, each computing 8 x 16 outputs, cp.async pipeline.
//
// Teaches: what to do when Nsight Compute says the kernel is issue-bound (kernels 08 to 10: the
// FMA pipe busy about 70% of the active cycles, the rest of the issue slots spent on shared-memory
// loads, address arithmetic and the loop). The remedy is more arithmetic per instruction that is
// not an FMA: each thread keeps 8 x 16 = 128 sums instead of 8 x 8. Per k it then reads 2 float4
// of A and 4 float4 of B (6 shared loads for 128 FMAs, 21 per load; kernel 08: 4 loads for 64
// FMAs, 16 per load), and a block of 128 threads still covers kernel 08's 128 x 128 tile of C, so
// global traffic per FMA is unchanged. Each warp owns a 64 x 64 sub-tile as 8 x 4 threads; a
// thread's rows are two groups of 4 (32 apart), its columns four groups of 4 (16 apart), so the
// float4 reads of a warp touch 8 addresses of A and 4 of B (broadcasts, no bank conflicts).
//
// What changed from kernel 08: the thread tile (8 x 16 instead of 8 x 8), the block (128 threads
// in 4 warps of 64 x 64 instead of 256 in 8 of 64 x 32), BK = 16 with 3 stages instead of BK = 32
// with 2 (the same shared memory per stage halves, one more tile in flight to hide latency with
// fewer warps). The tiles are copied with kernel 08's cp.async helpers and swizzle.
//
// Resources (sm_90, nvcc 13, `nvcc -Xptxas -v`; `cuobjdump -res-usage` on the built library
// says the same): 223 registers per thread (float4 and scalar variants) under
// __launch_bounds__(128, 2) (cap 255): 0 bytes of stack, 0 bytes of spill stores and loads; the
// tuning neighbours below (BK 8 to 32, 2 to 4 stages) use 215 to 255 and do not spill either.
// Shared memory: 3 stages x (16 x 132 + 16 x 128) floats = 49,920 bytes per block (dynamic);
// 2 blocks per SM (registers: 2 x 128 x 223 of 65,536), 8 warps per SM.
#include <mutex>

#include "course/check.hpp"
#include "cp_async_tile.cuh"

namespace matmul {

namespace {

constexpr int BM = 128, BN = 128, kThreads = 128, kMinBlocks = 2;
constexpr int WM = 64, WN = 64;  // a warp's sub-tile: 8 x 4 threads of 8 x 16 outputs
constexpr int LDA = BM + 4, LDB = BN;
constexpr int kSwizzleGroup = 8;
// The shipped depth and pipeline (BK 16, 3 stages); matmul_tune times the neighbours (below).
template <int BK, int kStages>
constexpr int shared_bytes() {
  return kStages * BK * (LDA + LDB) * static_cast<int>(sizeof(float));
}
static_assert((BM / WM) * (BN / WN) * 32 == kThreads, "4 warps of 64 x 64 cover the block's tile");

// Block -> tile (bm, bn), in groups of kSwizzleGroup block-rows (kernel 08's order, for L2 reuse).
__device__ __forceinline__ void swizzled_tile(int& bm, int& bn) {
  const int grid_n = static_cast<int>(gridDim.x), grid_m = static_cast<int>(gridDim.y);
  const int block = static_cast<int>(blockIdx.y) * grid_n + static_cast<int>(blockIdx.x);
  const int per_group = kSwizzleGroup * grid_n;
  const int first_m = block / per_group * kSwizzleGroup;
  const int rows = min(grid_m - first_m, kSwizzleGroup);
  const int in_group = block % per_group;
  bm = first_m + in_group % rows;
  bn = in_group / rows;
}

// [docs:wide_thread_slice]
// acc += one BK-deep slice: the thread's rows m_first + {0..3}, m_first + 32 + {0..3}; its
// columns n_first + 16 g + {0..3}, g = 0..3.
template <int BK>
__device__ __forceinline__ void multiply_slice(const float* sA, const float* sB, int m_first, int n_first,
                                               float (&acc)[8][16]) {
#pragma unroll
  for (int kk = 0; kk < BK; ++kk) {
    float a[8], b[16];
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const float4 v = *reinterpret_cast<const float4*>(&sA[kk * LDA + m_first + h * (WM / 2)]);
      a[4 * h] = v.x, a[4 * h + 1] = v.y, a[4 * h + 2] = v.z, a[4 * h + 3] = v.w;
    }
#pragma unroll
    for (int g = 0; g < 4; ++g) {
      const float4 v = *reinterpret_cast<const float4*>(&sB[kk * LDB + n_first + g * (WN / 4)]);
      b[4 * g] = v.x, b[4 * g + 1] = v.y, b[4 * g + 2] = v.z, b[4 * g + 3] = v.w;
    }
#pragma unroll
    for (int i = 0; i < 8; ++i) {
#pragma unroll
      for (int j = 0; j < 16; ++j) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
    }
  }
}
// [docs:end wide_thread_slice]

template <bool kVec4>
__device__ __forceinline__ void store_8x16(const MatmulArgs& p, const float (&acc)[8][16], int row0, int col0) {
#pragma unroll
  for (int i = 0; i < 8; ++i) {
    const int row = row0 + (i / 4) * (WM / 2) + i % 4;
    if (row >= p.m) continue;
#pragma unroll
    for (int g = 0; g < 4; ++g) {
      const int col = col0 + g * (WN / 4);
      if constexpr (kVec4) {
        if (col < p.n) {  // N % 4 == 0: the 4 columns are all inside C or all outside
          *reinterpret_cast<float4*>(p.c + detail::at(row, col, p.n)) =
              make_float4(acc[i][4 * g], acc[i][4 * g + 1], acc[i][4 * g + 2], acc[i][4 * g + 3]);
        }
      } else {
#pragma unroll
        for (int j = 0; j < 4; ++j) {
          if (col + j < p.n) p.c[detail::at(row, col + j, p.n)] = acc[i][4 * g + j];
        }
      }
    }
  }
}

template <int BK, int kStages, bool kVec4>
__global__ void __launch_bounds__(kThreads, kMinBlocks) wide_thread_kernel(MatmulArgs p) {
  constexpr int kStageA = BK * LDA, kStageB = BK * LDB;
  extern __shared__ __align__(16) float shared[];
  float* sA = shared;                      // kStages tiles of A, transposed
  float* sB = shared + kStages * kStageA;  // kStages tiles of B
  const int tid = threadIdx.x;
  int bm = 0, bn = 0;
  swizzled_tile(bm, bn);
  const int m0 = bm * BM, n0 = bn * BN;
  const int warp = tid / 32, lane = tid % 32;
  const int m_first = (warp / (BN / WN)) * WM + (lane / 4) * 4;  // 8 thread-rows of 4 + 4 rows
  const int n_first = (warp % (BN / WN)) * WN + (lane % 4) * 4;  // 4 thread-columns of 4 x 4 columns
  const detail::AsyncATile<BM, BK, kThreads, LDA> a_tile(p, m0, tid);
  const detail::AsyncBTile<BN, BK, kThreads, LDB, kVec4> b_tile(p, n0, tid);
  const int tiles = detail::ceil_div(p.k, BK);

  float acc[8][16] = {};
  // Kernel 08's pipeline: tiles t+1 .. t+kStages-1 are being copied while tile t is multiplied.
#pragma unroll
  for (int s = 0; s < kStages - 1; ++s) {
    if (s < tiles) {
      a_tile.copy(sA + s * kStageA, p, s * BK);
      b_tile.copy(sB + s * kStageB, p, s * BK);
    }
    detail::cp_async_commit();
  }
  int read_stage = 0, write_stage = kStages - 1;
  for (int t = 0; t < tiles; ++t) {
    detail::cp_async_wait<kStages - 2>();  // tile t has landed (this thread's copies)
    __syncthreads();                       // everyone's copies are visible; tile t - 1 is no longer read
    const int next = t + kStages - 1;
    if (next < tiles) {
      a_tile.copy(sA + write_stage * kStageA, p, next * BK);
      b_tile.copy(sB + write_stage * kStageB, p, next * BK);
    }
    detail::cp_async_commit();
    multiply_slice<BK>(sA + read_stage * kStageA, sB + read_stage * kStageB, m_first, n_first, acc);
    read_stage = read_stage + 1 == kStages ? 0 : read_stage + 1;
    write_stage = write_stage + 1 == kStages ? 0 : write_stage + 1;
  }
  detail::cp_async_wait<0>();
  store_8x16<kVec4>(p, acc, m0 + m_first, n0 + n_first);
}

template <class Kernel>
void allow_shared_memory(Kernel kernel, int bytes, std::once_flag& flag) {
  std::call_once(flag, [&] {
    CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
  });
}

template <int BK, int kStages>
void launch_config(const MatmulArgs& args, cudaStream_t stream) {
  if (args.m == 0 || args.n == 0) return;
  constexpr int kBytes = shared_bytes<BK, kStages>();
  static std::once_flag vec_flag, scalar_flag;
  const dim3 grid(detail::ceil_div(args.n, BN), detail::ceil_div(args.m, BM));
  if (detail::float4_ok(args)) {
    auto* kernel = wide_thread_kernel<BK, kStages, true>;
    allow_shared_memory(kernel, kBytes, vec_flag);
    kernel<<<grid, kThreads, kBytes, stream>>>(args);
  } else {
    auto* kernel = wide_thread_kernel<BK, kStages, false>;
    allow_shared_memory(kernel, kBytes, scalar_flag);
    kernel<<<grid, kThreads, kBytes, stream>>>(args);
  }
  CUDA_CHECK_LAUNCH("wide_thread_kernel");
}

}  // namespace

void launch_wide_thread(const MatmulArgs& args, cudaStream_t stream) { launch_config<16, 3>(args, stream); }

namespace tuning {
std::span<const TileConfig> wide_thread_configs() {
  static const TileConfig configs[] = {
      {"wide_thread 128x128x8 s3", launch_config<8, 3>},   {"wide_thread 128x128x8 s4", launch_config<8, 4>},
      {"wide_thread 128x128x16 s2", launch_config<16, 2>}, {"wide_thread 128x128x16 s4", launch_config<16, 4>},
      {"wide_thread 128x128x32 s2", launch_config<32, 2>}, {"wide_thread 128x128x32 s3", launch_config<32, 3>},
  };
  return configs;
}
}  // namespace tuning

}  // namespace matmul
