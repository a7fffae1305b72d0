// Exercise "shared_tile" (make it fast), the starter: the direct convolution, right and slow.
//
// One thread per output pixel, and each thread reads its K x K window and the K x K taps straight
// from global memory. Two things make it slow:
//  - the threads of a warp (threadIdx.x) go down a column of the image, so at every tap the 32
//    threads of a warp read 32 pixels one row apart: 32 memory sectors for 128 useful bytes, and
//    the stores of the results the same way;
//  - nothing is shared between neighbours: every pixel is read K^2 times from the cache, and
//    every tap K^2 times per pixel from global memory.
//
// Goal (-n 4096, the default 5 x 5 Gaussian): at least 35% of the device copy (the d2d_copy
// ceiling the same run measures), as
//   ./scripts/check_exercise.sh 06 shared_tile
// reports. Keep the method's name (launch_exercise_shared_tile) and every pixel right, edges
// included (zeros outside the image): the check verifies the result like every row of the lesson.
// Hints: ./scripts/check_exercise.sh 06 shared_tile --hint
#include <memory>
#include <string>
#include <vector>

#include "course/check.hpp"
#include "course/device_buffer.hpp"
#include "fft_convolve.hpp"

namespace fft_convolve {

namespace {

constexpr int kDown = 32;    // threads of a block down a column (threadIdx.x)
constexpr int kAcross = 8;   // and along a row (threadIdx.y)

// taps: the flipped filter g(i, j) = f(K-1-i, K-1-j), row-major with K columns.
__global__ void shared_tile_starter(const float* __restrict__ in, float* __restrict__ out, const float* taps, int height,
                                    int width, int k) {
  const int row = blockIdx.y * kDown + threadIdx.x;
  const int col = blockIdx.x * kAcross + threadIdx.y;
  if (row >= height || col >= width) return;
  const int r = k / 2;
  float sum = 0.0f;
  for (int i = 0; i < k; ++i) {
    const int y = row - r + i;
    if (y < 0 || y >= height) continue;  // zeros outside the image
    for (int j = 0; j < k; ++j) {
      const int x = col - r + j;
      if (x < 0 || x >= width) continue;
      sum += taps[i * k + j] * in[static_cast<std::size_t>(y) * width + x];
    }
  }
  out[static_cast<std::size_t>(row) * width + col] = sum;
}

class SharedTileStarter final : public GpuConvolver {
 public:
  explicit SharedTileStarter(const GpuProblem& problem) : p_(problem) {}

  void setup(cudaStream_t stream) override {
    const Filter& f = *p_.filter;
    std::vector<float> flipped(f.taps.size());
    for (int i = 0; i < f.size; ++i) {
      for (int j = 0; j < f.size; ++j) flipped[static_cast<std::size_t>(i * f.size + j)] = f.at(f.size - 1 - i, f.size - 1 - j);
    }
    taps_ = course::DeviceBuffer<float>(flipped.size(), "exercise shared_tile: the taps");
    taps_.copy_from_host(flipped);
    CUDA_CHECK(cudaStreamSynchronize(stream));
  }

  void run(cudaStream_t stream) override {
    const dim3 block(kDown, kAcross);
    const dim3 grid((p_.width + kAcross - 1) / kAcross, (p_.height + kDown - 1) / kDown);
    shared_tile_starter<<<grid, block, 0, stream>>>(p_.input->data(), p_.output->data(), taps_.data(), p_.height,
                                                    p_.width, p_.filter->size);
    CUDA_CHECK_LAUNCH("shared_tile_starter");
  }

  double bytes_per_pixel() const override { return 2 * sizeof(float); }  // the image read once, the result written once

 private:
  GpuProblem p_;
  course::DeviceBuffer<float> taps_;
};

}  // namespace

std::unique_ptr<GpuConvolver> launch_exercise_shared_tile(const GpuProblem& problem) {
  return std::make_unique<SharedTileStarter>(problem);
}

}  // namespace fft_convolve
