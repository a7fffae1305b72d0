// The steps around the cuFFT calls: padding, cropping, the filter's spectrum, and the measured
// choice of the FFT size.
//
// Teaches: the convolution theorem needs the image and the filter in arrays of the FFT's size.
// The pad kernel writes the whole padded array in one pass (image or zero), so no step relies
// on zeros left over from an earlier run; the crop is a pitched 2-D copy (cudaMemcpy2DAsync),
// no kernel needed. Which FFT size is fastest is not guessed: the few smallest sizes with
// factors 2, 3, 5, 7 (and the power of two that rounding up would give) are timed as one
// R2C + C2R pair each, and the fastest wins.
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "course/check.hpp"
#include "course/timing.hpp"
#include "kernels/fft_steps.cuh"

namespace fft_convolve {

namespace detail {

namespace {

__global__ void pad_kernel(const float* __restrict__ image, int height, int width, float* __restrict__ padded,
                           int padded_height, int padded_width) {
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row >= padded_height || col >= padded_width) return;
  const float value = (row < height && col < width) ? image[static_cast<std::size_t>(row) * width + col] : 0.0f;
  padded[static_cast<std::size_t>(row) * padded_width + col] = value;
}

}  // namespace

void enqueue_pad(const float* image, int height, int width, float* padded, PaddedShape shape, cudaStream_t stream) {
  const dim3 block(32, 8);
  const dim3 grid((shape.width + block.x - 1) / block.x, (shape.height + block.y - 1) / block.y);
  pad_kernel<<<grid, block, 0, stream>>>(image, height, width, padded, shape.height, shape.width);
  CUDA_CHECK_LAUNCH("pad_kernel");
}

void enqueue_crop(const float* padded, PaddedShape shape, float* output, int height, int width, cudaStream_t stream) {
  CUDA_CHECK(cudaMemcpy2DAsync(output, static_cast<std::size_t>(width) * sizeof(float), padded,
                               static_cast<std::size_t>(shape.width) * sizeof(float),
                               static_cast<std::size_t>(width) * sizeof(float), static_cast<std::size_t>(height),
                               cudaMemcpyDeviceToDevice, stream));
}

course::DeviceBuffer<cufftComplex> filter_spectrum(const Filter& filter, PaddedShape shape,
                                                   const course::CufftPlan& forward, cudaStream_t stream, float scale) {
  std::vector<float> host(shape.real_count());
  place_filter_centred(filter, shape, host);
  if (scale != 1.0f) {
    for (float& v : host) v *= scale;  // the transform is linear: F(scale f) = scale F(f)
  }
  course::DeviceBuffer<float> padded(host.size(), "the padded filter");
  padded.copy_from_host_async(host, stream);  // in the plan's stream: ordered before the FFT
  course::DeviceBuffer<cufftComplex> spectrum(shape.complex_count(), "the filter's spectrum");
  forward.set_stream(stream);
  CUFFT_CHECK(cufftExecR2C(forward.get(), padded.data(), spectrum.data()));
  CUDA_CHECK(cudaStreamSynchronize(stream));  // `host` and `padded` are freed on return
  return spectrum;
}

int next_filter_id() {
  static int last = 0;
  return ++last;
}

}  // namespace detail

namespace gpu {

namespace {

// One R2C + C2R pair at `shape` on buffers large enough, timed with events (median).
double time_pair(PaddedShape shape, float* real, cufftComplex* complex, cudaStream_t stream, int reps,
                 const course::L2Flusher* flusher) {
  const course::CufftPlan forward(shape.height, shape.width, CUFFT_R2C);
  const course::CufftPlan inverse(shape.height, shape.width, CUFFT_C2R);
  forward.set_stream(stream);
  inverse.set_stream(stream);
  const course::TimingStats stats = course::time_device(
      {1, std::max(reps, 1)}, stream,
      [&] {
        CUFFT_CHECK(cufftExecR2C(forward.get(), real, complex));
        CUFFT_CHECK(cufftExecC2R(inverse.get(), complex, real));
      },
      flusher);
  return stats.median_ms;
}

}  // namespace

double time_fft_pair(PaddedShape shape, cudaStream_t stream, int reps) {
  course::DeviceBuffer<float> real(shape.real_count(), "FFT ceiling: real array");
  course::DeviceBuffer<cufftComplex> complex(shape.complex_count(), "FFT ceiling: complex array");
  real.zero(stream);
  complex.zero(stream);
  const course::L2Flusher flusher;
  return time_pair(shape, real.data(), complex.data(), stream, reps, &flusher);
}

PaddingChoice choose_padding(int height, int width, int filter_size, cudaStream_t stream, int reps) {
  const std::vector<PaddedShape> candidates = padding_candidates(height, width, filter_size, 3);
  std::size_t real_count = 0, complex_count = 0;
  for (const PaddedShape& shape : candidates) {
    real_count = std::max(real_count, shape.real_count());
    complex_count = std::max(complex_count, shape.complex_count());
  }
  course::DeviceBuffer<float> real(real_count, "FFT size candidates: real array");
  course::DeviceBuffer<cufftComplex> complex(complex_count, "FFT size candidates: complex array");
  real.zero(stream);
  complex.zero(stream);
  PaddingChoice choice;
  choice.pair_ms = -1;
  for (const PaddedShape& shape : candidates) {
    const double ms = time_pair(shape, real.data(), complex.data(), stream, reps, nullptr);
    char line[64];
    std::snprintf(line, sizeof line, "%s%s %.3f ms", choice.measured.empty() ? "" : ", ", shape.text().c_str(), ms);
    choice.measured += line;
    if (choice.pair_ms < 0 || ms < choice.pair_ms) {
      choice.pair_ms = ms;
      choice.shape = shape;
    }
  }
  return choice;
}

}  // namespace gpu

PaddedShape fft_shape(const GpuProblem& problem, cudaStream_t stream) {
  if (problem.padded && problem.padded->height > 0) return *problem.padded;
  if (problem.measure_padding) return gpu::choose_padding(problem.height, problem.width, problem.filter->size, stream, 5).shape;
  return linear_padding(problem.height, problem.width, problem.filter->size);
}

}  // namespace fft_convolve
