// Kernel 09, cp_async_16b: every copy 16 bytes wide; A stays row-major in shared memory.
//
// Teaches: kernel 08 copies A element by element (4-byte cp.async) because it transposes A on
// the way into shared memory. Counting instructions in its inner loop (cuobjdump -sass) shows
// what that costs: about 95 instructions of address arithmetic and predicates per tile for its
// 10 copies, besides the 1024 FFMAs and 64 shared loads. On an H100 every SM sub-partition
// issues one instruction per cycle and an FFMA occupies that slot, so each extra instruction
// is an FMA not done. Here A keeps its layout, sA[m][k], copied with 16-byte cp.async (2 per
// thread per tile instead of 8), and the inner loop reads A along k: for each group of 4 k a
// thread loads its 8 rows as 8 float4 and then uses them with 4 rows of B.
//
// Bank conflicts: a warp's 8 row-groups read rows ty + 8i (ty = 0..7: 8 consecutive rows), and
// with the row length padded to BK + 4 floats, consecutive rows start 4 banks apart
// (20 floats: 0, 20, 8, 28, 16, 4, 24, 12 mod 32): 8 float4 cover all 32 banks once.
#include <mutex>

#include "course/check.hpp"
#include "cp_async_tile.cuh"

namespace matmul {

namespace {

constexpr int kSwizzleGroup = 8;

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

// The BM x BK tile of A into sA[m * LD + k]: 16-byte copies when rows are aligned (kVec4).
template <int BM, int BK, int kThreads, int LD, bool kVec4>
struct AsyncARowTile {
  static constexpr int kWidth = kVec4 ? 4 : 1;
  static constexpr int kPerRow = BK / kWidth;                // copies per row of the tile
  static constexpr int kRowStep = kThreads / kPerRow;        // rows between a thread's copies
  static constexpr int kRows = BM / kRowStep;
  static_assert(kThreads % kPerRow == 0 && BM % kRowStep == 0, "tile shape");
  const float* src;
  std::size_t step;
  int col, dst0;
  unsigned rows_inside;

  __device__ __forceinline__ AsyncARowTile(const MatmulArgs& p, int m0, int tid) {
    const int row0 = tid / kPerRow;
    col = tid % kPerRow * kWidth;
    src = p.a + detail::at(m0 + row0, col, p.k);
    step = static_cast<std::size_t>(kRowStep) * static_cast<std::size_t>(p.k);
    dst0 = row0 * LD + col;
    rows_inside = 0;
#pragma unroll
    for (int j = 0; j < kRows; ++j) rows_inside |= (m0 + row0 + j * kRowStep < p.m ? 1u : 0u) << j;
  }

  __device__ __forceinline__ void copy(float* stage, const MatmulArgs& p, int k0) const {
    const bool k_inside = k0 + col < p.k;  // kVec4: K % 4 == 0, the float4 is inside or outside
#pragma unroll
    for (int j = 0; j < kRows; ++j) {
      const bool valid = k_inside && (rows_inside >> j & 1u);
      const float* from = valid ? src + j * step + k0 : p.a;
      if constexpr (kVec4) {
        detail::cp_async_16(stage + dst0 + j * kRowStep * LD, from, valid);
      } else {
        detail::cp_async_4(stage + dst0 + j * kRowStep * LD, from, valid);
      }
    }
  }
};

template <int BM, int BN, int BK, int kStages, int kMinBlocks, bool kVec4>
__global__ void __launch_bounds__(256, kMinBlocks) cp_async_16b_kernel(MatmulArgs p) {
  static_assert(BM == 128 && BN == 128, "8 warps of 64 x 32");
  constexpr int kThreads = 256, WM = 64, WN = 32;
  constexpr int LDA = BK + 4, LDB = BN;
  constexpr int kStageA = BM * LDA, kStageB = BK * LDB;
  extern __shared__ __align__(16) float shared[];
  float* sA = shared;
  float* sB = shared + kStages * kStageA;
  const int tid = threadIdx.x;
  int bm = 0, bn = 0;
  swizzled_tile(bm, bn);
  const int m0 = bm * BM, n0 = bn * BN;
  // A warp covers 64 x 32: lane -> (ty, tx) = (lane / 4, lane % 4). The thread's rows are
  // ty + 8 i (i = 0..7) of the warp's 64, its columns tx*4 .. tx*4+3 and 16+tx*4 .. 16+tx*4+3.
  const int warp = tid / 32, lane = tid % 32;
  const int m_first = warp / (BN / WN) * WM + lane / 4;
  const int n_first = warp % (BN / WN) * WN + lane % 4 * 4;
  const int tiles = detail::ceil_div(p.k, BK);
  const AsyncARowTile<BM, BK, kThreads, LDA, kVec4> a_tile(p, m0, tid);
  const detail::AsyncBTile<BN, BK, kThreads, LDB, kVec4> b_tile(p, n0, tid);

#pragma unroll
  for (int s = 0; s < kStages - 1; ++s) {
    if (s < tiles) {
      a_tile.copy(sA + s * kStageA, p, s * BK);
      b_tile.copy(sB + s * kStageB, p, s * BK);
    }
    detail::cp_async_commit();
  }

  float acc[8][8] = {};
  int read_stage = 0, write_stage = kStages - 1;
  for (int t = 0; t < tiles; ++t) {
    detail::cp_async_wait<kStages - 2>();
    __syncthreads();
    const int next = t + kStages - 1;
    if (next < tiles) {
      a_tile.copy(sA + write_stage * kStageA, p, next * BK);
      b_tile.copy(sB + write_stage * kStageB, p, next * BK);
    }
    detail::cp_async_commit();
    const float* a_stage = sA + read_stage * kStageA + m_first * LDA;
    const float* b_stage = sB + read_stage * kStageB + n_first;
#pragma unroll
    for (int kc = 0; kc < BK; kc += 4) {
      float4 a[8];  // rows m_first + 8 i, columns kc .. kc + 3
#pragma unroll
      for (int i = 0; i < 8; ++i) a[i] = *reinterpret_cast<const float4*>(a_stage + 8 * i * LDA + kc);
#pragma unroll
      for (int q = 0; q < 4; ++q) {
        const float4 b0 = *reinterpret_cast<const float4*>(b_stage + (kc + q) * LDB);
        const float4 b1 = *reinterpret_cast<const float4*>(b_stage + (kc + q) * LDB + WN / 2);
        const float b[8] = {b0.x, b0.y, b0.z, b0.w, b1.x, b1.y, b1.z, b1.w};
#pragma unroll
        for (int i = 0; i < 8; ++i) {
          const float a_iq = q == 0 ? a[i].x : q == 1 ? a[i].y : q == 2 ? a[i].z : a[i].w;
#pragma unroll
          for (int j = 0; j < 8; ++j) acc[i][j] = fmaf(a_iq, b[j], acc[i][j]);
        }
      }
    }
    read_stage = read_stage + 1 == kStages ? 0 : read_stage + 1;
    write_stage = write_stage + 1 == kStages ? 0 : write_stage + 1;
  }
  int rows[8];
#pragma unroll
  for (int i = 0; i < 8; ++i) rows[i] = m0 + m_first + 8 * i;
  const int cols[2] = {n0 + n_first, n0 + n_first + WN / 2};
  detail::store_8x8<kVec4>(p, acc, rows, cols);
}

template <class Kernel>
void allow_shared_memory(Kernel kernel, int bytes, std::once_flag& flag) {
  std::call_once(flag, [&] {
    CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
  });
}

template <int BK, int kStages, int kMinBlocks = 2>
void launch_config(const MatmulArgs& args, cudaStream_t stream) {
  constexpr int BM = 128, BN = 128;
  constexpr int kBytes = kStages * (BM * (BK + 4) + BK * BN) * static_cast<int>(sizeof(float));
  static std::once_flag vec_flag, scalar_flag;
  const dim3 grid(detail::ceil_div(args.n, BN), detail::ceil_div(args.m, BM));
  if (detail::float4_ok(args)) {
    auto* kernel = cp_async_16b_kernel<BM, BN, BK, kStages, kMinBlocks, true>;
    allow_shared_memory(kernel, kBytes, vec_flag);
    kernel<<<grid, 256, kBytes, stream>>>(args);
  } else {
    auto* kernel = cp_async_16b_kernel<BM, BN, BK, kStages, kMinBlocks, false>;
    allow_shared_memory(kernel, kBytes, scalar_flag);
    kernel<<<grid, 256, kBytes, stream>>>(args);
  }
  CUDA_CHECK_LAUNCH("cp_async_16b_kernel");
}

}  // namespace

// Two blocks per SM (128 registers) spill; one block of 167 registers per SM is faster (docs, section 5).
void launch_cp_async_16b(const MatmulArgs& args, cudaStream_t stream) { launch_config<32, 2, 1>(args, stream); }

namespace tuning {
std::span<const TileConfig> cp_async_16b_configs() {
  static const TileConfig configs[] = {
      {"cp_async_16b 128x128x16 s2", launch_config<16, 2>},
      {"cp_async_16b 128x128x16 s3", launch_config<16, 3>},
      {"cp_async_16b 128x128x16 s4", launch_config<16, 4>},
      {"cp_async_16b 128x128x32 s2", launch_config<32, 2>},
      {"cp_async_16b 128x128x32 s3", launch_config<32, 3>},
      {"cp_async_16b 128x128x8 s4", launch_config<8, 4>},
      {"cp_async_16b 128x128x16 s3 1 block/SM", launch_config<16, 3, 1>},
      {"cp_async_16b 128x128x32 s2 1 block/SM", launch_config<32, 2, 1>},
  };
  return configs;
}
}  // namespace tuning

}  // namespace matmul
