// What the GPU FFT methods share besides their kernels: the filter's spectrum (computed once, in
// setup) and the product's launcher for the programs outside kernels/ that reuse it.
//
// Every FFT convolution on the GPU is the same sequence around two cuFFT calls:
//   pad the image into the FFT's array -> R2C -> multiply by the filter's spectrum -> C2R -> crop
// Each numbered file holds its own kernels and launchers for the steps it runs (02_fft_r2c.cu:
// the pad and the product, both written out there); what is here is host code, read top to
// bottom with the step's file. The FFT's size (fft_shape, declared in fft_convolve.hpp) is
// measured or computed in kernels/fft_steps.cu.
#pragma once

#include <cuda_runtime_api.h>
#include <cufft.h>

#include <cstddef>
#include <span>
#include <vector>

#include "course/check.hpp"
#include "course/check_cufft.hpp"
#include "course/cufft_plan.hpp"
#include "course/device_buffer.hpp"
#include "fft_convolve.hpp"

namespace fft_convolve::detail {

// data[k] = data[k] * filter[k] * scale for k < count (complex numbers): the convolution
// theorem's product and the inverse transform's 1 / N, in one pass. Defined with its kernel in
// kernels/02_fft_r2c.cu; the lesson's pitfall rows and the exercises call it too.
void enqueue_multiply_and_scale(cufftComplex* data, const cufftComplex* filter, std::size_t count, float scale,
                                cudaStream_t stream);

// The filter's spectrum at `shape`, times `scale`: the filter laid centred into a padded array
// on the host (place_filter_centred), scaled, copied in, transformed by `forward` (an R2C plan
// of that shape). Synchronizes `stream`: it is setup, not the timed path.
inline course::DeviceBuffer<cufftComplex> filter_spectrum(const Filter& filter, PaddedShape shape,
                                                          const course::CufftPlan& forward, cudaStream_t stream,
                                                          float scale = 1.0f) {
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

}  // namespace fft_convolve::detail
