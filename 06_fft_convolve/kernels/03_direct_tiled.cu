// 03 direct_tiled: the convolution computed directly, as a memory-bound kernel.
//
// Teaches three ideas a direct 2-D filter needs on a GPU:
//  - the filter in constant memory: every thread of a warp reads the same tap at the same time,
//    and the constant cache broadcasts one value to all 32 (one load, not 32);
//  - a shared-memory tile with a halo: a block computes a 32 x 32 tile of outputs, which needs
//    the (32 + K - 1)^2 input pixels around it. It loads them once from global memory (zeros
//    outside the image: the padding is data here too), then every thread reads its K x K window
//    from shared memory, which serves the overlapping windows of neighbours at no extra DRAM cost;
//  - a few outputs per thread: each thread computes 4 outputs in a column, so each value it
//    reads from shared memory serves up to 4 of them (K + 3 reads per filter column for 4
//    outputs instead of 4 K): shared-memory reads would otherwise limit a small filter.
// With K = 5 a pixel costs 25 multiply-adds and 8 bytes of DRAM traffic (read once, written
// once): the kernel should run near the device copy bandwidth. Common sizes (3, 5, 7) are
// compiled with K known, so the loops unroll; other sizes up to 63 use the same code with K a
// run-time value.
//
// What changed from step 02: no transform at all. Each output is its K x K sum computed where it
// is written (the definition in fft_convolve.hpp), so no padding to an FFT size, no plans and no
// spectrum: the cost grows with K^2 instead of staying flat, and the lesson's crossover is where
// the two meet.
#include <memory>
#include <string>
#include <vector>

#include "course/check.hpp"
#include "fft_convolve.hpp"

namespace fft_convolve {

namespace {

constexpr int kTile = 32;           // outputs per block: kTile x kTile
constexpr int kBlockRows = 8;       // threads per block: kTile x kBlockRows
constexpr int kRowsPerThread = kTile / kBlockRows;

// The flipped filter g(i, j) = f(K-1-i, K-1-j), row-major with K columns.
__constant__ float c_taps[kMaxDirectFilterSize * kMaxDirectFilterSize];
int g_loaded_filter = 0;  // which convolver's filter c_taps holds (detail::next_filter_id)

template <int kFixedSize>  // K, or 0: K is `runtime_size`
__global__ void direct_tiled_kernel(const float* __restrict__ in, float* __restrict__ out, int height, int width,
                                    int runtime_size) {
  const int k = kFixedSize > 0 ? kFixedSize : runtime_size;
  const int r = k / 2;
  const int tile_width = kTile + k - 1;  // the tile and its halo
  const int tile_height = kTile + k - 1;
  extern __shared__ float tile[];        // tile_height x tile_width
  const int col0 = blockIdx.x * kTile, row0 = blockIdx.y * kTile;

  // Load: tile(a, b) = x(row0 - r + a, col0 - r + b), 0 outside the image. Each warp reads
  // consecutive columns of one row: coalesced.
  for (int a = threadIdx.y; a < tile_height; a += kBlockRows) {
    const int row = row0 - r + a;
    for (int b = threadIdx.x; b < tile_width; b += kTile) {
      const int col = col0 - r + b;
      const bool inside = row >= 0 && row < height && col >= 0 && col < width;
      tile[a * tile_width + b] = inside ? in[static_cast<std::size_t>(row) * width + col] : 0.0f;
    }
  }
  __syncthreads();

  // Compute: this thread's outputs are rows first_row + q (q < kRowsPerThread) of column
  // threadIdx.x; output q needs tile rows first_row + q + i for filter rows i < K. Walking down
  // one filter column j, tile row first_row + m serves output q with filter row i = m - q.
  // [docs:tiled_inner_loop]
  const int first_row = threadIdx.y * kRowsPerThread;
  float acc[kRowsPerThread] = {};
  for (int j = 0; j < k; ++j) {
    for (int m = 0; m < k + kRowsPerThread - 1; ++m) {
      const float v = tile[(first_row + m) * tile_width + threadIdx.x + j];
#pragma unroll
      for (int q = 0; q < kRowsPerThread; ++q) {
        const int i = m - q;
        if (i >= 0 && i < k) acc[q] += c_taps[i * k + j] * v;
      }
    }
  }
  // [docs:end tiled_inner_loop]

  const int col = col0 + threadIdx.x;
#pragma unroll
  for (int q = 0; q < kRowsPerThread; ++q) {
    const int row = row0 + first_row + q;
    if (row < height && col < width) out[static_cast<std::size_t>(row) * width + col] = acc[q];
  }
}

class DirectTiled final : public GpuConvolver {
 public:
  explicit DirectTiled(const GpuProblem& problem) : p_(problem) {}

  std::string unsupported() const override {
    if (p_.filter->size > kMaxDirectFilterSize) {
      return "the filter is larger than " + std::to_string(kMaxDirectFilterSize) + " x " +
             std::to_string(kMaxDirectFilterSize) + " (constant memory and the tile's halo hold no more)";
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
    if (g_loaded_filter != id_) upload(stream);  // another convolver's filter is in c_taps now
    const int k = p_.filter->size;
    const dim3 block(kTile, kBlockRows);
    const dim3 grid((p_.width + kTile - 1) / kTile, (p_.height + kTile - 1) / kTile);
    const std::size_t shared = static_cast<std::size_t>(kTile + k - 1) * (kTile + k - 1) * sizeof(float);
    const float* in = p_.input->data();
    float* out = p_.output->data();
    switch (k) {
      case 3: direct_tiled_kernel<3><<<grid, block, shared, stream>>>(in, out, p_.height, p_.width, k); break;
      case 5: direct_tiled_kernel<5><<<grid, block, shared, stream>>>(in, out, p_.height, p_.width, k); break;
      case 7: direct_tiled_kernel<7><<<grid, block, shared, stream>>>(in, out, p_.height, p_.width, k); break;
      default: direct_tiled_kernel<0><<<grid, block, shared, stream>>>(in, out, p_.height, p_.width, k); break;
    }
    CUDA_CHECK_LAUNCH("direct_tiled_kernel");
  }

  double bytes_per_pixel() const override { return 2 * sizeof(float); }  // the image read once, the result written once

  std::string note() const override {
    const int k = p_.filter->size;
    return "tile 32 x 32 + halo " + std::to_string(k - 1) + ", " +
           std::to_string((kTile + k - 1) * (kTile + k - 1) * 4) + " B shared per block";
  }

 private:
  void upload(cudaStream_t stream) {
    CUDA_CHECK(cudaMemcpyToSymbolAsync(c_taps, flipped_.data(), flipped_.size() * sizeof(float), 0,
                                       cudaMemcpyHostToDevice, stream));
    g_loaded_filter = id_;
  }

  GpuProblem p_;
  std::vector<float> flipped_;
  int id_ = 0;
};

}  // namespace

std::unique_ptr<GpuConvolver> launch_direct_tiled(const GpuProblem& problem) {
  return std::make_unique<DirectTiled>(problem);
}

}  // namespace fft_convolve
