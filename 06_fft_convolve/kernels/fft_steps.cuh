// The steps the GPU FFT methods share (kernels/fft_steps.cu, and the product in 02_fft_r2c.cu).
//
// Every FFT convolution on the GPU is the same sequence around two cuFFT calls:
//   pad the image into the FFT's array -> R2C -> multiply by the filter's spectrum -> C2R -> crop
// and the filter's spectrum is computed once, in setup, with the same forward plan.
#pragma once

#include <cuda_runtime_api.h>
#include <cufft.h>

#include <cstddef>

#include "course/cufft_plan.hpp"
#include "course/device_buffer.hpp"
#include "fft_convolve.hpp"

namespace fft_convolve::detail {

// padded(row, col) = image(row, col) inside the image, 0 elsewhere: every element of the
// Ph x Pw array is written, so nothing from an earlier run can leak in.
void enqueue_pad(const float* image, int height, int width, float* padded, PaddedShape shape, cudaStream_t stream);

// output = the upper-left height x width corner of the padded result (a pitched 2-D copy).
void enqueue_crop(const float* padded, PaddedShape shape, float* output, int height, int width, cudaStream_t stream);

// data[k] = data[k] * filter[k] * scale for k < count (complex numbers): the convolution
// theorem's product and the inverse transform's 1 / N, in one pass (kernels/02_fft_r2c.cu).
void enqueue_multiply_and_scale(cufftComplex* data, const cufftComplex* filter, std::size_t count, float scale,
                                cudaStream_t stream);

// The filter's spectrum at `shape`, times `scale`: the filter laid centred into a padded array
// on the host (place_filter_centred), scaled, copied in, transformed by `forward` (an R2C plan
// of that shape). Synchronizes `stream`: it is setup, not the timed path.
course::DeviceBuffer<cufftComplex> filter_spectrum(const Filter& filter, PaddedShape shape,
                                                   const course::CufftPlan& forward, cudaStream_t stream,
                                                   float scale = 1.0f);

// A fresh number per filter upload: kernels that keep their filter in constant memory (one
// copy per program) compare it with what they uploaded last, and upload again before they run
// if another convolver's filter is there now.
int next_filter_id();

}  // namespace fft_convolve::detail
