// 27 direct_uniform_rows: step 25 with half its code: a thread's two output rows taken in turn
// by a loop, all K filter rows written out inside it, every tap still an operand of its FMA.
//
// Teaches instruction fetch: code is data that the SM must read too. Step 25 writes out each
// thread's 16 K^2 multiply-adds (74 KB of code at K = 15, 112 KB at K = 19), and each warp runs
// each instruction once, so the warps wait for the code to arrive: Nsight Compute on 1024 x 1024
// (docs/data/h100-2026-11-28/c4/ncu/) counts 1.08 cycles of "no instruction" per issued
// instruction at K = 15 and 3.63 at K = 19. The rolled candidates of the page's section 29
// shrank the code with a loop over tile rows, but there a tap's address depends on the loop's
// counter and the compiler loads the taps into ordinary registers again. Here the loop runs over
// the two output rows of a thread instead: output row q takes filter rows 0 ... K - 1 against
// tile rows q ... q + K - 1, so inside the loop every tap's address is a constant of the code, as
// in step 25, and only the window's place moves with q. The loop body is K^2 x 8 multiply-adds,
// half of step 25's, and it runs twice; "no instruction" falls to 0.15 (K = 15) and 0.68 (K = 19).
//
// What it costs: each window load now feeds one output row instead of two (twice the shared loads:
// 4.5% more instructions at K = 15). What it gains besides: the first row's stores leave while the
// second row's sums run, and half the code lets the step go to K = 23, where step 25 stopped at 19.
// On the H100 (docs/data/h100-2026-11-28/c5/) it is the fastest of steps 23, 25 and 27 at K = 7, 19
// and 23 on 4096 x 4096 and up to K = 15 on 1024 x 1024 (but K = 7); step 25 stays ahead at K = 11
// and 15 on the large image, step 23 at K = 19 and 23 on the small one. The results are step 23's
// bit for bit (each output takes the same multiply-adds in the same order;
// GpuUniformRowsAtEveryFilterSize checks every K).
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

constexpr int kMaxUniformFilterSize = 23;  // the largest K measured (K = 23: 61.75 KiB of shared memory, 72 registers)
constexpr int kOutputsPerThread = 8;       // P: neighbouring outputs of one row
constexpr int kRowsPerThread = 2;          // R: output rows per thread
constexpr int kThreadsX = 32;
constexpr int kThreadsY = 8;
constexpr int kThreads = kThreadsX * kThreadsY;            // 256
constexpr int kTileWidth = kThreadsX * kOutputsPerThread;  // 256 outputs per tile row
constexpr int kTileHeight = kThreadsY * kRowsPerThread;    // 16 output rows per tile
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
// 3 blocks of 256 threads per SM at every K here (61.75 KiB of shared memory at K = 23; up to 72
// registers a thread, under the 80 that three blocks leave).
constexpr int kBlocksPerSm = 3;
static_assert(kBlocksPerSm * (shared_bytes(kMaxUniformFilterSize) + 1024) <= 228 * 1024, "3 blocks per SM");

// The flipped filter, each row as step 23 lays it out in global memory: d zeros, its K taps,
// zeros to whole float4s (row i at float 4 NC i). 23 x 24 floats at most.
constexpr int kRowFloatsMax = 4 * chunks(kMaxUniformFilterSize);
__constant__ float c_row_taps[kMaxUniformFilterSize * kRowFloatsMax];
int g_loaded_filter = 0;

// Step 25's chunk: the multiply-adds of chunk c of filter row i for one output row; v holds
// window pixels 4c ... 4c + 11. i and c are known when compiling (the loops over them are
// unrolled), so c_row_taps[...] has a fixed address: a uniform-register operand of the FFMA.
template <int K>
__device__ __forceinline__ void chunk_sums(int i, int c, const float (&v)[12], float (&acc)[kOutputsPerThread]) {
  constexpr int d = shift(K);
#pragma unroll
  for (int u = 0; u < 4; ++u) {
    const int j = 4 * c + u;
    if (j < d || j >= K + d) continue;  // a padding tap: no code
    const float tap = c_row_taps[(i * chunks(K) + c) * 4 + u];
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
    direct_uniform_rows_kernel(const float* __restrict__ in, float* __restrict__ out, int height, int width,
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

  // Compute: this thread's outputs are tile rows t0, t0 + 1, columns 8 threadIdx.x ... + 7.
  const int lane = static_cast<int>(threadIdx.x);
  const int t0 = static_cast<int>(threadIdx.y) * kRowsPerThread;
  const float4* lines = tile + t0 * stride + slot(2 * lane);
  const int col = col0 + lane * kOutputsPerThread;
  // [docs:rows_loop]
  // One output row an iteration, not unrolled: the body is the K filter rows written out, and q
  // moves only the window (lines + q * stride), never a tap's address.
#pragma unroll 1
  for (int q = 0; q < kRowsPerThread; ++q) {
    float acc[kOutputsPerThread] = {};
#pragma unroll
    for (int i = 0; i < K; ++i) filter_row<K>(lines + (q + i) * stride, i, acc);
    // [docs:end rows_loop]
    const int row = row0 + t0 + q;
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
  return {&direct_uniform_rows_kernel<2 * static_cast<int>(I) + 1>...};
}
constexpr std::array<KernelFunction, kSizes> kInstances = instances(std::make_index_sequence<kSizes>{});

class DirectUniformRows final : public GpuConvolver {
 public:
  explicit DirectUniformRows(const GpuProblem& problem) : p_(problem) {}

  std::string unsupported() const override {
    if (p_.filter->size > kMaxUniformFilterSize) {
      return "K above " + std::to_string(kMaxUniformFilterSize) + ": compiled up to " +
             std::to_string(kMaxUniformFilterSize) + ", the largest K measured (step 23 takes any K)";
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
    CUDA_CHECK_LAUNCH("direct_uniform_rows_kernel");
  }

  double bytes_per_pixel() const override { return 2 * sizeof(float); }  // the image read once, the result written once
  double flops_per_pixel() const override { return 2.0 * p_.filter->size * p_.filter->size; }

  std::string note() const override {
    const int k = p_.filter->size;
    return "K = " + std::to_string(k) + " compiled, taps as uniform-register operands, output rows in a loop, tile 256 x " +
           std::to_string(kTileHeight) + " + halo " + std::to_string(k - 1) + ", 8 x 2 outputs per thread, " +
           (wide_copies_ ? "16-byte copies" : "4-byte copies (width not a multiple of 4)") + ", " +
           std::to_string(shared_bytes(k) / 1024) + " KiB shared per block";
  }

 private:
  void upload(cudaStream_t stream) {
    CUDA_CHECK(cudaMemcpyToSymbolAsync(c_row_taps, padded_.data(), padded_.size() * sizeof(float), 0,
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

std::unique_ptr<GpuConvolver> launch_direct_uniform_rows(const GpuProblem& problem) {
  return std::make_unique<DirectUniformRows>(problem);
}

}  // namespace fft_convolve
