// 20 direct_register_2d: step 15 with K compiled and the pixels in a sliding register window,
// so that nothing but multiply-adds fills the issue slots at any K.
//
// Teaches what kept step 15 near half the FP32 FMA ceiling, and four changes that take it out:
//  - step 15 walks a filter row in chunks of 8 taps plus a rest of K mod 8: at K = 19 or 27 the
//    rest is 3 taps that still load 12 pixels, and every chunk reloads the pixels the previous
//    one had (16 loaded for 8 new). Here K is a template argument (one instance per odd K up to
//    63, picked at launch), the taps go in chunks of 4, the last one exactly K mod 4 (or 4) long,
//    and the pixels of a tile row slide through a window of three float4 registers: each chunk
//    loads one new float4 (4 pixels for 4 new taps), the rest is renaming by the compiler.
//  - step 15 reads each tap from constant memory with its own load (a tap index that depends on
//    K and the row is no immediate operand), 32 loads per 256 multiply-adds, all through the same
//    queue as the shared loads. Here the taps of one filter row are a float4-aligned row in global
//    memory (padded to 4 NC floats): one 16-byte load, the same address across the warp (one L1
//    broadcast), brings 4 taps; per chunk of 4 taps x R rows x 8 columns a thread issues R tap
//    loads and one pixel load for 32 R multiply-adds.
//  - the first and last R - 1 tile rows serve fewer than R output rows; step 15 tests every
//    chunk for that. Here only those rows run the checked body, the K - R + 1 others run one with
//    no test at all.
//  - step 15 loads its tile one row per thread at a time (a load, then its store to shared
//    memory), so a block waits for DRAM once per tile row it loads; on an image that fills the GPU
//    in one wave (1024 x 1024) that wait is not hidden behind other blocks. Here every pixel of
//    the tile is an asynchronous copy into shared memory (cp.async, compute capability 8.0 and
//    newer), all issued before the first is waited for: one trip to DRAM per tile.
// The tile is step 15's width, 256 columns, by 16 output rows: 256 threads, each 8 columns x 2
// rows of outputs. Three other shapes were timed against it in the filter-size sweep on the H100
// (8 x 4 outputs with 128 threads; 8 x 4 with 256 threads and a 32-row tile; this shape with the
// filter rows split into bands on a small image). At 1024 x 1024 this one was the fastest at
// every K but 3 and 7 (where the split shape, the same kernel there, was under 2% ahead); at
// 4096 x 4096 within 10% of the fastest at every K (candidates/call3b/r06_sweep1024.txt and
// r06_sweep4096.txt in docs/data/h100-2026-11-27/). On an image that gives each SM only a few
// blocks, twice the warps of the 128-thread shape hide more of the loads' latency.
#include <array>
#include <cstddef>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "course/check.hpp"
#include "fft_convolve.hpp"

namespace fft_convolve {

namespace {

constexpr int kOutputsPerThread = 8;                        // P: neighbouring outputs of one row
constexpr int kThreadsX = 32;
constexpr int kTileWidth = kThreadsX * kOutputsPerThread;   // 256 outputs per tile row
constexpr int kOddSizes = (kMaxDirectFilterSize + 1) / 2;   // K = 1, 3, ..., 63: one instance each

__host__ __device__ constexpr int chunks(int k) { return (k + 3) / 4; }  // NC: chunks of 4 taps per filter row
// A tile row holds the 256 + K - 1 pixels the outputs need and what the last window reads past
// them (zeros): the last thread's last chunk reads up to column 248 + 4 NC + 7.
__host__ __device__ constexpr int tile_stride(int k) { return kTileWidth + 4 * chunks(k); }
// The tile of a block: its output rows and the K - 1 rows of halo, each tile_stride(k) wide.
constexpr std::size_t shared_bytes(int k, int tile_height) {
  return static_cast<std::size_t>(tile_height + k - 1) * tile_stride(k) * sizeof(float);
}

__device__ __forceinline__ float4 load4(const float* p) { return *reinterpret_cast<const float4*>(p); }

// One pixel from global to shared memory, 0 when !inside (`source` must still be a valid
// address). From compute capability 8.0 an asynchronous copy (cp.async, 4 bytes, the rest zero
// filled): the thread does not wait for it, so all of its copies are in flight at once; before
// that, an ordinary load and store.
__device__ __forceinline__ void copy_pixel_async(float* target, const float* source, bool inside) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  const unsigned address = static_cast<unsigned>(__cvta_generic_to_shared(target));
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(address), "l"(source), "r"(inside ? 4 : 0)
               : "memory");
#else
  *target = inside ? *source : 0.0f;
#endif
}
// Waits for this thread's asynchronous copies (a barrier after it makes everyone's visible).
__device__ __forceinline__ void wait_for_copies() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.wait_all;\n" ::: "memory");
#endif
}

// One tile row s (pixels at `line`, 16-byte aligned) for the thread's R output rows: output row
// q takes filter row i = s - q (kChecked: only if 0 <= i < rows, the filter's rows). taps:
// row i is NC float4s.
// [docs:register_2d_row]
template <int K, int R, bool kChecked>
__device__ __forceinline__ void tile_row(const float* __restrict__ line, const float4* __restrict__ taps, int s,
                                         int rows, float (&acc)[R][kOutputsPerThread]) {
  constexpr int kChunks = chunks(K);
  float4 a = load4(line), b = load4(line + 4);  // the window: pixels 4c ... 4c + 11 of chunk c
#pragma unroll
  for (int c = 0; c < kChunks; ++c) {
    const int taps_here = K - 4 * c < 4 ? K - 4 * c : 4;  // 4, the last chunk K mod 4 (known when unrolled)
    const float4 next = load4(line + 4 * c + 8);
    const float v[12] = {a.x, a.y, a.z, a.w, b.x, b.y, b.z, b.w, next.x, next.y, next.z, next.w};
#pragma unroll
    for (int q = 0; q < R; ++q) {
      const int i = s - q;
      if (kChecked && (i < 0 || i >= rows)) continue;  // warp-uniform
      const float4 t4 = __ldg(taps + i * kChunks + c);
      const float t[4] = {t4.x, t4.y, t4.z, t4.w};
#pragma unroll
      for (int u = 0; u < 4; ++u) {
        if (u >= taps_here) break;
#pragma unroll
        for (int p = 0; p < kOutputsPerThread; ++p) acc[q][p] = fmaf(t[u], v[p + u], acc[q][p]);
      }
    }
    a = b;  // slide by 4 pixels: renamed registers, no copies, once unrolled
    b = next;
  }
}
// [docs:end register_2d_row]

template <int K, int R, int kThreadsY>
__global__ void __launch_bounds__(kThreadsX * kThreadsY, 1)  // 1: no register cap for occupancy's sake
    direct_register_2d_kernel(const float* __restrict__ in, const float4* __restrict__ taps, float* __restrict__ out,
                              int height, int width) {
  constexpr int kTileHeight = kThreadsY * R;
  constexpr int r = K / 2;
  constexpr int stride = tile_stride(K);
  constexpr int rows = K;  // filter rows
  constexpr int tile_rows = kTileHeight + K - 1;
  extern __shared__ float4 tile_storage[];  // float4: the tile is 16-byte aligned
  float* tile = reinterpret_cast<float*>(tile_storage);
  const int col0 = blockIdx.x * kTileWidth, row0 = blockIdx.y * kTileHeight;

  // Load: tile(a, b) = x(row0 - r + a, col0 - r + b) for b < 256 + K - 1, 0 outside the image
  // and past the columns any output needs (only the windows' last float4s read those). Every
  // pixel of the tile is requested before any arrives (asynchronous copies straight into shared
  // memory): one trip to DRAM for the whole tile, not one per tile row.
  // [docs:register_2d_load]
  constexpr int kLoadSteps = (stride + kThreadsX - 1) / kThreadsX;  // per tile row and thread
  for (int a = threadIdx.y; a < tile_rows; a += kThreadsY) {
    const int row = row0 - r + a;
    const bool row_inside = row >= 0 && row < height;
    const float* source = in + static_cast<std::size_t>(row_inside ? row : 0) * width;
#pragma unroll
    for (int m = 0; m < kLoadSteps; ++m) {
      const int b = threadIdx.x + m * kThreadsX;
      const int col = col0 - r + b;
      const bool inside = b < kTileWidth + K - 1 && row_inside && col >= 0 && col < width;
      if (b < stride) copy_pixel_async(tile + a * stride + b, inside ? source + col : in, inside);
    }
  }
  wait_for_copies();
  // [docs:end register_2d_load]
  __syncthreads();

  // Compute: this thread's outputs are tile rows t0 ... t0 + R - 1, columns 8 threadIdx.x ... + 7.
  // [docs:register_2d_rows]
  const int first_col = threadIdx.x * kOutputsPerThread;
  const int t0 = threadIdx.y * R;
  float acc[R][kOutputsPerThread] = {};
#pragma unroll 1
  for (int s = 0; s < rows + R - 1; ++s) {  // tile rows t0 + s: each serves up to R outputs
    const float* line = tile + (t0 + s) * stride + first_col;
    if (s >= R - 1 && s < rows) {
      tile_row<K, R, false>(line, taps, s, rows, acc);  // all R output rows take a filter row
    } else {
      tile_row<K, R, true>(line, taps, s, rows, acc);   // the first and last R - 1: some do not
    }
  }
  // [docs:end register_2d_rows]

  const int col = col0 + first_col;
  if (col >= width) return;
#pragma unroll
  for (int q = 0; q < R; ++q) {
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

using KernelFunction = void (*)(const float*, const float4*, float*, int, int);

// The instance for each odd K: table[K / 2].
template <int R, int kThreadsY, std::size_t... I>
constexpr std::array<KernelFunction, sizeof...(I)> instances(std::index_sequence<I...>) {
  return {&direct_register_2d_kernel<2 * static_cast<int>(I) + 1, R, kThreadsY>...};
}

template <int R, int kThreadsY>
class DirectRegister2d final : public GpuConvolver {
 public:
  static constexpr int kTileHeight = kThreadsY * R;

  explicit DirectRegister2d(const GpuProblem& problem) : p_(problem) {}

  std::string unsupported() const override {
    if (p_.filter->size > kMaxDirectFilterSize) {
      return "the filter is larger than " + std::to_string(kMaxDirectFilterSize) + " x " +
             std::to_string(kMaxDirectFilterSize) + " (one compiled instance per odd K up to there)";
    }
    return "";
  }

  void setup(cudaStream_t stream) override {
    const Filter& f = *p_.filter;
    const int k = f.size, row_floats = 4 * chunks(k);
    // The flipped filter g(i, j) = f(K-1-i, K-1-j), each row padded with zeros to whole float4s.
    std::vector<float> padded(static_cast<std::size_t>(k) * static_cast<std::size_t>(row_floats), 0.0f);
    for (int i = 0; i < k; ++i) {
      for (int j = 0; j < k; ++j) padded[static_cast<std::size_t>(i * row_floats + j)] = f.at(k - 1 - i, k - 1 - j);
    }
    taps_ = course::DeviceBuffer<float>(padded.size(), "the padded, flipped filter");
    taps_.copy_from_host_async(padded, stream);
    kernel_ = kInstances[static_cast<std::size_t>(k / 2)];
    // Over 48 KiB of dynamic shared memory needs the kernel's consent (about 98 KiB at K = 63
    // for 16-row tiles).
    CUDA_CHECK(cudaFuncSetAttribute(kernel_, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    static_cast<int>(shared_bytes(k, kTileHeight))));
    CUDA_CHECK(cudaStreamSynchronize(stream));
  }

  void run(cudaStream_t stream) override {
    const int k = p_.filter->size;
    kernel_<<<grid(), dim3(kThreadsX, kThreadsY), shared_bytes(k, kTileHeight), stream>>>(
        p_.input->data(), reinterpret_cast<const float4*>(taps_.data()), p_.output->data(), p_.height, p_.width);
    CUDA_CHECK_LAUNCH("direct_register_2d_kernel");
  }

  double bytes_per_pixel() const override { return 2 * sizeof(float); }  // the image read once, the result written once
  double flops_per_pixel() const override {
    return 2.0 * p_.filter->size * p_.filter->size;  // K^2 multiply-adds, 2 flops each
  }

  std::string note() const override {
    const int k = p_.filter->size;
    return "K = " + std::to_string(k) + " compiled, tile 256 x " + std::to_string(kTileHeight) + " + halo " +
           std::to_string(k - 1) + ", 8 x " + std::to_string(R) + " outputs per thread, " +
           std::to_string(kThreadsX * kThreadsY) + " threads per block, " +
           std::to_string(shared_bytes(k, kTileHeight) / 1024) + " KiB shared per block";
  }

 private:
  static constexpr std::array<KernelFunction, kOddSizes> kInstances =
      instances<R, kThreadsY>(std::make_index_sequence<kOddSizes>{});

  dim3 grid() const {
    return dim3((p_.width + kTileWidth - 1) / kTileWidth, (p_.height + kTileHeight - 1) / kTileHeight);
  }

  GpuProblem p_;
  course::DeviceBuffer<float> taps_;
  KernelFunction kernel_ = nullptr;
};

}  // namespace

// 8 x 2 outputs per thread, 256 threads (32 x 8): a tile of 256 x 16 outputs.
std::unique_ptr<GpuConvolver> launch_direct_register_2d(const GpuProblem& problem) {
  return std::make_unique<DirectRegister2d<2, 8>>(problem);
}

}  // namespace fft_convolve
