// 28 direct_tall: step 27 on a taller, narrower tile, 128 x 32 outputs instead of 256 x 16, so
// that fewer of the pixels a block copies are halo.
//
// Teaches the tile's shape. A block copies its outputs plus a halo of K - 1 rows and about K
// columns. Step 27's 256 x 16 tile copies 16 + K - 1 rows of about 256 + K columns for 256 x
// 16 outputs: at K = 15, 30 rows for 16, 1.99 pixels a pixel written. A tile of 128 x 32 with the
// same 256 threads copies 46 rows for 32 and 144 columns for 128: 1.62 pixels a pixel written,
// 38 KiB of shared memory instead of 47 KiB. Nothing else changes: each thread still makes 8
// neighbouring outputs of two rows from the same window loads and the same uniform-register taps,
// now rows y and y + 16 of the tile, and a warp covers two tile rows of 16 threads (each
// quarter-warp of a 16-byte load still meets every bank group once). On the H100
// (docs/data/h100-2026-12-07-c/c3/) it is faster than step 27 at every K from 3 to 23 on
// 4096 x 4096 (K = 15: 0.165 against 0.171 ms) and from K = 5 to 23 on 1024 x 1024 (K = 15:
// 0.0162 to 0.0163 against 0.0168 to 0.0171 ms; at K = 3 up to 2% slower). The results are step
// 23's bit for bit (the same multiply-adds in the same order; GpuTallAtEveryFilterSize checks
// every K).
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

constexpr int kMaxUniformFilterSize = 23;  // as step 27 (K = 23: 47 KiB of shared memory, 69 registers)
constexpr int kOutputsPerThread = 8;       // P: neighbouring outputs of one row
constexpr int kRowsPerThread = 2;          // R: output rows per thread
constexpr int kThreadsX = 16;
constexpr int kThreadsY = 16;
constexpr int kThreads = kThreadsX * kThreadsY;            // 256
constexpr int kTileWidth = kThreadsX * kOutputsPerThread;  // 128 outputs per tile row
constexpr int kTileHeight = kThreadsY * kRowsPerThread;    // 32 output rows per tile
constexpr int kSizes = (kMaxUniformFilterSize + 1) / 2;    // K = 1, 3, ..., 23: one instance each

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
// 3 blocks of 256 threads per SM at every K here (47 KiB of shared memory at K = 23; up to 72
// registers a thread, under the 80 that three blocks leave).
constexpr int kBlocksPerSm = 3;
static_assert(kBlocksPerSm * (shared_bytes(kMaxUniformFilterSize) + 1024) <= 228 * 1024, "3 blocks per SM");

// The flipped filter, each row as step 23 lays it out in global memory: d zeros, its K taps,
// zeros to whole float4s (row i at float 4 NC i). 23 x 24 floats at most.
constexpr int kRowFloatsMax = 4 * chunks(kMaxUniformFilterSize);
__constant__ float c_tall_taps[kMaxUniformFilterSize * kRowFloatsMax];
int g_loaded_tall_filter = 0;

// Step 25's chunk: the multiply-adds of chunk c of filter row i for one output row; v holds
// window pixels 4c ... 4c + 11. i and c are known when compiling (the loops over them are
// unrolled), so c_tall_taps[...] has a fixed address: a uniform-register operand of the FFMA.
template <int K>
__device__ __forceinline__ void chunk_sums(int i, int c, const float (&v)[12], float (&acc)[kOutputsPerThread]) {
  constexpr int d = shift(K);
#pragma unroll
  for (int u = 0; u < 4; ++u) {
    const int j = 4 * c + u;
    if (j < d || j >= K + d) continue;  // a padding tap: no code
    const float tap = c_tall_taps[(i * chunks(K) + c) * 4 + u];
#pragma unroll
    for (int p = 0; p < kOutputsPerThread; ++p) acc[p] = fmaf(tap, v[p + u], acc[p]);
  }
}

// Filter row i against tile row `line` (this thread's window in it) for one output row.
template <int K>
__device__ __forceinline__ void filter_row(const float4* line, int i, float (&acc)[kOutputsPerThread]) {
  float4 a = line[slot(0)], b = line[slot(1)];  // the window: pixels 4c ... 4c + 11 of chunk c
#pragma unroll
  for (int c = 0; c < chunks(K); ++c) {
    const float4 next = line[slot(c + 2)];
    const float v[12] = {a.x, a.y, a.z, a.w, b.x, b.y, b.z, b.w, next.x, next.y, next.z, next.w};
    chunk_sums<K>(i, c, v, acc);
    a = b;
    b = next;
  }
}

template <int K>
__global__ void __launch_bounds__(kThreads, kBlocksPerSm)
    direct_tall_kernel(const float* __restrict__ in, float* __restrict__ out, int height, int width,
                          bool wide_copies) {
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

  // [docs:tall_rows]
  // Compute: this thread's outputs are tile rows y and y + 16, columns 8 threadIdx.x ... + 7; the
  // loop over the two rows moves only the window, as in step 27.
  const int lane = static_cast<int>(threadIdx.x);
  const int y = static_cast<int>(threadIdx.y);
  const float4* lines = tile + y * stride + slot(2 * lane);
  const int col = col0 + lane * kOutputsPerThread;
#pragma unroll 1
  for (int q = 0; q < kRowsPerThread; ++q) {
    float acc[kOutputsPerThread] = {};
#pragma unroll
    for (int i = 0; i < K; ++i) filter_row<K>(lines + (q * kThreadsY + i) * stride, i, acc);
    // [docs:end tall_rows]
    const int row = row0 + y + q * kThreadsY;
    if (row >= height || col >= width) continue;
    float* target = out + static_cast<std::size_t>(row) * width + col;
    if (width % 4 == 0 && col + kOutputsPerThread <= width) {  // 16-byte aligned: two float4 stores
      reinterpret_cast<float4*>(target)[0] = make_float4(acc[0], acc[1], acc[2], acc[3]);
      reinterpret_cast<float4*>(target)[1] = make_float4(acc[4], acc[5], acc[6], acc[7]);
    } else {
#pragma unroll
      for (int p = 0; p < kOutputsPerThread; ++p) {
        if (col + p < width) target[p] = acc[p];
      }
    }
  }
}

using KernelFunction = void (*)(const float*, float*, int, int, bool);

// The instance for each odd K up to 23: table[K / 2].
template <std::size_t... I>
constexpr std::array<KernelFunction, sizeof...(I)> instances(std::index_sequence<I...>) {
  return {&direct_tall_kernel<2 * static_cast<int>(I) + 1>...};
}
constexpr std::array<KernelFunction, kSizes> kInstances = instances(std::make_index_sequence<kSizes>{});

class DirectTall final : public GpuConvolver {
 public:
  explicit DirectTall(const GpuProblem& problem) : p_(problem) {}

  std::string unsupported() const override {
    if (p_.filter->size > kMaxUniformFilterSize) {
      return "K above " + std::to_string(kMaxUniformFilterSize) + ": compiled up to " +
             std::to_string(kMaxUniformFilterSize) + ", as step 27 (step 23 takes any K)";
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
    if (g_loaded_tall_filter != id_) upload(stream);  // another convolver's filter is in constant memory now
    const dim3 grid((p_.width + kTileWidth - 1) / kTileWidth, (p_.height + kTileHeight - 1) / kTileHeight);
    kernel_<<<grid, dim3(kThreadsX, kThreadsY), shared_bytes(p_.filter->size), stream>>>(
        p_.input->data(), p_.output->data(), p_.height, p_.width, wide_copies_);
    CUDA_CHECK_LAUNCH("direct_tall_kernel");
  }

  double bytes_per_pixel() const override { return 2 * sizeof(float); }  // the image read once, the result written once
  double flops_per_pixel() const override { return 2.0 * p_.filter->size * p_.filter->size; }

  std::string note() const override {
    const int k = p_.filter->size;
    return "K = " + std::to_string(k) + " compiled, taps as uniform-register operands, output rows in a loop, tile 128 x " +
           std::to_string(kTileHeight) + " + halo " + std::to_string(k - 1) + ", 8 x 2 outputs per thread (rows y, y + 16), " +
           (wide_copies_ ? "16-byte copies" : "4-byte copies (width not a multiple of 4)") + ", " +
           std::to_string(shared_bytes(k) / 1024) + " KiB shared per block";
  }

 private:
  void upload(cudaStream_t stream) {
    CUDA_CHECK(cudaMemcpyToSymbolAsync(c_tall_taps, padded_.data(), padded_.size() * sizeof(float), 0,
                                       cudaMemcpyHostToDevice, stream));
    g_loaded_tall_filter = id_;
  }

  GpuProblem p_;
  std::vector<float> padded_;
  KernelFunction kernel_ = nullptr;
  bool wide_copies_ = false;
  int id_ = 0;
};

}  // namespace

std::unique_ptr<GpuConvolver> launch_direct_tall(const GpuProblem& problem) {
  return std::make_unique<DirectTall>(problem);
}

}  // namespace fft_convolve
