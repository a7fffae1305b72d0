// Exercise "shared_tile" (make it fast), a solution: the starter's convolution with a block's
// inputs loaded once, coalesced, into shared memory, and the taps in constant memory.
//
// What changed from the starter:
//  - the mapping: threadIdx.x runs along a row, so a warp reads and writes 32 neighbouring
//    pixels (one 128-byte line) instead of 32 pixels a row apart;
//  - a shared-memory tile with a halo: a block computes a 32 x 32 tile of outputs from the
//    (32 + K - 1)^2 input pixels around it, loaded once from global memory (zeros outside the
//    image), and every thread reads its window from shared memory;
//  - the taps in constant memory: all threads of a warp read the same tap at the same time, and
//    the constant cache broadcasts it (one load, not 32);
//  - 4 outputs per thread down a column, so each value read from shared memory serves up to 4.
// This is step 3 (kernels/03_direct_tiled.cu) in one file; K = 3, 5, 7 are compiled with K known.
#include <memory>
#include <string>
#include <vector>

#include "course/check.hpp"
#include "kernels/fft_steps.cuh"

namespace fft_convolve {

namespace {

constexpr int kTile = 32;      // outputs per block: kTile x kTile
constexpr int kBlockRows = 8;  // threads per block: kTile x kBlockRows
constexpr int kRowsPerThread = kTile / kBlockRows;

__constant__ float c_exercise_taps[kMaxDirectFilterSize * kMaxDirectFilterSize];  // the flipped filter
int g_exercise_loaded = 0;  // which convolver's filter c_exercise_taps holds (detail::next_filter_id)

template <int kFixedSize>  // K, or 0: K is `runtime_size`
__global__ void shared_tile_solution(const float* __restrict__ in, float* __restrict__ out, int height, int width,
                                     int runtime_size) {
  const int k = kFixedSize > 0 ? kFixedSize : runtime_size;
  const int r = k / 2;
  const int tile_width = kTile + k - 1;
  const int tile_height = kTile + k - 1;
  extern __shared__ float tile[];  // tile_height x tile_width
  const int col0 = blockIdx.x * kTile, row0 = blockIdx.y * kTile;

  // Load: tile(a, b) = x(row0 - r + a, col0 - r + b), 0 outside the image; a warp reads
  // neighbouring columns of one row.
  for (int a = threadIdx.y; a < tile_height; a += kBlockRows) {
    const int row = row0 - r + a;
    for (int b = threadIdx.x; b < tile_width; b += kTile) {
      const int col = col0 - r + b;
      const bool inside = row >= 0 && row < height && col >= 0 && col < width;
      tile[a * tile_width + b] = inside ? in[static_cast<std::size_t>(row) * width + col] : 0.0f;
    }
  }
  __syncthreads();  // the tile is complete

  // This thread's outputs: rows first_row + q of column threadIdx.x; tile row first_row + m
  // serves output q with filter row i = m - q.
  const int first_row = threadIdx.y * kRowsPerThread;
  float acc[kRowsPerThread] = {};
  for (int j = 0; j < k; ++j) {
    for (int m = 0; m < k + kRowsPerThread - 1; ++m) {
      const float v = tile[(first_row + m) * tile_width + threadIdx.x + j];
#pragma unroll
      for (int q = 0; q < kRowsPerThread; ++q) {
        const int i = m - q;
        if (i >= 0 && i < k) acc[q] += c_exercise_taps[i * k + j] * v;
      }
    }
  }
  const int col = col0 + threadIdx.x;
#pragma unroll
  for (int q = 0; q < kRowsPerThread; ++q) {
    const int row = row0 + first_row + q;
    if (row < height && col < width) out[static_cast<std::size_t>(row) * width + col] = acc[q];
  }
}

class SharedTileSolution final : public GpuConvolver {
 public:
  explicit SharedTileSolution(const GpuProblem& problem) : p_(problem) {}

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
    if (g_exercise_loaded != id_) upload(stream);  // another convolver's filter is there now
    const int k = p_.filter->size;
    const dim3 block(kTile, kBlockRows);
    const dim3 grid((p_.width + kTile - 1) / kTile, (p_.height + kTile - 1) / kTile);
    const std::size_t shared = static_cast<std::size_t>(kTile + k - 1) * (kTile + k - 1) * sizeof(float);
    const float* in = p_.input->data();
    float* out = p_.output->data();
    switch (k) {
      case 3: shared_tile_solution<3><<<grid, block, shared, stream>>>(in, out, p_.height, p_.width, k); break;
      case 5: shared_tile_solution<5><<<grid, block, shared, stream>>>(in, out, p_.height, p_.width, k); break;
      case 7: shared_tile_solution<7><<<grid, block, shared, stream>>>(in, out, p_.height, p_.width, k); break;
      default: shared_tile_solution<0><<<grid, block, shared, stream>>>(in, out, p_.height, p_.width, k); break;
    }
    CUDA_CHECK_LAUNCH("shared_tile_solution");
  }

  double bytes_per_pixel() const override { return 2 * sizeof(float); }

 private:
  void upload(cudaStream_t stream) {
    CUDA_CHECK(cudaMemcpyToSymbolAsync(c_exercise_taps, flipped_.data(), flipped_.size() * sizeof(float), 0,
                                       cudaMemcpyHostToDevice, stream));
    g_exercise_loaded = id_;
  }

  GpuProblem p_;
  std::vector<float> flipped_;
  int id_ = 0;
};

}  // namespace

std::unique_ptr<GpuConvolver> launch_exercise_shared_tile_solution(const GpuProblem& problem) {
  return std::make_unique<SharedTileSolution>(problem);
}

}  // namespace fft_convolve
