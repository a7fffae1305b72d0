// gemm_bare.cu: bare FP32 SGEMM candidates against cuBLAS (TF32 off), one process, H100.
//
// Build and run (on the GPU machine):
//   nvcc -O3 -std=c++17 -arch=sm_90 -lcublas -o gemm_bare gemm_bare.cu
//   ./gemm_bare                          # the four default shapes
//   ./gemm_bare 4096 4096x4096x1024      # chosen shapes: N (cube) or MxNxK
//   ./gemm_bare --kernels a,b 8192       # only some candidates (names as printed, or their letters)
//
// What it does. C = A x B, all row-major float, A is M x K, B is K x N. For each shape:
//   1. A and B get a fixed-seed pseudo-random fill in [-1, 1) (a hash of the index, on the GPU).
//   2. cuBLAS computes the reference C with CUBLAS_PEDANTIC_MATH (plain FP32 FFMA, no TF32), and
//      the per-element error bound |A| x |B| (the same call on the absolute values).
//   3. Each candidate runs once into a C poisoned with NaN, and is compared with the reference:
//      err = max over elements of |C - C_ref| / (|A| |B|)_ij. PASS when err <= 1e-4 (a NaN, or an
//      element never written, fails). Any FAIL makes the exit code 1.
//   4. Timing: 3 warm-up calls, then 20 timed calls; before each timed call 256 MiB are written
//      (cudaMemsetAsync) so that L2 (50 MiB) holds nothing of A, B or C; CUDA events bracket the
//      GEMM call alone. The median of the 20 is reported. cuBLAS is timed the same way, in the
//      same process, just before the candidates, and every "% cuBLAS" is against that row.
//   Each line: shape, kernel, median ms, GFLOP/s (2 M N K / t), % of cuBLAS, registers per thread,
//   local memory bytes per thread (non-zero means spills), the verification.
//
// The candidates. All four are written the way the fastest CUDA C++ FP32 SIMT GEMMs are
// (Yinghan Li's sgemm write-up; CUTLASS's SIMT path; cuBLAS's sm80_xmma_gemm_f32f32 ... ffma
// kernels): BK = 8, A stored k-major ("transposed", sA[k][m]) in shared memory so that a thread's
// A fragment is contiguous, each thread's outputs split into 4 x 4 quadrants so that every
// fragment load is one 16-byte LDS.128 and the warp's loads are conflict-free, register fragments
// double-buffered (the loads for step k + 1 are issued before the FMAs of step k), one
// __syncthreads per k-tile, and the next k-tile's global loads issued before the current tile's
// FMAs. They differ in tile shape, thread tile and how the next k-tile travels:
//   a  a_128x128_8x8_ldg     128 x 128 tile, 256 threads of 8 x 8 outputs, 2 blocks per SM (16
//                            warps, 128 registers). Next tile: LDG.128 into registers at the top
//                            of the k-tile, STS into the other of 2 shared buffers at its last
//                            step (Li's kernel).
//   b  b_128x256_8x16_cp3    128 x 256 tile, 256 threads of 8 x 16 outputs, 3-stage cp.async, one
//                            block per SM (8 warps, up to 255 registers). The shape of the
//                            kernel cuBLAS runs at these sizes (tilesize256x128x8_stage3,
//                            warpsize4x2x1): cuBLAS computes the column-major C^T = B^T A^T, so
//                            its "256" runs along our N and its "128" along our M. Warps 2 (M)
//                            x 4 (N), each warp 64 x 64.
//   c  c_128x128_8x8_cp3     a's tile and thread tile with b's transport: 3-stage cp.async, 2
//                            blocks per SM. No registers held for the next tile (a needs 8),
//                            which matters at a's 128-register limit.
//   d  d_128x256_8x16_ldg    b's tile and thread tile with a's transport: LDG into registers,
//                            2 shared buffers (the registers are the third stage).
// Why 8 x 8 vs 8 x 16: per k a thread loads (8 + 8) / 4 = 4 float4 for 64 FMAs in a and c,
// (8 + 16) / 4 = 6 for 128 FMAs in b and d, so the shared-memory pipe and the issue slots it takes
// are 25% lighter per FMA with 8 x 16, at the price of fewer warps (8 per SM) to hide latency with.
//
// Thread layout (all four): a warp is 8 x 4 lanes (ty = lane / 4, tx = lane % 4) over a 64 x WN
// sub-tile (WN = 4 * TN: 32 for 8 x 8, 64 for 8 x 16). A thread's rows are m_first + {0..3} and
// m_first + 32 + {0..3} (m_first = 4 ty), its columns n_first + 16 g + {0..3}, g < TN / 4
// (n_first = 4 tx). Per k, a warp's A loads touch 8 consecutive float4 (128 bytes, all 32 banks
// once; each float4 broadcast to 4 lanes) and its B loads 4 consecutive float4 per g: one
// wavefront each, no conflicts.
//
// The shapes must be multiples of the tiles (checked; this file has no edge handling): M % 256,
// N % 256, K % 8 covers all four.
//
// Resources (nvcc 13.0, -arch=sm_90, -Xptxas -v): a 128 registers, c 127 (both capped by
// __launch_bounds__(256, 2)), b 213, d 233; all 0 bytes of stack and spills. Static shared
// memory: a 16,640 B, c 24,960 B, b 37,248 B, d 24,832 B per block. The program prints the
// registers and local bytes it finds at run time too (cudaFuncGetAttributes).
//
// What to read in the output: the "%cuBLAS" column (goal: >= 95 at every shape), and that every
// line says PASS with an error near 1e-7 (a kernel that is fast but wrong is no candidate). The
// pairs a/c and d/b differ only in transport (registers vs cp.async), the pairs a/d and c/b only
// in tile and thread tile, so the table also says which of the two choices matters. Nsight
// Compute on the best one (issue slots busy, FMA pipe share, stall reasons) against cuBLAS's
// sm80_xmma_gemm_f32f32_f32f32_f32_nn_n_tilesize256x128x8_stage3 tells what is left.

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#define CUDA_CHECK(call)                                                                       \
  do {                                                                                         \
    const cudaError_t err_ = (call);                                                           \
    if (err_ != cudaSuccess) {                                                                 \
      std::fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call,                \
                   cudaGetErrorString(err_));                                                  \
      std::exit(3);                                                                            \
    }                                                                                          \
  } while (0)

#define CUBLAS_CHECK(call)                                                                     \
  do {                                                                                         \
    const cublasStatus_t st_ = (call);                                                         \
    if (st_ != CUBLAS_STATUS_SUCCESS) {                                                        \
      std::fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call,                \
                   cublasGetStatusString(st_));                                                \
      std::exit(3);                                                                            \
    }                                                                                          \
  } while (0)

namespace {

// ---------------------------------------------------------------------------------------------
// cp.async (sm_80+): global -> shared without passing through registers.
// ---------------------------------------------------------------------------------------------
__device__ __forceinline__ void cp_async_4(float* smem, const float* gmem) {
  const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\n" ::"r"(s), "l"(gmem) : "memory");
}
__device__ __forceinline__ void cp_async_16(float* smem, const float* gmem) {
  const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(s), "l"(gmem) : "memory");
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
template <int N>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
}

// ---------------------------------------------------------------------------------------------
// The candidate kernel, one template for all four.
//   BM x BN    block tile (BK = 8 along k), 256 threads, each TM x TN = 8 x TN outputs.
//   kCpAsync   true: the next tiles travel by cp.async into kStages shared buffers.
//              false: by LDG.128 into registers, stored (STS) into the other of 2 shared buffers
//              at the tile's last step (kStages must be 2).
//   kMinBlocks __launch_bounds__ blocks per SM (a, c: 2 -> at most 128 registers; b, d: 1 -> 255).
// ---------------------------------------------------------------------------------------------
constexpr int kThreads = 256;
constexpr int BK = 8;
constexpr int kSwizzle = 8;  // block-rows per group in the block order (see tile_of_block)

// Block -> tile (bm, bn): the blocks go down groups of kSwizzle block-rows column by column, so
// that the blocks resident at one time share a few rows of A and columns of B, which stay in L2.
__device__ __forceinline__ void tile_of_block(int& bm, int& bn) {
  const int grid_n = static_cast<int>(gridDim.x), grid_m = static_cast<int>(gridDim.y);
  const int block = static_cast<int>(blockIdx.y) * grid_n + static_cast<int>(blockIdx.x);
  const int per_group = kSwizzle * grid_n;
  const int first_m = block / per_group * kSwizzle;
  const int rows = min(grid_m - first_m, kSwizzle);
  const int in_group = block % per_group;
  bm = first_m + in_group % rows;
  bn = in_group / rows;
}

template <int BM, int BN, int TN, bool kCpAsync, int kStages, int kMinBlocks>
__global__ void __launch_bounds__(kThreads, kMinBlocks)
    sgemm_kernel(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int M,
                 int N, int K) {
  constexpr int WM = 64, WN = 4 * TN;  // a warp's sub-tile: 8 x 4 lanes of 8 x TN
  constexpr int kGroups = TN / 4;      // float4 column groups per thread (stride 16)
  static_assert(TN == 8 || TN == 16, "thread tile 8 x 8 or 8 x 16");
  static_assert((BM / WM) * (BN / WN) * 32 == kThreads, "8 warps per block");
  static_assert(kCpAsync || kStages == 2, "the register-staged path has 2 shared buffers");
  static_assert(kStages >= 2, "one buffer read while the next is filled");
  // A's tile: BM rows x 8 k. Each thread copies kAF consecutive k of one row (kTPR threads per row).
  constexpr int kAF = BM * BK / kThreads;  // 4 (BM 128) or 8 (BM 256)
  constexpr int kTPR = BK / kAF;           // 2 or 1
  static_assert(kAF % 4 == 0 && kTPR >= 1, "A copy shape");
  // B's tile: 8 k x BN. Each thread copies kBV float4; consecutive threads, consecutive float4.
  constexpr int kF4PerRow = BN / 4;
  constexpr int kBV = BK * kF4PerRow / kThreads;  // 1 (BN 128) or 2 (BN 256)
  constexpr int kBRowStep = kThreads / kF4PerRow;   // rows between a thread's float4
  static_assert(kBV >= 1 && kThreads % kF4PerRow == 0, "B copy shape");
  // Padding: A is written transposed, sA[k][m]. With kTPR = 2 the two threads of a row write
  // k and k + 4; LDA = BM + 4 (LDA % 8 == 4) puts those 16 banks apart: the writes of a warp hit
  // 32 different banks. B needs none (rows written and read as whole float4 runs).
  constexpr int LDA = BM + 4, LDB = BN;

  __shared__ __align__(16) float sA[kStages][BK][LDA];
  __shared__ __align__(16) float sB[kStages][BK][LDB];

  const int tid = static_cast<int>(threadIdx.x);
  int bm = 0, bn = 0;
  tile_of_block(bm, bn);
  const int m0 = bm * BM, n0 = bn * BN;

  // This thread's place in the tile (see the header): rows m_first + {0..3, 32..35},
  // columns n_first + 16 g + {0..3}.
  const int warp = tid / 32, lane = tid % 32;
  const int m_first = (warp / (BN / WN)) * WM + (lane / 4) * 4;
  const int n_first = (warp % (BN / WN)) * WN + (lane % 4) * 4;

  // Its share of the copies. A: row a_row, k a_k .. a_k + kAF - 1 of each tile.
  const int a_row = tid / kTPR, a_k = (tid % kTPR) * kAF;
  const float* a_src = A + static_cast<size_t>(m0 + a_row) * K + a_k;  // advances BK per tile
  // B: rows b_row + j * kBRowStep, columns b_col .. b_col + 3 of each tile.
  const int b_row = tid / kF4PerRow, b_col = (tid % kF4PerRow) * 4;
  const float* b_src = B + static_cast<size_t>(b_row) * N + n0 + b_col;  // advances BK rows per tile
  const size_t b_step = static_cast<size_t>(kBRowStep) * N;
  const size_t b_tile_step = static_cast<size_t>(BK) * N;

  const int tiles = K / BK;

  // cp.async path: issue tile `t`'s copies into stage s (one commit group per call).
  auto copy_async = [&](int s, const float* a, const float* b) {
#pragma unroll
    for (int j = 0; j < kAF; ++j) cp_async_4(&sA[s][a_k + j][a_row], a + j);
#pragma unroll
    for (int j = 0; j < kBV; ++j) cp_async_16(&sB[s][b_row + j * kBRowStep][b_col], b + j * b_step);
  };
  // Register-staged path: the next tile in registers between its LDG and its STS.
  float4 ra[kAF / 4], rb[kBV];
  auto load_regs = [&](const float* a, const float* b) {
#pragma unroll
    for (int v = 0; v < kAF / 4; ++v) ra[v] = __ldg(reinterpret_cast<const float4*>(a + 4 * v));
#pragma unroll
    for (int j = 0; j < kBV; ++j) rb[j] = __ldg(reinterpret_cast<const float4*>(b + j * b_step));
  };
  auto store_regs = [&](int s) {
#pragma unroll
    for (int v = 0; v < kAF / 4; ++v) {
      sA[s][a_k + 4 * v + 0][a_row] = ra[v].x;
      sA[s][a_k + 4 * v + 1][a_row] = ra[v].y;
      sA[s][a_k + 4 * v + 2][a_row] = ra[v].z;
      sA[s][a_k + 4 * v + 3][a_row] = ra[v].w;
    }
#pragma unroll
    for (int j = 0; j < kBV; ++j) *reinterpret_cast<float4*>(&sB[s][b_row + j * kBRowStep][b_col]) = rb[j];
  };

  // Fragments of one k: 2 float4 of A (rows m_first + 0..3, + 32..35), kGroups float4 of B.
  float4 fa[2][2], fb[2][kGroups];
  auto load_frag = [&](int buf, int s, int k) {
    fa[buf][0] = *reinterpret_cast<const float4*>(&sA[s][k][m_first]);
    fa[buf][1] = *reinterpret_cast<const float4*>(&sA[s][k][m_first + 32]);
#pragma unroll
    for (int g = 0; g < kGroups; ++g) fb[buf][g] = *reinterpret_cast<const float4*>(&sB[s][k][n_first + 16 * g]);
  };

  float acc[8][TN];
#pragma unroll
  for (int i = 0; i < 8; ++i) {
#pragma unroll
    for (int j = 0; j < TN; ++j) acc[i][j] = 0.0f;
  }
  auto multiply = [&](int buf) {
    const float a[8] = {fa[buf][0].x, fa[buf][0].y, fa[buf][0].z, fa[buf][0].w,
                        fa[buf][1].x, fa[buf][1].y, fa[buf][1].z, fa[buf][1].w};
    float b[TN];
#pragma unroll
    for (int g = 0; g < kGroups; ++g) {
      b[4 * g + 0] = fb[buf][g].x;
      b[4 * g + 1] = fb[buf][g].y;
      b[4 * g + 2] = fb[buf][g].z;
      b[4 * g + 3] = fb[buf][g].w;
    }
#pragma unroll
    for (int i = 0; i < 8; ++i) {
#pragma unroll
      for (int j = 0; j < TN; ++j) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
    }
  };

  if constexpr (kCpAsync) {
    // Prologue: tiles 0 .. kStages - 2 in flight, one commit group per tile (empty or not), so
    // that "wait until at most kStages - 2 groups are pending" always means "tile t + 1 landed".
#pragma unroll
    for (int s = 0; s < kStages - 1; ++s) {
      if (s < tiles) copy_async(s, a_src + s * BK, b_src + s * b_tile_step);
      cp_async_commit();
    }
    cp_async_wait<kStages - 2>();  // tile 0: this thread's copies ...
    __syncthreads();               // ... and everyone's
    load_frag(0, 0, 0);
    int read_stage = 0, write_stage = kStages - 1;
    const float* a_next = a_src + (kStages - 1) * BK;
    const float* b_next = b_src + (kStages - 1) * b_tile_step;
    for (int t = 0; t < tiles; ++t) {
      // Refill the stage tile t - 1 used: every thread passed the barrier at the end of tile
      // t - 1, after its last read of that stage. The copies run during this tile's FMAs.
      if (t + kStages - 1 < tiles) copy_async(write_stage, a_next, b_next);
      cp_async_commit();
      a_next += BK;
      b_next += b_tile_step;
      write_stage = write_stage + 1 == kStages ? 0 : write_stage + 1;
#pragma unroll
      for (int kk = 0; kk < BK; ++kk) {
        if (kk < BK - 1) {
          load_frag((kk + 1) & 1, read_stage, kk + 1);  // step kk + 1's operands, before step kk's FMAs
        } else if (t + 1 < tiles) {
          // The tile's one barrier: tile t + 1 has landed (wait) for everyone (barrier), and
          // after it nobody reads tile t's stage again. Then step 0 of tile t + 1's operands.
          cp_async_wait<kStages - 2>();
          __syncthreads();
          read_stage = read_stage + 1 == kStages ? 0 : read_stage + 1;
          load_frag(0, read_stage, 0);
        }
        multiply(kk & 1);
      }
    }
    cp_async_wait<0>();
  } else {
    // Li's scheme: tile 0 through registers into buffer 0; then, per tile t, LDG of tile t + 1
    // at the top (its latency hidden behind 7 steps of FMAs), STS into the other buffer at the
    // last step, one barrier, and step 0 of tile t + 1's fragments from that buffer.
    load_regs(a_src, b_src);
    store_regs(0);
    __syncthreads();
    load_frag(0, 0, 0);
    int cur = 0;
    for (int t = 0; t < tiles; ++t) {
      if (t + 1 < tiles) {
        a_src += BK;
        b_src += b_tile_step;
        load_regs(a_src, b_src);
      }
#pragma unroll
      for (int kk = 0; kk < BK; ++kk) {
        if (kk < BK - 1) {
          load_frag((kk + 1) & 1, cur, kk + 1);
        } else if (t + 1 < tiles) {
          // Buffer cur ^ 1 was last read during tile t - 1, before that tile's barrier.
          store_regs(cur ^ 1);
          __syncthreads();
          cur ^= 1;
          load_frag(0, cur, 0);
        }
        multiply(kk & 1);
      }
    }
  }

  // Epilogue: each row of the thread's 8 as kGroups float4 stores.
#pragma unroll
  for (int i = 0; i < 8; ++i) {
    const int row = m0 + m_first + (i / 4) * 32 + i % 4;
    float* c_row = C + static_cast<size_t>(row) * N + n0 + n_first;
#pragma unroll
    for (int g = 0; g < kGroups; ++g) {
      *reinterpret_cast<float4*>(c_row + 16 * g) =
          make_float4(acc[i][4 * g], acc[i][4 * g + 1], acc[i][4 * g + 2], acc[i][4 * g + 3]);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// The candidates' table.
// ---------------------------------------------------------------------------------------------
using KernelFn = void (*)(const float*, const float*, float*, int, int, int);

struct Candidate {
  const char* name;
  const char* letter;
  KernelFn fn;
  int bm, bn;
};

const Candidate kCandidates[] = {
    {"a_128x128_8x8_ldg", "a", sgemm_kernel<128, 128, 8, false, 2, 2>, 128, 128},
    {"b_128x256_8x16_cp3", "b", sgemm_kernel<128, 256, 16, true, 3, 1>, 128, 256},
    {"c_128x128_8x8_cp3", "c", sgemm_kernel<128, 128, 8, true, 3, 2>, 128, 128},
    {"d_128x256_8x16_ldg", "d", sgemm_kernel<128, 256, 16, false, 2, 1>, 128, 256},
};

void launch(const Candidate& c, const float* A, const float* B, float* C, int M, int N, int K) {
  const dim3 grid(static_cast<unsigned>(N / c.bn), static_cast<unsigned>(M / c.bm));
  c.fn<<<grid, kThreads>>>(A, B, C, M, N, K);
  CUDA_CHECK(cudaGetLastError());
}

// ---------------------------------------------------------------------------------------------
// Inputs, verification.
// ---------------------------------------------------------------------------------------------
__device__ __forceinline__ std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// p[i] = uniform in [-1, 1) from (seed, i): the same values on every run and every GPU.
__global__ void fill_uniform(float* p, size_t n, std::uint64_t seed) {
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<size_t>(gridDim.x) * blockDim.x) {
    const std::uint64_t r = splitmix64(seed * 0x100000001B3ull + i);
    p[i] = static_cast<float>(r >> 40) * (2.0f / 16777216.0f) - 1.0f;  // 24 random bits
  }
}

__global__ void abs_copy(const float* in, float* out, size_t n) {
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<size_t>(gridDim.x) * blockDim.x) {
    out[i] = fabsf(in[i]);
  }
}

// *worst = max over i of |c[i] - ref[i]| / bound[i], as float bits (non-negative floats order
// like their bit patterns). A NaN or infinite difference counts as +infinity.
__global__ void max_rel_error(const float* c, const float* ref, const float* bound, size_t n, unsigned* worst) {
  float local = 0.0f;
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<size_t>(gridDim.x) * blockDim.x) {
    float e = fabsf(c[i] - ref[i]) / fmaxf(bound[i], 1e-30f);
    if (!(e <= 3.0e38f)) e = INFINITY;  // NaN fails too
    local = fmaxf(local, e);
  }
  atomicMax(worst, __float_as_uint(local));
}

template <class T>
struct DeviceBuffer {
  T* p = nullptr;
  explicit DeviceBuffer(size_t n) { CUDA_CHECK(cudaMalloc(&p, n * sizeof(T))); }
  ~DeviceBuffer() { cudaFree(p); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
};

struct Shape {
  int m, n, k;
};

// Row-major C (M x N) = A (M x K) x B (K x N) with column-major cuBLAS: the same memory read
// column-major is C^T (N x M, ld N) = B^T (N x K, ld N) x A^T (K x M, ld K).
void cublas_rowmajor(cublasHandle_t h, const float* A, const float* B, float* C, int M, int N, int K) {
  const float one = 1.0f, zero = 0.0f;
  CUBLAS_CHECK(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &one, B, N, A, K, &zero, C, N));
}

constexpr int kWarmups = 3, kTimed = 20;
constexpr size_t kFlushBytes = size_t{256} << 20;
constexpr float kTolerance = 1e-4f;

template <class F>
float median_ms(F&& call, void* flush, cudaEvent_t start, cudaEvent_t stop) {
  for (int i = 0; i < kWarmups; ++i) call();
  std::vector<float> ms(kTimed);
  for (int i = 0; i < kTimed; ++i) {
    CUDA_CHECK(cudaMemsetAsync(flush, i & 0xFF, kFlushBytes));  // L2 holds none of A, B, C
    CUDA_CHECK(cudaEventRecord(start));
    call();
    CUDA_CHECK(cudaEventRecord(stop));
    CUDA_CHECK(cudaEventSynchronize(stop));
    CUDA_CHECK(cudaEventElapsedTime(&ms[i], start, stop));
  }
  std::sort(ms.begin(), ms.end());
  return 0.5f * (ms[kTimed / 2 - 1] + ms[kTimed / 2]);
}

bool parse_int(const std::string& s, int& out) {
  if (s.empty() || s.size() > 9) return false;
  for (char ch : s) {
    if (ch < '0' || ch > '9') return false;
  }
  out = std::atoi(s.c_str());
  return out > 0;
}

bool parse_shape(const std::string& s, Shape& shape) {
  const size_t x1 = s.find('x');
  if (x1 == std::string::npos) {
    int n = 0;
    if (!parse_int(s, n)) return false;
    shape = {n, n, n};
    return true;
  }
  const size_t x2 = s.find('x', x1 + 1);
  if (x2 == std::string::npos) return false;
  return parse_int(s.substr(0, x1), shape.m) && parse_int(s.substr(x1 + 1, x2 - x1 - 1), shape.n) &&
         parse_int(s.substr(x2 + 1), shape.k);
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<Shape> shapes;
  std::vector<const Candidate*> chosen;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--kernels") {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "--kernels needs a comma-separated list (a,b,c,d or full names)\n");
        return 2;
      }
      std::string list = argv[++i];
      size_t pos = 0;
      while (pos <= list.size()) {
        const size_t comma = std::min(list.find(',', pos), list.size());
        const std::string name = list.substr(pos, comma - pos);
        const Candidate* found = nullptr;
        for (const Candidate& c : kCandidates) {
          if (name == c.name || name == c.letter) found = &c;
        }
        if (found == nullptr) {
          std::fprintf(stderr, "--kernels: unknown kernel '%s'\n", name.c_str());
          return 2;
        }
        chosen.push_back(found);
        pos = comma + 1;
      }
    } else if (arg == "-h" || arg == "--help") {
      std::printf("usage: %s [--kernels a,b,c,d] [N | MxNxK]...  (default: 2048 4096 8192 4096x4096x1024)\n",
                  argv[0]);
      return 0;
    } else {
      Shape s{};
      if (!parse_shape(arg, s)) {
        std::fprintf(stderr, "shape '%s': expected N or MxNxK (positive integers)\n", arg.c_str());
        return 2;
      }
      shapes.push_back(s);
    }
  }
  if (shapes.empty()) shapes = {{2048, 2048, 2048}, {4096, 4096, 4096}, {8192, 8192, 8192}, {4096, 4096, 1024}};
  if (chosen.empty()) {
    for (const Candidate& c : kCandidates) chosen.push_back(&c);
  }
  for (const Shape& s : shapes) {
    for (const Candidate* c : chosen) {
      if (s.m % c->bm != 0 || s.n % c->bn != 0 || s.k % BK != 0) {
        std::fprintf(stderr, "shape %dx%dx%d: %s needs M %% %d == 0, N %% %d == 0, K %% %d == 0\n", s.m, s.n,
                     s.k, c->name, c->bm, c->bn, BK);
        return 2;
      }
    }
  }

  int device = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  cudaDeviceProp prop{};
  CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
  std::printf("device: %s, %d SMs; cuBLAS with CUBLAS_PEDANTIC_MATH (FP32 FFMA, TF32 off)\n", prop.name,
              prop.multiProcessorCount);
  std::printf("timing: median of %d calls after %d warm-ups, %zu MiB written before each timed call\n",
              kTimed, kWarmups, kFlushBytes >> 20);

  cublasHandle_t handle = nullptr;
  CUBLAS_CHECK(cublasCreate(&handle));
  CUBLAS_CHECK(cublasSetMathMode(handle, CUBLAS_PEDANTIC_MATH));
  cudaEvent_t start = nullptr, stop = nullptr;
  CUDA_CHECK(cudaEventCreate(&start));
  CUDA_CHECK(cudaEventCreate(&stop));
  DeviceBuffer<unsigned char> flush(kFlushBytes);
  DeviceBuffer<unsigned> worst(1);

  std::printf("%-16s %-20s %9s %10s %9s %5s %6s  %s\n", "shape", "kernel", "ms", "GFLOP/s", "%cuBLAS", "regs",
              "local", "check (max |C - ref| / (|A||B|))");
  bool all_pass = true;
  for (const Shape& s : shapes) {
    const size_t a_n = static_cast<size_t>(s.m) * s.k, b_n = static_cast<size_t>(s.k) * s.n,
                 c_n = static_cast<size_t>(s.m) * s.n;
    DeviceBuffer<float> a(a_n), b(b_n), c(c_n), ref(c_n), bound(c_n), abs_a(a_n), abs_b(b_n);
    fill_uniform<<<1024, 256>>>(a.p, a_n, 1);
    fill_uniform<<<1024, 256>>>(b.p, b_n, 2);
    abs_copy<<<1024, 256>>>(a.p, abs_a.p, a_n);
    abs_copy<<<1024, 256>>>(b.p, abs_b.p, b_n);
    CUDA_CHECK(cudaGetLastError());
    cublas_rowmajor(handle, a.p, b.p, ref.p, s.m, s.n, s.k);
    cublas_rowmajor(handle, abs_a.p, abs_b.p, bound.p, s.m, s.n, s.k);
    CUDA_CHECK(cudaDeviceSynchronize());

    char shape_name[48];
    std::snprintf(shape_name, sizeof shape_name, "%dx%dx%d", s.m, s.n, s.k);
    const double flop = 2.0 * s.m * static_cast<double>(s.n) * s.k;
    const float cublas_ms =
        median_ms([&] { cublas_rowmajor(handle, a.p, b.p, c.p, s.m, s.n, s.k); }, flush.p, start, stop);
    std::printf("%-16s %-20s %9.4f %10.0f %8.1f%% %5s %6s  reference\n", shape_name, "cublas_sgemm", cublas_ms,
                flop / cublas_ms * 1e-6, 100.0, "-", "-");
    std::fflush(stdout);

    for (const Candidate* cand : chosen) {
      // Verify: NaN-poisoned C (every bit set), one call, compare with cuBLAS's C.
      CUDA_CHECK(cudaMemset(c.p, 0xFF, c_n * sizeof(float)));
      launch(*cand, a.p, b.p, c.p, s.m, s.n, s.k);
      CUDA_CHECK(cudaMemset(worst.p, 0, sizeof(unsigned)));
      max_rel_error<<<1024, 256>>>(c.p, ref.p, bound.p, c_n, worst.p);
      CUDA_CHECK(cudaGetLastError());
      unsigned bits = 0;
      CUDA_CHECK(cudaMemcpy(&bits, worst.p, sizeof bits, cudaMemcpyDeviceToHost));
      float err = 0.0f;
      std::memcpy(&err, &bits, sizeof err);
      const bool pass = err <= kTolerance;
      all_pass = all_pass && pass;

      const float ms = median_ms([&] { launch(*cand, a.p, b.p, c.p, s.m, s.n, s.k); }, flush.p, start, stop);
      cudaFuncAttributes attr{};
      CUDA_CHECK(cudaFuncGetAttributes(&attr, cand->fn));
      std::printf("%-16s %-20s %9.4f %10.0f %8.1f%% %5d %6zu  %s %.2e\n", shape_name, cand->name, ms,
                  flop / ms * 1e-6, 100.0 * cublas_ms / ms, attr.numRegs, attr.localSizeBytes,
                  pass ? "PASS" : "FAIL", static_cast<double>(err));
      std::fflush(stdout);
    }
  }
  CUDA_CHECK(cudaEventDestroy(start));
  CUDA_CHECK(cudaEventDestroy(stop));
  CUBLAS_CHECK(cublasDestroy(handle));
  std::printf("%s\n", all_pass ? "all PASS" : "FAIL: at least one kernel disagrees with cuBLAS");
  return all_pass ? 0 : 1;
}
