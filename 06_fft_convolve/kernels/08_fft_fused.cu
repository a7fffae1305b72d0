// 08 fft_fused: the whole FFT convolution as one R2C and one C2R, padding, product and crop inside.
//
// Teaches: step 05 moved the product into the C2R's loads, but the path still made two passes of
// its own around the transforms: the padding (write the Ph x Pw array: the image and its zeros)
// and the crop (copy the H x W corner of the result out). Both are just index arithmetic on
// loads and stores that cuFFT does anyway, so they can be callbacks too:
//   - the R2C's load callback returns image(row, col) for element (row, col) of the padded array
//     inside the image and 0 outside it: the padded array is never written or read;
//   - the C2R's load callback is step 05's product (the filter's spectrum, with 1/N folded in);
//   - the C2R's store callback writes element (row, col) of the result to output(row, col) when
//     it lies inside the image and drops it otherwise: the crop is the store.
// What is left is one R2C and one C2R, which read the image and write the result directly: the
// FFT ceiling's pair (cufft_pair) with less traffic at its two ends, so the row can reach 100% of
// that ceiling. Each callback is compiled by NVRTC to LTO-IR and linked into cuFFT's kernels at
// plan time (step 05); its caller info is a small struct in device memory. The filter's spectrum
// is computed with a plain R2C plan: the forward plan's load callback would read the image.
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

namespace {

// What the padding and crop callbacks need: where the image (or the result) is, and both shapes.
// The same layout is declared in the callbacks' source below.
struct EdgeInfo {
  float* image;         // the input image (pad) or the output (crop), height x width
  unsigned int height, width, padded_width;
};

// The callbacks, as source text for NVRTC (one program each, so each LTO-IR module defines one
// function). offset < 2^28 (kMaxPixels): 32-bit arithmetic is enough and much cheaper than 64.
// [docs:fused_callbacks]
constexpr const char* kPadCallbackSource = R"(
struct EdgeInfo { float* image; unsigned int height, width, padded_width; };
__device__ float load_padded_image(void* data_in, unsigned long long offset, void* caller_info, void* shared_pointer) {
  const EdgeInfo& e = *static_cast<const EdgeInfo*>(caller_info);
  const unsigned int index = static_cast<unsigned int>(offset);
  const unsigned int row = index / e.padded_width, col = index - row * e.padded_width;
  return (row < e.height && col < e.width) ? e.image[row * e.width + col] : 0.0f;
}
)";
constexpr const char* kCropCallbackSource = R"(
struct EdgeInfo { float* image; unsigned int height, width, padded_width; };
__device__ void store_cropped_result(void* data_out, unsigned long long offset, float element, void* caller_info,
                                     void* shared_pointer) {
  const EdgeInfo& e = *static_cast<const EdgeInfo*>(caller_info);
  const unsigned int index = static_cast<unsigned int>(offset);
  const unsigned int row = index / e.padded_width, col = index - row * e.padded_width;
  if (row < e.height && col < e.width) e.image[row * e.width + col] = element;
}
)";
// [docs:end fused_callbacks]
constexpr const char* kPadCallbackName = "load_padded_image";
constexpr const char* kCropCallbackName = "store_cropped_result";

int current_architecture() {
  int device = 0, major = 0, minor = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
  CUDA_CHECK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device));
  return major * 10 + minor;
}

std::vector<char> compile_lto_ir(const char* source, const char* file, int architecture) {
  int target = 0;  // the highest NVRTC target not above the GPU's (as step 05)
  for (const int supported : course::nvrtc::supported_architectures()) {
    if (supported <= architecture) target = supported;
  }
  if (target == 0) throw course::Error("NVRTC cannot compile for compute capability " + std::to_string(architecture));
  course::nvrtc::Program program(source, file);
  program.compile({"--gpu-architecture=compute_" + std::to_string(target), "--relocatable-device-code=true", "-dlto"});
  std::size_t size = 0;
  NVRTC_CHECK(nvrtcGetLTOIRSize(program.get(), &size));
  std::vector<char> lto_ir(size);
  NVRTC_CHECK(nvrtcGetLTOIR(program.get(), lto_ir.data()));
  return lto_ir;
}

class FftFused final : public GpuConvolver {
 public:
  explicit FftFused(const GpuProblem& problem) : p_(problem) {}

  void setup(cudaStream_t stream) override {
    shape_ = fft_shape(p_, stream);
    const int architecture = current_architecture();
    const FusedCallbacks callbacks = fused_callbacks_lto_ir(architecture);
    const std::vector<char> product = product_callback_lto_ir(architecture);
    {  // The filter's spectrum, 1/N folded in, with a plain R2C plan (dropped after setup).
      const course::CufftPlan plain(shape_.height, shape_.width, CUFFT_R2C);
      filter_spectrum_ = detail::filter_spectrum(*p_.filter, shape_, plain, stream,
                                                 1.0f / static_cast<float>(shape_.real_count()));
    }
    const EdgeInfo pad{const_cast<float*>(p_.input->data()), static_cast<unsigned int>(p_.height),
                       static_cast<unsigned int>(p_.width), static_cast<unsigned int>(shape_.width)};
    const EdgeInfo crop{p_.output->data(), pad.height, pad.width, pad.padded_width};
    edges_ = course::DeviceBuffer<EdgeInfo>(2, "the padding and crop callbacks' caller info");
    const EdgeInfo both[2] = {pad, crop};
    edges_.copy_from_host(both);
    pad_info_ = edges_.data();
    crop_info_ = edges_.data() + 1;
    product_info_ = filter_spectrum_.data();

    forward_.emplace();  // cufftCreate only: callbacks are set before planning
    CUFFT_CHECK(cufftXtSetJITCallback(forward_->get(), kPadCallbackName, callbacks.pad.data(), callbacks.pad.size(),
                                      CUFFT_CB_LD_REAL, &pad_info_));
    forward_->make_2d(shape_.height, shape_.width, CUFFT_R2C);
    inverse_.emplace();
    CUFFT_CHECK(cufftXtSetJITCallback(inverse_->get(), kProductCallbackName, product.data(), product.size(),
                                      CUFFT_CB_LD_COMPLEX, &product_info_));
    CUFFT_CHECK(cufftXtSetJITCallback(inverse_->get(), kCropCallbackName, callbacks.crop.data(), callbacks.crop.size(),
                                      CUFFT_CB_ST_REAL, &crop_info_));
    inverse_->make_2d(shape_.height, shape_.width, CUFFT_C2R);
    // The transforms' own arrays: the R2C's input and the C2R's output are never touched (the
    // callbacks read the image and write the result), but cuFFT is handed valid arrays of the
    // padded size all the same.
    padded_ = course::DeviceBuffer<float>(shape_.real_count(), "the padded array (unused by the callbacks)");
    spectrum_ = course::DeviceBuffer<cufftComplex>(shape_.complex_count(), "the image's spectrum");
    CUDA_CHECK(cudaDeviceSynchronize());  // the caller info's pageable copy
  }

  void run(cudaStream_t stream) override {
    forward_->set_stream(stream);
    inverse_->set_stream(stream);
    CUFFT_CHECK(cufftExecR2C(forward_->get(), padded_.data(), spectrum_.data()));  // pads on load
    CUFFT_CHECK(cufftExecC2R(inverse_->get(), spectrum_.data(), padded_.data()));  // product on load, crop on store
  }

  std::string note() const override {
    return "FFT " + shape_.text() + ", padding in the R2C's load callback, product and crop in the C2R's";
  }

 private:
  GpuProblem p_;
  PaddedShape shape_;
  std::optional<course::CufftPlan> forward_, inverse_;
  course::DeviceBuffer<float> padded_;
  course::DeviceBuffer<cufftComplex> spectrum_, filter_spectrum_;
  course::DeviceBuffer<EdgeInfo> edges_;
  void* pad_info_ = nullptr;      // caller info: device pointers, handed to cuFFT by address
  void* crop_info_ = nullptr;
  void* product_info_ = nullptr;
};

}  // namespace

FusedCallbacks fused_callbacks_lto_ir(int architecture) {
  return {compile_lto_ir(kPadCallbackSource, "pad_callback.cu", architecture),
          compile_lto_ir(kCropCallbackSource, "crop_callback.cu", architecture)};
}

std::unique_ptr<GpuConvolver> launch_fft_fused(const GpuProblem& problem) { return std::make_unique<FftFused>(problem); }

}  // namespace fft_convolve
