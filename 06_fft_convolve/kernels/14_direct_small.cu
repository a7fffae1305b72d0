// 14 direct_small: the direct convolution for small filters (K <= 7) at the memory's limit.
//
// Teaches what a memory-bound stencil needs once its arithmetic is cheap, and why step 06 fell
// short of the copy at 5 x 5 (58% of it at 4096 x 4096 on the first GPU run, an H200):
//  - bytes in flight, not instructions: DRAM keeps its bandwidth only with enough loads
//    outstanding (latency x bandwidth: a few tens of KiB per SM). Step 06 loads a shared tile one
//    4-byte element per thread at a time, a tile row per round, then waits at __syncthreads before
//    any sum: few bytes in flight per SM, and none while a block sums. Here each thread issues all
//    its loads at once (K + 7 rows of 16 bytes, from registers, no shared memory, no barrier) and
//    only then computes: every warp keeps K + 7 coalesced 512-byte loads in flight.
//  - adjacent threads touch adjacent addresses, for loads and stores: a thread owns 4 neighbouring
//    columns (one float4) of 8 output rows; a warp reads and writes 32 x 16 = 512 contiguous bytes
//    per instruction. (Step 06's thread owns 8 columns: its two float4 stores per row leave 16-byte
//    holes between threads, and its shared float4 loads at a 32-byte stride conflict two ways.)
//  - the halo from the neighbours' registers: the K - 1 columns a thread needs left and right of
//    its 4 are in lanes - 1 and + 1, fetched with __shfl_up_sync / __shfl_down_sync. The warp's
//    two edge lanes only load: they are the halo of the 30 lanes between them (their results are
//    not stored), so no lane loads anything but one aligned float4 per row.
//  - the filter size as a template parameter: K = 1, 3, 5, 7 are compiled, every loop unrolls,
//    and each tap is an immediate constant-memory operand of its FMA (no load instruction at all).
//    Larger filters are FMA-bound, not memory-bound: step 06 takes them.
// The rolling window: input row s serves output rows s - K + 1 ... s (filter row i = s - m), so
// each loaded row is used K times from registers: a pixel is loaded (K + 7) / 8 times from L1/L2
// and once from DRAM.
#include <cstdint>
#include <stdexcept>
#include <memory>
#include <string>
#include <vector>

#include "course/check.hpp"
#include "fft_convolve.hpp"

namespace fft_convolve {

namespace {

constexpr int kLargestSmall = 7;                               // the largest K this step compiles
constexpr int kRowsPerThread = 8;                              // M: output rows of one thread
constexpr int kWarpsPerBlock = 4;                              // 128 threads per block
constexpr int kGroupsPerWarp = 30;                             // float4 column groups a warp stores
constexpr unsigned kFullMask = 0xffffffffu;

// The flipped filter g(i, j) = f(K-1-i, K-1-j), row-major with K columns.
__constant__ float c_small_taps[kLargestSmall * kLargestSmall];
int g_loaded_filter = 0;  // which convolver's filter c_small_taps holds (detail::next_filter_id)

// Pixels col ... col + 3 of image row `row`, 0 outside the image: one aligned 16-byte load when
// rows are 16-byte aligned (`vec`: width a multiple of 4) and the four are inside, else four.
__device__ __forceinline__ float4 load_four(const float* __restrict__ in, int row, int col, int height, int width,
                                            bool vec) {
  if (row < 0 || row >= height) return make_float4(0.0f, 0.0f, 0.0f, 0.0f);
  const float* line = in + static_cast<std::size_t>(row) * width;
  if (vec && col >= 0 && col < width) return __ldg(reinterpret_cast<const float4*>(line + col));
  float v[4];
#pragma unroll
  for (int p = 0; p < 4; ++p) v[p] = (col + p >= 0 && col + p < width) ? __ldg(line + col + p) : 0.0f;
  return make_float4(v[0], v[1], v[2], v[3]);
}

template <int K>
__global__ void __launch_bounds__(kWarpsPerBlock * 32)
    direct_small_kernel(const float* __restrict__ in, float* __restrict__ out, int height, int width, bool vec) {
  constexpr int R = K / 2;
  constexpr int kInputRows = kRowsPerThread + K - 1;
  const int lane = static_cast<int>(threadIdx.x % 32);
  const int warp = static_cast<int>(blockIdx.x) * kWarpsPerBlock + static_cast<int>(threadIdx.x / 32);
  if (4 * kGroupsPerWarp * warp >= width) return;  // the whole warp is right of the image
  // Lane 0 holds the 4 columns left of the warp's 120, lane 31 the 4 right of them.
  const int col = 4 * (kGroupsPerWarp * warp + lane - 1);
  const int row0 = static_cast<int>(blockIdx.y) * kRowsPerThread;

  // [docs:small_window]
  // Every load first: K + 7 rows of 16 bytes per thread in flight together.
  float4 x[kInputRows];
#pragma unroll
  for (int s = 0; s < kInputRows; ++s) x[s] = load_four(in, row0 - R + s, col, height, width, vec);

  float acc[kRowsPerThread][4] = {};
#pragma unroll
  for (int s = 0; s < kInputRows; ++s) {
    // w[b] = pixel (row0 - R + s, col - R + b): R from lane - 1, this lane's 4, R from lane + 1.
    const float mine[4] = {x[s].x, x[s].y, x[s].z, x[s].w};
    float w[4 + 2 * R];
#pragma unroll
    for (int j = 0; j < R; ++j) {
      w[j] = __shfl_up_sync(kFullMask, mine[4 - R + j], 1);
      w[R + 4 + j] = __shfl_down_sync(kFullMask, mine[j], 1);
    }
#pragma unroll
    for (int p = 0; p < 4; ++p) w[R + p] = mine[p];
    // Input row s, filter row i, serves output row m = s - i.
#pragma unroll
    for (int i = 0; i < K; ++i) {
      const int m = s - i;
      if (m < 0 || m >= kRowsPerThread) continue;  // known at compile time: no branch is left
#pragma unroll
      for (int j = 0; j < K; ++j) {
#pragma unroll
        for (int p = 0; p < 4; ++p) acc[m][p] = fmaf(c_small_taps[i * K + j], w[p + j], acc[m][p]);
      }
    }
  }
  // [docs:end small_window]

  if (lane == 0 || lane == 31 || col >= width) return;  // halo lanes, columns right of the image
#pragma unroll
  for (int m = 0; m < kRowsPerThread; ++m) {
    const int row = row0 + m;
    if (row >= height) break;
    float* target = out + static_cast<std::size_t>(row) * width + col;
    if (vec) {
      *reinterpret_cast<float4*>(target) = make_float4(acc[m][0], acc[m][1], acc[m][2], acc[m][3]);
    } else {
#pragma unroll
      for (int p = 0; p < 4; ++p) {
        if (col + p < width) target[p] = acc[m][p];
      }
    }
  }
}

class DirectSmall final : public GpuConvolver {
 public:
  explicit DirectSmall(const GpuProblem& problem) : p_(problem) {}

  std::string unsupported() const override {
    if (p_.filter->size > kLargestSmall) {
      return "the filter is larger than " + std::to_string(kLargestSmall) + " x " + std::to_string(kLargestSmall) +
             " (this step is compiled for K = 1, 3, 5, 7; direct_blocked takes any K)";
    }
    return "";
  }

  void setup(cudaStream_t stream) override {
    const Filter& f = *p_.filter;
    flipped_.resize(f.taps.size());
    for (int i = 0; i < f.size; ++i) {
      for (int j = 0; j < f.size; ++j) flipped_[static_cast<std::size_t>(i * f.size + j)] = f.at(f.size - 1 - i, f.size - 1 - j);
    }
    id_ = detail::next_filter_id();
    upload(stream);
    CUDA_CHECK(cudaStreamSynchronize(stream));
  }

  void run(cudaStream_t stream) override {
    if (g_loaded_filter != id_) upload(stream);  // another convolver's filter is in c_small_taps now
    const float* in = p_.input->data();
    float* out = p_.output->data();
    // 16-byte loads and stores need every row 16-byte aligned: the width a multiple of 4 and the
    // buffers aligned (cudaMalloc's are).
    const bool vec = p_.width % 4 == 0 && reinterpret_cast<std::uintptr_t>(in) % 16 == 0 &&
                     reinterpret_cast<std::uintptr_t>(out) % 16 == 0;
    const int warps = (p_.width + 4 * kGroupsPerWarp - 1) / (4 * kGroupsPerWarp);
    const dim3 grid((warps + kWarpsPerBlock - 1) / kWarpsPerBlock, (p_.height + kRowsPerThread - 1) / kRowsPerThread);
    const dim3 block(kWarpsPerBlock * 32);
    switch (p_.filter->size) {
      case 1: direct_small_kernel<1><<<grid, block, 0, stream>>>(in, out, p_.height, p_.width, vec); break;
      case 3: direct_small_kernel<3><<<grid, block, 0, stream>>>(in, out, p_.height, p_.width, vec); break;
      case 5: direct_small_kernel<5><<<grid, block, 0, stream>>>(in, out, p_.height, p_.width, vec); break;
      case 7: direct_small_kernel<7><<<grid, block, 0, stream>>>(in, out, p_.height, p_.width, vec); break;
      default: throw std::logic_error("direct_small: K = " + std::to_string(p_.filter->size) + " is not compiled");
    }
    CUDA_CHECK_LAUNCH("direct_small_kernel");
  }

  double bytes_per_pixel() const override { return 2 * sizeof(float); }  // the image read once, the result written once
  double flops_per_pixel() const override {
    return 2.0 * p_.filter->size * p_.filter->size;  // K^2 multiply-adds, 2 flops each
  }

  std::string note() const override {
    return "4 x " + std::to_string(kRowsPerThread) + " outputs per thread, " + std::to_string(kRowsPerThread + p_.filter->size - 1) +
           " float4 loads in flight per thread, halo by warp shuffles, K = " + std::to_string(p_.filter->size) + " compiled";
  }

 private:
  void upload(cudaStream_t stream) {
    CUDA_CHECK(cudaMemcpyToSymbolAsync(c_small_taps, flipped_.data(), flipped_.size() * sizeof(float), 0,
                                       cudaMemcpyHostToDevice, stream));
    g_loaded_filter = id_;
  }

  GpuProblem p_;
  std::vector<float> flipped_;
  int id_ = 0;
};

}  // namespace

std::unique_ptr<GpuConvolver> launch_direct_small(const GpuProblem& problem) {
  return std::make_unique<DirectSmall>(problem);
}

}  // namespace fft_convolve
