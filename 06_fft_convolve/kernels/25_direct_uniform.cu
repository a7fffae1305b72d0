// 25 direct_uniform: step 23 for K <= 19 with every tap an operand of its multiply-add: the
// filter in constant memory, the tile rows unrolled so that each tap's place is known when
// compiling, and no tap load left in the loop.
//
// Teaches what an FMA's operands cost. Step 23 brings its taps in with loads (a float4 of four
// taps, a broadcast from L1) into ordinary registers, so each FFMA reads three registers: the
// tap, the pixel and the sum. Nsight Compute at K = 15 on 1024 x 1024 (docs/data/
// h100-2026-11-27-h/c3/ncu/) has step 23's warps waiting 0.76 cycles per instruction issued on
// "dispatch" (the scheduler picked the FFMA but could not dispatch it that cycle; three register
// operands that fall in one bank of the register file are read in turns) and 0.90 on "long
// scoreboard" (the tap loads through L1, and the tile copy). Here the taps live in constant
// memory and the K + 1 tile rows of a thread are unrolled, so tap (i, j) has an address known
// when compiling: the compiler reads two taps at a time into a uniform register (ULDC.64: one
// value for the whole warp, from the constant cache) and the FFMA takes it from there. The SASS
// at K = 15 has 3,600 FFMAs, each with a uniform-register operand, 120 ULDCs and no tap load;
// the dispatch stall falls to 0.03 and the long scoreboard to 0.57 (the tile copy is left).
//
// The price is code. Unrolled, a thread's program is its 16 K^2 multiply-adds written out:
// 4,616 instructions at K = 15 (74 KB), 7,032 at K = 19 (112 KB), and each warp runs each of
// them once, so the SM fetches the code as it goes: "no instruction" rises to 1.16 cycles per
// issue (step 23: 0.10) and instruction-cache misses to 0.42 (0.04). Where an SM runs many blocks
// (4096 x 4096: about 30 each) that costs little, and the step is ahead of step 23 from K = 7 on
// (K = 11 / 15 / 19: 63.3 / 73.4 / 74.2% of the FMA ceiling against 52.5 / 62.4 / 68.5%,
// c3/runs/r06_direct4096.txt). Where it runs two (1024 x 1024) it is ahead at K = 11 and 15
// (44.1% against 41.8% at 15) and behind at 7, 9 and 19 (46.7% against 48.4% at 19). Unrolled at
// K = 23 (9,880 instructions, 158 KB), a candidate fell to 33% against step 23's 53% on
// 1024 x 1024 (c1/runs/), so this step stops at K = 19 and step 23 takes the larger filters.
//
// Everything else is step 23's: tile 256 x 16 (cp.async copies of 16 bytes, rows with an empty
// float4 after every two so that the window loads meet no bank conflict), 256 threads, 8 x 2
// outputs per thread, each accumulator the same multiply-adds in the same order, so the results
// are step 23's bit for bit (GpuUniformAtEveryFilterSize checks it at every K).
#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "async_copy.cuh"
#include "course/check.hpp"
#include "fft_convolve.hpp"

namespace fft_convolve {

namespace {

using detail::copy_four_async;
using detail::copy_pixel_async;
using detail::wait_for_copies;

constexpr int kMaxUniformFilterSize = 19;  // above, the unrolled code costs more fetching than it saves
constexpr int kOutputsPerThread = 8;       // P: neighbouring outputs of one row
constexpr int kRowsPerThread = 2;          // R: output rows per thread
constexpr int kThreadsX = 32;
constexpr int kThreadsY = 8;
constexpr int kThreads = kThreadsX * kThreadsY;            // 256
constexpr int kTileWidth = kThreadsX * kOutputsPerThread;  // 256 outputs per tile row
constexpr int kTileHeight = kThreadsY * kRowsPerThread;    // 16 output rows per tile
constexpr int kSizes = (kMaxUniformFilterSize + 1) / 2;    // K = 1, 3, ..., 19: one instance each

// Step 23's tile geometry: the left margin is the radius rounded up to whole float4s, d = margin
// - K / 2 taps at the front of every (shifted) filter row are skipped, and the filter row is
// walked in NC chunks of 4 over the shifted index j' = j + d.
__host__ __device__ constexpr int margin(int k) { return (k / 2 + 3) / 4 * 4; }
__host__ __device__ constexpr int shift(int k) { return margin(k) - k / 2; }
__host__ __device__ constexpr int chunks(int k) { return (k + shift(k) + 3) / 4; }
__host__ __device__ constexpr int row_fours(int k) { return kTileWidth / 4 + chunks(k); }
// A tile row keeps an empty float4 after every two (float4 u at slot u + u / 2): threads 3 slots
// apart, so a warp's 16-byte window loads meet every bank group equally (step 23).
__host__ __device__ constexpr int row_slots(int k) { return row_fours(k) - 1 + (row_fours(k) - 1) / 2 + 1; }
__host__ __device__ constexpr int slot(int u) { return u + u / 2; }
constexpr std::size_t shared_bytes(int k) {
  return static_cast<std::size_t>(kTileHeight + k - 1) * static_cast<std::size_t>(row_slots(k)) * sizeof(float4);
}
// 3 blocks of 256 threads per SM at every K here (55.25 KiB of shared memory at K = 19; the
// unrolled code takes 48 registers a thread).
constexpr int kBlocksPerSm = 3;
static_assert(kBlocksPerSm * (shared_bytes(kMaxUniformFilterSize) + 1024) <= 228 * 1024, "3 blocks per SM");

// The flipped filter, each row as step 23 lays it out in global memory: d zeros, its K taps,
// zeros to whole float4s (row i at float 4 NC i). 19 x 20 floats at most.
constexpr int kRowFloatsMax = 4 * chunks(kMaxUniformFilterSize);
__constant__ float c_uniform_taps[kMaxUniformFilterSize * kRowFloatsMax];
int g_loaded_filter = 0;

// [docs:uniform_chunk]
// The multiply-adds of chunk c of filter row i for one output row; v holds window pixels
// 4c ... 4c + 11. i and c are known when compiling (every loop around this is unrolled), so
// c_uniform_taps[...] has a fixed address: a uniform-register operand of the FFMA, no load.
template <int K>
__device__ __forceinline__ void chunk_sums(int i, int c, const float (&v)[12], float (&acc)[kOutputsPerThread]) {
  constexpr int d = shift(K);
#pragma unroll
  for (int u = 0; u < 4; ++u) {
    const int j = 4 * c + u;
    if (j < d || j >= K + d) continue;  // a padding tap: no code
    const float tap = c_uniform_taps[(i * chunks(K) + c) * 4 + u];
#pragma unroll
    for (int p = 0; p < kOutputsPerThread; ++p) acc[p] = fmaf(tap, v[p + u], acc[p]);
  }
}
// [docs:end uniform_chunk]

// Tile row s (`line`: this thread's window, in float4 slots) for the thread's two output rows:
// output row 0 takes filter row s (if s < K), output row 1 filter row s - 1 (if s >= 1).
template <int K>
__device__ __forceinline__ void tile_row(const float4* line, int s, float (&acc)[kRowsPerThread][kOutputsPerThread]) {
  float4 a = line[slot(0)], b = line[slot(1)];  // the window: pixels 4c ... 4c + 11 of chunk c
#pragma unroll
  for (int c = 0; c < chunks(K); ++c) {
    const float4 next = line[slot(c + 2)];
    const float v[12] = {a.x, a.y, a.z, a.w, b.x, b.y, b.z, b.w, next.x, next.y, next.z, next.w};
    if (s < K) chunk_sums<K>(s, c, v, acc[0]);
    if (s >= 1) chunk_sums<K>(s - 1, c, v, acc[1]);
    a = b;
    b = next;
  }
}

template <int K>
__global__ void __launch_bounds__(kThreads, kBlocksPerSm)
    direct_uniform_kernel(const float* __restrict__ in, float* __restrict__ out, int height, int width,
                          bool wide_copies) {
  static_assert(kRowsPerThread == 2, "tile_row is written out for two output rows per thread");
  constexpr int r = K / 2;
  constexpr int ra = margin(K);
  constexpr int fours = row_fours(K);
  constexpr int stride = row_slots(K);  // float4 slots per tile row
  constexpr int tile_rows = kTileHeight + K - 1;
  extern __shared__ float4 tile[];
  const int col0 = blockIdx.x * kTileWidth, row0 = blockIdx.y * kTileHeight;

  // Load, as step 23: float4 g of tile row a holds x(row0 - r + a, col0 - ra + 4g ... + 3), 0
  // outside the image, at slot(g) of the row; every copy requested before any is waited for.
  const int thread = static_cast<int>(threadIdx.y) * kThreadsX + static_cast<int>(threadIdx.x);
  if (wide_copies) {  // width % 4 == 0, `in` 16-byte aligned: every group whole inside or outside a row
    constexpr int kCopies = tile_rows * fours;
    constexpr int kSteps = (kCopies + kThreads - 1) / kThreads;
#pragma unroll
    for (int m = 0; m < kSteps; ++m) {
      const int e = thread + m * kThreads;
      if (kCopies % kThreads != 0 && e >= kCopies) break;
      const int a = e / fours, g = e % fours;
      const int row = row0 - r + a, col = col0 - ra + 4 * g;
      const int left = width - col;
      const int bytes = row >= 0 && row < height && col >= 0 ? 4 * (left < 0 ? 0 : left < 4 ? left : 4) : 0;
      copy_four_async(tile + a * stride + slot(g), bytes > 0 ? in + static_cast<std::size_t>(row) * width + col : in,
                      bytes);
    }
  } else {  // one pixel at a time, into the same places
    constexpr int kLoadSteps = (4 * fours + kThreadsX - 1) / kThreadsX;
    float* const floats = reinterpret_cast<float*>(tile);
    for (int a = static_cast<int>(threadIdx.y); a < tile_rows; a += kThreadsY) {
      const int row = row0 - r + a;
      const bool row_inside = row >= 0 && row < height;
      const float* source = in + static_cast<std::size_t>(row_inside ? row : 0) * width;
#pragma unroll
      for (int m = 0; m < kLoadSteps; ++m) {
        const int b = static_cast<int>(threadIdx.x) + m * kThreadsX;
        const int col = col0 - ra + b;
        const bool inside = row_inside && col >= 0 && col < width;
        if (b < 4 * fours) {
          copy_pixel_async(floats + 4 * (a * stride + slot(b / 4)) + b % 4, inside ? source + col : in, inside);
        }
      }
    }
  }
  wait_for_copies();
  __syncthreads();

  // Compute: this thread's outputs are tile rows t0, t0 + 1, columns 8 threadIdx.x ... + 7; tile
  // rows t0 + s, s = 0 ... K, all unrolled (the difference from step 23: s is a constant in each
  // copy of tile_row, and so is every tap's address).
  const int lane = static_cast<int>(threadIdx.x);
  const int t0 = static_cast<int>(threadIdx.y) * kRowsPerThread;
  const float4* lines = tile + t0 * stride + slot(2 * lane);
  float acc[kRowsPerThread][kOutputsPerThread] = {};
#pragma unroll
  for (int s = 0; s <= K; ++s) tile_row<K>(lines + s * stride, s, acc);

  const int col = col0 + lane * kOutputsPerThread;
  if (col >= width) return;
#pragma unroll
  for (int q = 0; q < kRowsPerThread; ++q) {
    const int row = row0 + t0 + q;
    if (row >= height) break;
    float* target = out + static_cast<std::size_t>(row) * width + col;
    if (width % 4 == 0 && col + kOutputsPerThread <= width) {  // 16-byte aligned: two float4 stores
      reinterpret_cast<float4*>(target)[0] = make_float4(acc[q][0], acc[q][1], acc[q][2], acc[q][3]);
      reinterpret_cast<float4*>(target)[1] = make_float4(acc[q][4], acc[q][5], acc[q][6], acc[q][7]);
    } else {
#pragma unroll
      for (int p = 0; p < kOutputsPerThread; ++p) {
        if (col + p < width) target[p] = acc[q][p];
      }
    }
  }
}

using KernelFunction = void (*)(const float*, float*, int, int, bool);

// The instance for each odd K up to 19: table[K / 2].
template <std::size_t... I>
constexpr std::array<KernelFunction, sizeof...(I)> instances(std::index_sequence<I...>) {
  return {&direct_uniform_kernel<2 * static_cast<int>(I) + 1>...};
}
constexpr std::array<KernelFunction, kSizes> kInstances = instances(std::make_index_sequence<kSizes>{});

class DirectUniform final : public GpuConvolver {
 public:
  explicit DirectUniform(const GpuProblem& problem) : p_(problem) {}

  std::string unsupported() const override {
    if (p_.filter->size > kMaxUniformFilterSize) {
      return "K above " + std::to_string(kMaxUniformFilterSize) +
             ": the unrolled code would stall on instruction fetch (step 23 takes any K)";
    }
    return "";
  }

  void setup(cudaStream_t stream) override {
    const Filter& f = *p_.filter;
    const int k = f.size, row_floats = 4 * chunks(k), d = shift(k);
    // The flipped filter g(i, j) = f(K-1-i, K-1-j): tap j of row i at float 4 NC i + d + j.
    padded_.assign(static_cast<std::size_t>(k) * static_cast<std::size_t>(row_floats), 0.0f);
    for (int i = 0; i < k; ++i) {
      for (int j = 0; j < k; ++j) {
        padded_[static_cast<std::size_t>(i * row_floats + d + j)] = f.at(k - 1 - i, k - 1 - j);
      }
    }
    kernel_ = kInstances[static_cast<std::size_t>(k / 2)];
    wide_copies_ = p_.width % 4 == 0 && reinterpret_cast<std::uintptr_t>(p_.input->data()) % 16 == 0;
    CUDA_CHECK(cudaFuncSetAttribute(kernel_, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    static_cast<int>(shared_bytes(k))));
    id_ = detail::next_filter_id();
    upload(stream);
    CUDA_CHECK(cudaStreamSynchronize(stream));
  }

  void run(cudaStream_t stream) override {
    if (g_loaded_filter != id_) upload(stream);  // another convolver's filter is in constant memory now
    const dim3 grid((p_.width + kTileWidth - 1) / kTileWidth, (p_.height + kTileHeight - 1) / kTileHeight);
    kernel_<<<grid, dim3(kThreadsX, kThreadsY), shared_bytes(p_.filter->size), stream>>>(
        p_.input->data(), p_.output->data(), p_.height, p_.width, wide_copies_);
    CUDA_CHECK_LAUNCH("direct_uniform_kernel");
  }

  double bytes_per_pixel() const override { return 2 * sizeof(float); }  // the image read once, the result written once
  double flops_per_pixel() const override { return 2.0 * p_.filter->size * p_.filter->size; }

  std::string note() const override {
    const int k = p_.filter->size;
    return "K = " + std::to_string(k) + " compiled, taps as uniform-register operands, tile rows unrolled, tile 256 x " +
           std::to_string(kTileHeight) + " + halo " + std::to_string(k - 1) + ", 8 x 2 outputs per thread, " +
           (wide_copies_ ? "16-byte copies" : "4-byte copies (width not a multiple of 4)") + ", " +
           std::to_string(shared_bytes(k) / 1024) + " KiB shared per block";
  }

 private:
  void upload(cudaStream_t stream) {
    CUDA_CHECK(cudaMemcpyToSymbolAsync(c_uniform_taps, padded_.data(), padded_.size() * sizeof(float), 0,
                                       cudaMemcpyHostToDevice, stream));
    g_loaded_filter = id_;
  }

  GpuProblem p_;
  std::vector<float> padded_;
  KernelFunction kernel_ = nullptr;
  bool wide_copies_ = false;
  int id_ = 0;
};

}  // namespace

std::unique_ptr<GpuConvolver> launch_direct_uniform(const GpuProblem& problem) {
  return std::make_unique<DirectUniform>(problem);
}

}  // namespace fft_convolve
