// 01 naive_c2c: the classic's FFT convolution, as it was written. A teaching row: its check is
// expected to FAIL, and the lesson says so.
//
// Teaches what goes wrong, by doing it: complex-to-complex transforms of the image's own size
// H x W (no padding), the K x K filter in the array's upper-left corner (not centred), forward,
// multiply, inverse, divide by H * W. The FFT's convolution is circular, so this computes
//
//   y(row, col) = sum f(i, j) x((row - i) mod H, (col - j) mod W)
//
// The linear result's last K - 1 rows and columns have nowhere to go and wrap onto the first
// ones, and with the filter in the corner instead of centred, everything is shifted by r = K / 2
// down and right. The tests check that the result is exactly that (circular_reference), and the
// lesson's pitfall picture shows it next to the right answer. Kernel 02 pads and centres.
// (C2C on a real image also wastes half the work: the imaginary parts are all 0.)
#include <algorithm>
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "course/check.hpp"
#include "course/cufft_plan.hpp"
#include "fft_convolve.hpp"

namespace fft_convolve {

namespace detail {

namespace {

// The convolution theorem's product and the inverse transform's 1 / N, in one pass:
// data[k] = data[k] * filter[k] * scale, a grid-stride loop over the complex elements. (Step 02
// runs the same kernel, written out in its file too.)
__global__ void multiply_and_scale_kernel(cufftComplex* __restrict__ data, const cufftComplex* __restrict__ filter,
                                          std::size_t count, float scale) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t k = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < count; k += stride) {
    const cufftComplex a = data[k];
    const cufftComplex b = filter[k];
    data[k] = make_float2((a.x * b.x - a.y * b.y) * scale, (a.x * b.y + a.y * b.x) * scale);
  }
}

void enqueue_multiply_and_scale(cufftComplex* data, const cufftComplex* filter, std::size_t count, float scale,
                                cudaStream_t stream) {
  constexpr int kThreads = 256;
  // One element per thread up to 2^20 blocks; beyond that the grid-stride loop takes over.
  const auto blocks = static_cast<unsigned>(std::min<std::size_t>((count + kThreads - 1) / kThreads, 1u << 20));
  multiply_and_scale_kernel<<<std::max(blocks, 1u), kThreads, 0, stream>>>(data, filter, count, scale);
  CUDA_CHECK_LAUNCH("multiply_and_scale_kernel");
}

}  // namespace

}  // namespace detail

namespace {

__global__ void real_to_complex_kernel(const float* __restrict__ in, cufftComplex* __restrict__ out, std::size_t count) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t k = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < count; k += stride) {
    out[k] = make_float2(in[k], 0.0f);
  }
}

__global__ void real_part_kernel(const cufftComplex* __restrict__ in, float* __restrict__ out, std::size_t count) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t k = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < count; k += stride) {
    out[k] = in[k].x;
  }
}

unsigned blocks_for(std::size_t count) {
  return static_cast<unsigned>(std::max<std::size_t>(std::min<std::size_t>((count + 255) / 256, 1u << 20), 1));
}

class NaiveC2c final : public GpuConvolver {
 public:
  explicit NaiveC2c(const GpuProblem& problem) : p_(problem) {}

  std::string unsupported() const override {
    if (p_.filter->size == 1) return "a 1 x 1 filter neither spreads nor shifts: the naive way is exact, nothing to show";
    if (p_.filter->size > p_.height || p_.filter->size > p_.width) {
      return "the filter does not fit in the image (the naive way has no padding)";
    }
    return "";
  }

  void setup(cudaStream_t stream) override {
    plan_.emplace(p_.height, p_.width, CUFFT_C2C);
    plan_->set_stream(stream);
    const std::size_t count = static_cast<std::size_t>(p_.height) * static_cast<std::size_t>(p_.width);
    data_ = course::DeviceBuffer<cufftComplex>(count, "the image as complex numbers");
    // The filter in the corner of an H x W complex array, transformed once.
    std::vector<cufftComplex> corner(count, make_float2(0.0f, 0.0f));
    const Filter& f = *p_.filter;
    for (int i = 0; i < f.size; ++i) {
      for (int j = 0; j < f.size; ++j) corner[static_cast<std::size_t>(i) * p_.width + j].x = f.at(i, j);
    }
    filter_spectrum_ = course::DeviceBuffer<cufftComplex>(count, "the filter's spectrum (naive)");
    filter_spectrum_.copy_from_host_async(corner, stream);  // in the plan's stream: ordered before the FFT
    CUFFT_CHECK(cufftExecC2C(plan_->get(), filter_spectrum_.data(), filter_spectrum_.data(), CUFFT_FORWARD));
    CUDA_CHECK(cudaStreamSynchronize(stream));  // `corner` is freed on return
  }

  void run(cudaStream_t stream) override {
    plan_->set_stream(stream);
    const std::size_t count = data_.size();
    real_to_complex_kernel<<<blocks_for(count), 256, 0, stream>>>(p_.input->data(), data_.data(), count);
    CUDA_CHECK_LAUNCH("real_to_complex_kernel");
    CUFFT_CHECK(cufftExecC2C(plan_->get(), data_.data(), data_.data(), CUFFT_FORWARD));
    detail::enqueue_multiply_and_scale(data_.data(), filter_spectrum_.data(), count, 1.0f / static_cast<float>(count),
                                       stream);
    CUFFT_CHECK(cufftExecC2C(plan_->get(), data_.data(), data_.data(), CUFFT_INVERSE));
    real_part_kernel<<<blocks_for(count), 256, 0, stream>>>(data_.data(), p_.output->data(), count);
    CUDA_CHECK_LAUNCH("real_part_kernel");
  }

  std::string note() const override {
    return "C2C " + std::to_string(p_.height) + " x " + std::to_string(p_.width) +
           ", no padding: the result wraps around and is shifted by K/2 (expected to fail)";
  }

 private:
  GpuProblem p_;
  std::optional<course::CufftPlan> plan_;
  course::DeviceBuffer<cufftComplex> data_, filter_spectrum_;
};

}  // namespace

std::unique_ptr<GpuConvolver> launch_naive_c2c(const GpuProblem& problem) { return std::make_unique<NaiveC2c>(problem); }

}  // namespace fft_convolve
