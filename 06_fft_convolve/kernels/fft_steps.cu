// The host side of the FFT methods' steps: the FFT's size, by the rule of fft_shape (given,
// measured, or the smallest fast shape), and the measured choice of the size on this GPU. The
// steps' kernels are in the numbered files that run them (02_fft_r2c.cu: the pad and the product).
//
// Teaches: which FFT size is fastest is not guessed: the few smallest sizes with factors 2, 3,
// 5, 7 (and the power of two that rounding up would give) are timed as one R2C + C2R pair each,
// and the fastest wins. The same pair, timed at the chosen size, is the FFT methods' ceiling.
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "course/check.hpp"
#include "course/cufft_plan.hpp"
#include "course/device_buffer.hpp"
#include "course/timing.hpp"
#include "fft_convolve.hpp"

namespace fft_convolve {

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
