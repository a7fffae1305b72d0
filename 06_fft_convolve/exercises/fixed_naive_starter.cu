// Exercise 1, starter: make the classic's naive FFT convolution right, keeping C2C.
//
// This is kernel 01 (kernels/01_naive_c2c.cu) as a starting point: complex-to-complex transforms
// of the image's own size, the filter in the corner. Its result wraps around and is shifted by
// K / 2, and the test `GpuExercise.FixedNaiveStarterAsShippedFails` shows it. Your task:
//  1. transform at the padded shape: shape_ = linear_padding(height, width, K) (at least
//     H + K - 1 by W + K - 1, a fast size), and plan the C2C at that shape;
//  2. put the filter in centred: place_filter_centred(filter, shape_, taps) gives its real
//     parts, the centre tap at (0, 0) and the rest wrapped around the edges;
//  3. copy the image into the upper-left corner of the padded array, zeros everywhere else
//     (every element written each run: change `to_complex_kernel`);
//  4. take the real parts of the upper-left H x W corner as the output (change `crop_kernel`),
//     and divide by Ph * Pw, the padded size, not H * W;
//  5. check it: `./scripts/check_exercise.sh 06 fixed_naive` (with a GPU); compare with the solution.
// Then: why is kernel 02 (R2C/C2R) about twice as fast as your C2C? (docs/06_fft_convolve.md,
// exercise 1.)
#include <algorithm>
#include <memory>
#include <optional>
#include <vector>

#include "course/check.hpp"
#include "course/cufft_plan.hpp"
#include "exercises/exercises.hpp"
#include "kernels/fft_steps.cuh"

namespace fft_convolve::exercises {

namespace {

// TODO (step 3): write all `padded_rows` x `padded_cols` elements: the image inside, 0 outside.
__global__ void to_complex_kernel(const float* in, int rows, int cols, cufftComplex* out, int padded_rows,
                                  int padded_cols) {
  const int col = blockIdx.x * blockDim.x + threadIdx.x, row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row >= rows || col >= cols) return;
  out[static_cast<std::size_t>(row) * cols + col] = make_float2(in[static_cast<std::size_t>(row) * cols + col], 0.0f);
  (void)padded_rows;
  (void)padded_cols;
}

// TODO (step 4): read the upper-left rows x cols corner of a padded_cols-wide array.
__global__ void crop_kernel(const cufftComplex* in, int padded_cols, float* out, int rows, int cols) {
  const int col = blockIdx.x * blockDim.x + threadIdx.x, row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row >= rows || col >= cols) return;
  out[static_cast<std::size_t>(row) * cols + col] = in[static_cast<std::size_t>(row) * cols + col].x;
  (void)padded_cols;
}

class FixedNaive final : public GpuConvolver {
 public:
  explicit FixedNaive(const GpuProblem& problem) : p_(problem) {}

  void setup(cudaStream_t stream) override {
    shape_ = {p_.height, p_.width};  // TODO (step 1): linear_padding(...)
    plan_.emplace(shape_.height, shape_.width, CUFFT_C2C);
    plan_->set_stream(stream);
    const std::size_t count = shape_.real_count();
    data_ = course::DeviceBuffer<cufftComplex>(count, "the padded image");
    std::vector<cufftComplex> filter(count, make_float2(0.0f, 0.0f));
    const Filter& f = *p_.filter;  // TODO (step 2): place_filter_centred instead of the corner
    // The bounds keep a filter larger than the unpadded image inside the array (the check's smallest
    // images are 1 x 1); with step 1's padding every tap fits.
    for (int i = 0; i < std::min(f.size, shape_.height); ++i) {
      for (int j = 0; j < std::min(f.size, shape_.width); ++j) {
        filter[static_cast<std::size_t>(i) * shape_.width + j].x = f.at(i, j);
      }
    }
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

std::unique_ptr<GpuConvolver> make_fixed_naive_starter(const GpuProblem& problem) {
  return std::make_unique<FixedNaive>(problem);
}

}  // namespace fft_convolve::exercises
