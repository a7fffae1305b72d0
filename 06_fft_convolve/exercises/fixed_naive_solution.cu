// Exercise 1, solution: the classic's FFT convolution made right, still complex-to-complex.
//
// Three changes to the naive way (kernel 01): transform at a padded shape of at least
// H + K - 1 by W + K - 1 (so the linear result has room and nothing wraps onto the image), the
// filter centred (its centre tap at (0, 0), so the output is not shifted), and the output cropped
// from the padded result's upper-left corner; the scale is 1 / (Ph * Pw). Kernel 02 does the same
// with R2C/C2R, half the work.
#include <memory>
#include <optional>
#include <vector>

#include "course/check.hpp"
#include "course/cufft_plan.hpp"
#include "exercises/exercises.hpp"
#include "kernels/fft_steps.cuh"

namespace fft_convolve::exercises {

namespace {

// Every element of the padded array: the image inside, 0 outside.
__global__ void to_complex_kernel(const float* in, int rows, int cols, cufftComplex* out, int padded_rows,
                                  int padded_cols) {
  const int col = blockIdx.x * blockDim.x + threadIdx.x, row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row >= padded_rows || col >= padded_cols) return;
  const float value = (row < rows && col < cols) ? in[static_cast<std::size_t>(row) * cols + col] : 0.0f;
  out[static_cast<std::size_t>(row) * padded_cols + col] = make_float2(value, 0.0f);
}

// The real parts of the upper-left rows x cols corner of the padded result.
__global__ void crop_kernel(const cufftComplex* in, int padded_cols, float* out, int rows, int cols) {
  const int col = blockIdx.x * blockDim.x + threadIdx.x, row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row >= rows || col >= cols) return;
  out[static_cast<std::size_t>(row) * cols + col] = in[static_cast<std::size_t>(row) * padded_cols + col].x;
}

class FixedNaive final : public GpuConvolver {
 public:
  explicit FixedNaive(const GpuProblem& problem) : p_(problem) {}

  void setup(cudaStream_t stream) override {
    shape_ = linear_padding(p_.height, p_.width, p_.filter->size);
    plan_.emplace(shape_.height, shape_.width, CUFFT_C2C);
    plan_->set_stream(stream);
    const std::size_t count = shape_.real_count();
    data_ = course::DeviceBuffer<cufftComplex>(count, "the padded image");
    std::vector<float> taps(count);
    place_filter_centred(*p_.filter, shape_, taps);
    std::vector<cufftComplex> filter(count);
    for (std::size_t i = 0; i < count; ++i) filter[i] = make_float2(taps[i], 0.0f);
    filter_spectrum_ = course::DeviceBuffer<cufftComplex>(count, "the filter's spectrum");
    filter_spectrum_.copy_from_host_async(filter, stream);
    CUFFT_CHECK(cufftExecC2C(plan_->get(), filter_spectrum_.data(), filter_spectrum_.data(), CUFFT_FORWARD));
    CUDA_CHECK(cudaStreamSynchronize(stream));
  }

  void run(cudaStream_t stream) override {
    plan_->set_stream(stream);
    const dim3 block(32, 8);
    const dim3 padded_grid((shape_.width + 31) / 32, (shape_.height + 7) / 8);
    const dim3 image_grid((p_.width + 31) / 32, (p_.height + 7) / 8);
    to_complex_kernel<<<padded_grid, block, 0, stream>>>(p_.input->data(), p_.height, p_.width, data_.data(),
                                                         shape_.height, shape_.width);
    CUDA_CHECK_LAUNCH("to_complex_kernel");
    CUFFT_CHECK(cufftExecC2C(plan_->get(), data_.data(), data_.data(), CUFFT_FORWARD));
    detail::enqueue_multiply_and_scale(data_.data(), filter_spectrum_.data(), data_.size(),
                                       1.0f / static_cast<float>(data_.size()), stream);
    CUFFT_CHECK(cufftExecC2C(plan_->get(), data_.data(), data_.data(), CUFFT_INVERSE));
    crop_kernel<<<image_grid, block, 0, stream>>>(data_.data(), shape_.width, p_.output->data(), p_.height, p_.width);
    CUDA_CHECK_LAUNCH("crop_kernel");
  }

 private:
  GpuProblem p_;
  PaddedShape shape_;
  std::optional<course::CufftPlan> plan_;
  course::DeviceBuffer<cufftComplex> data_, filter_spectrum_;
};

}  // namespace

std::unique_ptr<GpuConvolver> make_fixed_naive_solution(const GpuProblem& problem) {
  return std::make_unique<FixedNaive>(problem);
}

}  // namespace fft_convolve::exercises
