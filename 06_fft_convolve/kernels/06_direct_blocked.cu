// 06 direct_blocked: the direct convolution for any K, register-blocked along a row.
//
// Teaches what limits a direct 2-D filter once the taps are in constant memory and the pixels in
// a shared tile (step 03), and how to move that limit to the hardware's:
//  - register blocking: each thread computes 8 neighbouring outputs of one row. For one filter
//    row and 8 taps it reads the 15 pixels those 8 outputs x 8 taps need into registers (4
//    16-byte shared loads), reads each tap once (a constant-cache broadcast), and does 64 fused
//    multiply-adds from registers: 8 FMAs per tap read, 16 per shared load. Step 03 did about
//    one shared load per FMA, so shared memory, not DRAM, bound it (about 25 loads per output
//    for 5 x 5).
//  - no cliff: the taps of a filter row are walked in chunks of 8 that the compiler unrolls
//    completely (compile-time trip counts, so the 8 x 8 FMAs use registers, not a local array),
//    and the last K mod 8 taps in one chunk of exactly that many (a switch over 7 compiled
//    sizes). Every K from 1 to 63 runs the same code, with exactly K^2 multiply-adds per output:
//    no filter size falls to a slow generic loop. Step 03 compiled K = 3, 5, 7 only; K = 9 and
//    up ran a scalar loop, several times slower per multiply-add.
//  - what binds changes with K: an output costs 8 bytes of DRAM (read once, written once) and
//    K^2 FMAs. Small K (5 x 5: 25 FMAs per 8 bytes) is memory-bound, so the tile's load phase
//    keeps many loads in flight (11 per thread, unrolled); large K (31 x 31: 961 FMAs per 8
//    bytes) is bound by the FP32 FMA pipes, so the inner loop is almost all FMAs.
// The tile: 256 outputs wide (32 threads x 8), 8 x R rows high (8 thread rows, R outputs each:
// R = 4, 2 or 1 as K grows, so the tile and its halo stay within about 90 KiB of shared memory;
// fewer on a small image, so that every SM gets several blocks).
#include <memory>
#include <string>
#include <vector>

#include "course/check.hpp"
#include "fft_convolve.hpp"
#include "kernels/register_chunk.cuh"

namespace fft_convolve {

namespace {

constexpr int kOutputsPerThread = 8;                         // P: neighbouring outputs of one row
constexpr int kThreadsX = 32, kThreadsY = 8;                 // 256 threads per block
constexpr int kTileWidth = kThreadsX * kOutputsPerThread;    // 256 outputs per tile row
// A tile row holds the 256 + K - 1 pixels the outputs need, plus the few a thread's last 16-byte
// load reads past them, rounded to 4 floats so that every row starts 16-byte aligned.
__host__ __device__ constexpr int tile_stride(int k) { return (kTileWidth + k + 2 + 3) / 4 * 4; }
constexpr int kMaxLoadSteps = (tile_stride(kMaxDirectFilterSize) + kThreadsX - 1) / kThreadsX;  // per tile row

// Output rows per thread: taller tiles (less halo per output) while the tile stays small. The
// launcher takes fewer when the image gives too few blocks to fill every SM several times.
constexpr int rows_per_thread(int k) { return k <= 15 ? 4 : k <= 31 ? 2 : 1; }
constexpr std::size_t shared_bytes(int k, int rows_each) {
  return static_cast<std::size_t>(kThreadsY * rows_each + k - 1) * tile_stride(k) * sizeof(float);
}

// The most any K up to 63 needs (the kernel's shared-memory limit is one setting for all sizes).
constexpr std::size_t max_shared_bytes() {
  std::size_t most = 0;
  for (int k = 1; k <= kMaxDirectFilterSize; k += 2) {
    const std::size_t bytes = shared_bytes(k, rows_per_thread(k));
    most = bytes > most ? bytes : most;
  }
  return most;
}

// The flipped filter g(i, j) = f(K-1-i, K-1-j), row-major with K columns.
__constant__ float c_taps[kMaxDirectFilterSize * kMaxDirectFilterSize];
int g_loaded_filter = 0;  // which convolver's filter c_taps holds (detail::next_filter_id)


__global__ void __launch_bounds__(kThreadsX * kThreadsY)
    direct_blocked_kernel(const float* __restrict__ in, float* __restrict__ out, int height, int width, int k,
                          int rows_each) {
  const int r = k / 2;
  const int stride = tile_stride(k);
  const int tile_rows = kThreadsY * rows_each + k - 1;
  extern __shared__ float4 tile_storage[];  // float4: the tile is 16-byte aligned
  float* tile = reinterpret_cast<float*>(tile_storage);
  const int col0 = blockIdx.x * kTileWidth, row0 = blockIdx.y * kThreadsY * rows_each;

  // Load: tile(a, b) = x(row0 - r + a, col0 - r + b), 0 outside the image. A warp reads 32
  // consecutive pixels of one row (coalesced); each thread issues all its loads of a row before
  // it stores any, so up to 11 loads per thread are in flight (a memory-bound kernel needs them).
  for (int a = threadIdx.y; a < tile_rows; a += kThreadsY) {
    const int row = row0 - r + a;
    const bool row_inside = row >= 0 && row < height;
    const float* source = in + static_cast<std::size_t>(row_inside ? row : 0) * width;
    float values[kMaxLoadSteps];
#pragma unroll
    for (int m = 0; m < kMaxLoadSteps; ++m) {
      const int b = threadIdx.x + m * kThreadsX;
      const int col = col0 - r + b;
      values[m] = (b < stride && row_inside && col >= 0 && col < width) ? source[col] : 0.0f;
    }
#pragma unroll
    for (int m = 0; m < kMaxLoadSteps; ++m) {
      const int b = threadIdx.x + m * kThreadsX;
      if (b < stride) tile[a * stride + b] = values[m];
    }
  }
  __syncthreads();

  // Compute: output (row0 + t, col0 + c) = sum over i, j of g(i, j) * tile(t + i, c + j). This
  // thread's outputs are columns c = 8 threadIdx.x ... + 7 of tile rows threadIdx.y + 8 q.
  // [docs:blocked_rows]
  const int first_col = threadIdx.x * kOutputsPerThread;
  for (int q = 0; q < rows_each; ++q) {
    const int t = threadIdx.y + q * kThreadsY;
    float acc[kOutputsPerThread] = {};
    for (int i = 0; i < k; ++i) {
      const float* line = tile + (t + i) * stride + first_col;
      const float* taps = c_taps + i * k;
      detail::accumulate_row<kOutputsPerThread>(line, taps, k, acc);  // kernels/register_chunk.cuh
    }
    // [docs:end blocked_rows]
    const int row = row0 + t;
    const int col = col0 + first_col;
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

class DirectBlocked final : public GpuConvolver {
 public:
  explicit DirectBlocked(const GpuProblem& problem) : p_(problem) {}

  std::string unsupported() const override {
    if (p_.filter->size > kMaxDirectFilterSize) {
      return "the filter is larger than " + std::to_string(kMaxDirectFilterSize) + " x " +
             std::to_string(kMaxDirectFilterSize) + " (constant memory holds no more)";
    }
    return "";
  }

  void setup(cudaStream_t stream) override {
    const Filter& f = *p_.filter;
    flipped_.resize(f.taps.size());
    for (int i = 0; i < f.size; ++i) {
      for (int j = 0; j < f.size; ++j) flipped_[static_cast<std::size_t>(i * f.size + j)] = f.at(f.size - 1 - i, f.size - 1 - j);
    }
    // Over 48 KiB of dynamic shared memory needs the kernel's consent (up to 227 KiB on an H100).
    CUDA_CHECK(cudaFuncSetAttribute(direct_blocked_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    static_cast<int>(max_shared_bytes())));
    // Rows per thread: as many as K allows, fewer while the grid would give an SM under 4 blocks
    // (1024 x 1024 with 4 rows per thread: 128 blocks for 132 SMs, one block each, its load
    // phase not hidden behind another block's sums).
    int device = 0, sms = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    rows_each_ = rows_per_thread(f.size);
    while (rows_each_ > 1 && static_cast<long long>(grid().x) * grid().y < 4ll * sms) rows_each_ /= 2;
    id_ = detail::next_filter_id();
    upload(stream);
    CUDA_CHECK(cudaStreamSynchronize(stream));
  }

  void run(cudaStream_t stream) override {
    if (g_loaded_filter != id_) upload(stream);  // another convolver's filter is in c_taps now
    const int k = p_.filter->size;
    direct_blocked_kernel<<<grid(), dim3(kThreadsX, kThreadsY), shared_bytes(k, rows_each_), stream>>>(
        p_.input->data(), p_.output->data(), p_.height, p_.width, k, rows_each_);
    CUDA_CHECK_LAUNCH("direct_blocked_kernel");
  }

  double bytes_per_pixel() const override { return 2 * sizeof(float); }  // the image read once, the result written once
  double flops_per_pixel() const override {
    return 2.0 * p_.filter->size * p_.filter->size;  // K^2 multiply-adds, 2 flops each
  }

  std::string note() const override {
    const int k = p_.filter->size;
    return "tile 256 x " + std::to_string(kThreadsY * rows_each_) + " + halo " + std::to_string(k - 1) +
           ", 8 x " + std::to_string(rows_each_) + " outputs per thread, " +
           std::to_string(shared_bytes(k, rows_each_) / 1024) + " KiB shared per block";
  }

 private:
  dim3 grid() const {
    const int tile_height = kThreadsY * rows_each_;
    return dim3((p_.width + kTileWidth - 1) / kTileWidth, (p_.height + tile_height - 1) / tile_height);
  }

  void upload(cudaStream_t stream) {
    CUDA_CHECK(cudaMemcpyToSymbolAsync(c_taps, flipped_.data(), flipped_.size() * sizeof(float), 0,
                                       cudaMemcpyHostToDevice, stream));
    g_loaded_filter = id_;
  }

  GpuProblem p_;
  std::vector<float> flipped_;
  int rows_each_ = 1;
  int id_ = 0;
};

}  // namespace

std::unique_ptr<GpuConvolver> launch_direct_blocked(const GpuProblem& problem) {
  return std::make_unique<DirectBlocked>(problem);
}

}  // namespace fft_convolve
