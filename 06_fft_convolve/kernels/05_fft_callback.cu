// 05 fft_callback: kernel 02 with the product moved inside cuFFT, as an LTO load callback.
//
// Teaches: kernel 02 reads and writes the whole spectrum once more just to multiply it by the
// filter's spectrum (24 bytes per complex element). cuFFT can call a function of ours as it loads
// each input element of a transform: a load callback. Here the C2R's callback returns
//
//   spectrum[offset] * filter_spectrum[offset]      (the 1/N already folded into the filter's)
//
// so the product costs no pass of its own. The callback is CUDA C++ compiled at run time by NVRTC
// to LTO-IR (-dlto: the compiler's intermediate form, not machine code); cufftXtSetJITCallback
// hands it to cuFFT before planning, and cufftMakePlan2d links it into cuFFT's own kernels with
// nvJitLink (link-time optimisation: the callback is inlined, not called through a pointer).
// The price is paid once, in setup: the compile and the link take far longer than a plain plan,
// and the setup column shows it. The rules (cuFFT's documentation, "LTO load and store
// callbacks"): set the callback after cufftCreate and before planning; the function's signature
// is fixed (data, element offset, caller info, shared memory); callerInfo is a device pointer.
//
// What changed from step 02: the product kernel and its pass are gone (the callback does the
// product); the pad kernel and the crop are step 02's, copied below so that this file reads whole.
#include <cufftXt.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "course/check.hpp"
#include "course/check_nvrtc.hpp"
#include "course/cufft_plan.hpp"
#include "course/nvrtc.hpp"
#include "kernels/fft_steps.cuh"

namespace fft_convolve {

namespace detail {

namespace {

// ---- Step 02's pad and crop (a copy) -----------------------------------------------------------
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

}  // namespace

}  // namespace detail

namespace {

// The callback, as source text for NVRTC. The name is looked up in the LTO-IR as a C++ function
// of exactly this signature (no extern "C"). float2 is cufftComplex's layout.
constexpr const char* kProductCallbackSource = R"(
// [docs:load_callback]
__device__ float2 multiply_by_filter_spectrum(void* data_in, unsigned long long offset, void* caller_info,
                                              void* shared_pointer) {
  const float2 a = static_cast<const float2*>(data_in)[offset];
  const float2 b = static_cast<const float2*>(caller_info)[offset];
  return make_float2(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
}
// [docs:end load_callback]
)";

// The compute capability of the current GPU as NVRTC spells it (90 for 9.0).
int current_architecture() {
  int device = 0, major = 0, minor = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
  CUDA_CHECK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device));
  return major * 10 + minor;
}

class FftCallback final : public GpuConvolver {
 public:
  explicit FftCallback(const GpuProblem& problem) : p_(problem) {}

  void setup(cudaStream_t stream) override {
    shape_ = fft_shape(p_, stream);
    const std::vector<char> lto_ir = product_callback_lto_ir(current_architecture());
    forward_.emplace(shape_.height, shape_.width, CUFFT_R2C);
    // The 1/N of the inverse transform goes into the filter's spectrum, once.
    filter_spectrum_ = detail::filter_spectrum(*p_.filter, shape_, *forward_, stream,
                                               1.0f / static_cast<float>(shape_.real_count()));
    caller_info_ = filter_spectrum_.data();
    inverse_.emplace();  // cufftCreate only: the callback must be set before planning
    CUFFT_CHECK(cufftXtSetJITCallback(inverse_->get(), kProductCallbackName, lto_ir.data(), lto_ir.size(),
                                      CUFFT_CB_LD_COMPLEX, &caller_info_));
    inverse_->make_2d(shape_.height, shape_.width, CUFFT_C2R);  // links the callback in (nvJitLink)
    padded_ = course::DeviceBuffer<float>(shape_.real_count(), "the padded image");
    spectrum_ = course::DeviceBuffer<cufftComplex>(shape_.complex_count(), "the image's spectrum");
  }

  void run(cudaStream_t stream) override {
    forward_->set_stream(stream);
    inverse_->set_stream(stream);
    detail::enqueue_pad(p_.input->data(), p_.height, p_.width, padded_.data(), shape_, stream);
    CUFFT_CHECK(cufftExecR2C(forward_->get(), padded_.data(), spectrum_.data()));
    CUFFT_CHECK(cufftExecC2R(inverse_->get(), spectrum_.data(), padded_.data()));  // the product, on load
    detail::enqueue_crop(padded_.data(), shape_, p_.output->data(), p_.height, p_.width, stream);
  }

  std::string note() const override { return "FFT " + shape_.text() + ", product in the C2R's LTO load callback"; }

 private:
  GpuProblem p_;
  PaddedShape shape_;
  std::optional<course::CufftPlan> forward_, inverse_;
  course::DeviceBuffer<float> padded_;
  course::DeviceBuffer<cufftComplex> spectrum_, filter_spectrum_;
  void* caller_info_ = nullptr;  // the filter's spectrum: what the callback receives as caller_info
};

}  // namespace

std::vector<char> product_callback_lto_ir(int architecture) {
  // The highest architecture this NVRTC supports that is not above the GPU's: LTO-IR for
  // compute_XX runs on any GPU of XX or newer.
  int target = 0;
  for (const int supported : course::nvrtc::supported_architectures()) {
    if (supported <= architecture) target = supported;
  }
  if (target == 0) throw course::Error("NVRTC cannot compile for compute capability " + std::to_string(architecture));
  course::nvrtc::Program program(kProductCallbackSource, "product_callback.cu");
  program.compile({"--gpu-architecture=compute_" + std::to_string(target), "--relocatable-device-code=true", "-dlto"});
  std::size_t size = 0;
  NVRTC_CHECK(nvrtcGetLTOIRSize(program.get(), &size));
  std::vector<char> lto_ir(size);
  NVRTC_CHECK(nvrtcGetLTOIR(program.get(), lto_ir.data()));
  return lto_ir;
}

std::unique_ptr<GpuConvolver> launch_fft_callback(const GpuProblem& problem) {
  return std::make_unique<FftCallback>(problem);
}

}  // namespace fft_convolve
