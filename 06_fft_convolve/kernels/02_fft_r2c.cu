// 02 fft_r2c: convolution by cuFFT, done right.
//
// Teaches: the convolution theorem on the GPU, each step a line:
//   setup (once, untimed):  FFT size chosen (padded to at least H + K - 1 by W + K - 1, a fast
//                           size), R2C and C2R plans, the filter's spectrum F
//   run (timed):            pad -> R2C -> multiply by F and 1/N -> C2R -> crop
// R2C keeps only the non-redundant half of a real signal's spectrum (Hermitian symmetry):
// Ph x (Pw/2 + 1) complex numbers. C2R takes that half back and overwrites it (its input is
// scratch). cuFFT does not normalise: forward then inverse multiplies by N = Ph * Pw, so the
// product kernel divides by N, once.
//
// The product kernel is memory-bound: it reads two complex numbers and writes one per element
// (24 bytes), 8 flops. It should run near the device copy bandwidth.
//
// What changed from step 01: the image is padded (pad_kernel writes the whole FFT-sized array:
// the image, then zeros) and the filter centred, so the circular convolution holds the linear
// one; real-to-complex transforms instead of complex ones; the FFT's size a fast one (fft_shape:
// given, measured on this GPU, or the smallest; kernels/fft_steps.cu).
// This file holds both kernels of the path (the pad and the product) and their launchers; the
// filter's spectrum, computed in setup, is in fft_steps.cuh.
#include <algorithm>
#include <memory>
#include <optional>
#include <string>

#include "course/check.hpp"
#include "course/cufft_plan.hpp"
#include "kernels/fft_steps.cuh"

namespace fft_convolve {

namespace detail {

namespace {

// padded(row, col) = image(row, col) inside the image, 0 elsewhere: every element of the
// Ph x Pw array is written, so nothing from an earlier run can leak in.
__global__ void pad_kernel(const float* __restrict__ image, int height, int width, float* __restrict__ padded,
                           int padded_height, int padded_width) {
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row >= padded_height || col >= padded_width) return;
  const float value = (row < height && col < width) ? image[static_cast<std::size_t>(row) * width + col] : 0.0f;
  padded[static_cast<std::size_t>(row) * padded_width + col] = value;
}

void enqueue_pad(const float* image, int height, int width, float* padded, PaddedShape shape, cudaStream_t stream) {
  const dim3 block(32, 8);
  const dim3 grid((shape.width + block.x - 1) / block.x, (shape.height + block.y - 1) / block.y);
  pad_kernel<<<grid, block, 0, stream>>>(image, height, width, padded, shape.height, shape.width);
  CUDA_CHECK_LAUNCH("pad_kernel");
}

// output = the upper-left height x width corner of the padded result: a pitched 2-D copy, no kernel.
void enqueue_crop(const float* padded, PaddedShape shape, float* output, int height, int width, cudaStream_t stream) {
  CUDA_CHECK(cudaMemcpy2DAsync(output, static_cast<std::size_t>(width) * sizeof(float), padded,
                               static_cast<std::size_t>(shape.width) * sizeof(float),
                               static_cast<std::size_t>(width) * sizeof(float), static_cast<std::size_t>(height),
                               cudaMemcpyDeviceToDevice, stream));
}

// data[k] = data[k] * filter[k] * scale, a grid-stride loop over the complex elements.
// [docs:multiply_and_scale_kernel]
__global__ void multiply_and_scale_kernel(cufftComplex* __restrict__ data, const cufftComplex* __restrict__ filter,
                                          std::size_t count, float scale) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t k = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < count; k += stride) {
    const cufftComplex a = data[k];
    const cufftComplex b = filter[k];
    data[k] = make_float2((a.x * b.x - a.y * b.y) * scale, (a.x * b.y + a.y * b.x) * scale);
  }
}
// [docs:end multiply_and_scale_kernel]

}  // namespace

void enqueue_multiply_and_scale(cufftComplex* data, const cufftComplex* filter, std::size_t count, float scale,
                                cudaStream_t stream) {
  constexpr int kThreads = 256;
  // One element per thread up to 2^20 blocks; beyond that the grid-stride loop takes over.
  const auto blocks = static_cast<unsigned>(std::min<std::size_t>((count + kThreads - 1) / kThreads, 1u << 20));
  multiply_and_scale_kernel<<<std::max(blocks, 1u), kThreads, 0, stream>>>(data, filter, count, scale);
  CUDA_CHECK_LAUNCH("multiply_and_scale_kernel");
}

}  // namespace detail

namespace {

class FftR2c final : public GpuConvolver {
 public:
  explicit FftR2c(const GpuProblem& problem) : p_(problem) {}

  std::string unsupported() const override { return ""; }  // any image, any filter

  // [docs:fft_setup]
  void setup(cudaStream_t stream) override {
    shape_ = fft_shape(p_, stream);
    forward_.emplace(shape_.height, shape_.width, CUFFT_R2C);
    inverse_.emplace(shape_.height, shape_.width, CUFFT_C2R);
    padded_ = course::DeviceBuffer<float>(shape_.real_count(), "the padded image");
    spectrum_ = course::DeviceBuffer<cufftComplex>(shape_.complex_count(), "the image's spectrum");
    filter_spectrum_ = detail::filter_spectrum(*p_.filter, shape_, *forward_, stream);
    use_stream(stream);
  }

  void run(cudaStream_t stream) override {
    use_stream(stream);
    const float scale = 1.0f / static_cast<float>(shape_.real_count());
    detail::enqueue_pad(p_.input->data(), p_.height, p_.width, padded_.data(), shape_, stream);
    CUFFT_CHECK(cufftExecR2C(forward_->get(), padded_.data(), spectrum_.data()));
    detail::enqueue_multiply_and_scale(spectrum_.data(), filter_spectrum_.data(), spectrum_.size(), scale, stream);
    CUFFT_CHECK(cufftExecC2R(inverse_->get(), spectrum_.data(), padded_.data()));
    detail::enqueue_crop(padded_.data(), shape_, p_.output->data(), p_.height, p_.width, stream);
  }
  // [docs:end fft_setup]

  std::string note() const override {
    return "FFT " + shape_.text() + ", plan work areas " +
           std::to_string((forward_->work_size() + inverse_->work_size()) >> 20) + " MiB";
  }

 private:
  // A plan remembers one stream; set it again only when the caller's stream changes.
  void use_stream(cudaStream_t stream) {
    if (stream_set_ && stream == stream_) return;
    forward_->set_stream(stream);
    inverse_->set_stream(stream);
    stream_ = stream;
    stream_set_ = true;
  }

  GpuProblem p_;
  PaddedShape shape_;
  std::optional<course::CufftPlan> forward_, inverse_;
  course::DeviceBuffer<float> padded_;
  course::DeviceBuffer<cufftComplex> spectrum_, filter_spectrum_;
  cudaStream_t stream_ = nullptr;
  bool stream_set_ = false;
};

}  // namespace

std::unique_ptr<GpuConvolver> launch_fft_r2c(const GpuProblem& problem) { return std::make_unique<FftR2c>(problem); }

}  // namespace fft_convolve
