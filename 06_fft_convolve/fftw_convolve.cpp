// Convolution by FFT on the CPU with FFTW: the CPU row the GPU's FFT path is compared with.
//
// Teaches: the convolution theorem in five steps, each one line of FFTW or a loop:
//   1. the filter's spectrum, once: the filter laid centred into the padded array, r2c;
//   2. the image into the padded array (zeros around it), r2c: its spectrum;
//   3. multiply the two spectra element by element, and by 1 / (Ph * Pw): FFTW, like cuFFT,
//      computes unnormalised transforms, so forward then inverse multiplies by the size, once;
//   4. c2r back to real numbers (it destroys its complex input: that is allowed, and faster);
//   5. the output is the padded result's upper-left H x W corner.
// A real input has a Hermitian spectrum (X(-k) = conj X(k)), so r2c stores only Ph x (Pw/2 + 1)
// complex numbers, about half, and costs about half a complex transform.
//
// Planning: FFTW_MEASURE times several algorithms for this size on this machine and keeps the
// fastest. It overwrites the arrays it plans on, so the plans are made first, on the
// convolver's own arrays, and the data is put in afterwards. The planning time is reported
// apart from the convolution's (it is paid once per size, not per image).
//
// Also here: the classic's naive way (complex-to-complex at the image's own size, the filter in
// the corner), for the tests and the pitfall picture.
#include <fftw3.h>

#include <algorithm>
#include <complex>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>

#include "course/errors.hpp"
#include "course/timing.hpp"
#include "course/watchdog.hpp"
#include "fft_convolve.hpp"

namespace fft_convolve {

namespace {

struct FftwFree {
  void operator()(void* p) const { fftwf_free(p); }
};
struct FftwPlanDestroy {
  void operator()(fftwf_plan_s* plan) const { fftwf_destroy_plan(plan); }
};
using FftwPlan = std::unique_ptr<fftwf_plan_s, FftwPlanDestroy>;
using RealArray = std::unique_ptr<float[], FftwFree>;
using ComplexArray = std::unique_ptr<fftwf_complex[], FftwFree>;

RealArray alloc_real(std::size_t count) {
  RealArray p(fftwf_alloc_real(count));
  if (!p) throw course::ResourceError("out of host memory: FFTW array of " + std::to_string(count) + " floats");
  return p;
}
ComplexArray alloc_complex(std::size_t count) {
  ComplexArray p(fftwf_alloc_complex(count));
  if (!p) throw course::ResourceError("out of host memory: FFTW array of " + std::to_string(count) + " complex floats");
  return p;
}
FftwPlan checked(fftwf_plan plan, const std::string& what) {
  if (!plan) throw course::Error("FFTW could not plan " + what);
  return FftwPlan(plan);
}

// The OpenMP threads of FFTW are set up once per process; the plans made afterwards use the
// thread count given to fftwf_plan_with_nthreads just before them.
void init_fftw_threads() {
  static std::once_flag once;
  std::call_once(once, [] {
    if (fftwf_init_threads() == 0) throw course::Error("FFTW could not initialise its threads");
  });
}

unsigned planner_flag(FftwPlanner planner) {
  switch (planner) {
    case FftwPlanner::estimate: return FFTW_ESTIMATE;
    case FftwPlanner::patient: return FFTW_PATIENT;
    case FftwPlanner::measure: break;
  }
  return FFTW_MEASURE;
}

}  // namespace

struct FftwConvolver::Impl {
  const Image* image = nullptr;
  int threads = 1;
  PaddedShape shape;
  RealArray real;
  ComplexArray spectrum;
  ComplexArray filter_spectrum;
  FftwPlan forward, inverse;
  double plan_ms = 0;
};

FftwConvolver::FftwConvolver(const Image& image, const Filter& filter, int threads, FftwPlanner planner)
    : impl_(std::make_unique<Impl>()) {
  Impl& s = *impl_;
  s.image = &image;
  s.threads = std::max(threads, 1);
  s.shape = linear_padding(image.height, image.width, filter.size);
  s.real = alloc_real(s.shape.real_count());
  s.spectrum = alloc_complex(s.shape.complex_count());
  s.filter_spectrum = alloc_complex(s.shape.complex_count());

  init_fftw_threads();
  fftwf_plan_with_nthreads(s.threads);
  // Planning (measure, patient) times candidate plans; on a loaded machine that can take
  // minutes. FFTW keeps the best plan found within its time limit (a quarter of --timeout per
  // plan); the watchdog ends the run if planning still runs past --timeout.
  const double limit = course::watchdog_limit();
  fftwf_set_timelimit(limit > 0 ? limit / 4 : FFTW_NO_TIMELIMIT);
  const course::WatchdogScope watchdog("FFTW's planning of " + s.shape.text(), limit);
  const course::HostTimer timer;
  const unsigned flags = planner_flag(planner);
  s.forward = checked(fftwf_plan_dft_r2c_2d(s.shape.height, s.shape.width, s.real.get(), s.spectrum.get(), flags),
                      "r2c " + s.shape.text());
  s.inverse = checked(fftwf_plan_dft_c2r_2d(s.shape.height, s.shape.width, s.spectrum.get(), s.real.get(), flags),
                      "c2r " + s.shape.text());
  s.plan_ms = timer.elapsed_ms();

  // The filter's spectrum, once (planning overwrote the arrays: they are filled only now).
  place_filter_centred(filter, s.shape, std::span<float>(s.real.get(), s.shape.real_count()));
  fftwf_execute(s.forward.get());
  std::memcpy(s.filter_spectrum.get(), s.spectrum.get(), s.shape.complex_count() * sizeof(fftwf_complex));
}

FftwConvolver::~FftwConvolver() = default;

PaddedShape FftwConvolver::shape() const { return impl_->shape; }
double FftwConvolver::plan_ms() const { return impl_->plan_ms; }

// [docs:fftw_run]
void FftwConvolver::run(std::span<float> output) {
  Impl& s = *impl_;
  const Image& image = *s.image;
  place_image(image, s.shape, std::span<float>(s.real.get(), s.shape.real_count()), s.threads);
  fftwf_execute(s.forward.get());  // spectrum = R2C(padded image)

  // spectrum *= filter spectrum / (Ph * Pw): fftwf_complex is float[2], the layout of std::complex<float>.
  auto* spectrum = reinterpret_cast<std::complex<float>*>(s.spectrum.get());
  const auto* filter_spectrum = reinterpret_cast<const std::complex<float>*>(s.filter_spectrum.get());
  const float scale = 1.0f / static_cast<float>(s.shape.real_count());
  const auto count = static_cast<std::ptrdiff_t>(s.shape.complex_count());
#pragma omp parallel for simd schedule(static) num_threads(s.threads)
  for (std::ptrdiff_t k = 0; k < count; ++k) spectrum[k] *= filter_spectrum[k] * scale;

  fftwf_execute(s.inverse.get());  // real = C2R(spectrum); the spectrum is destroyed

  const auto pw = static_cast<std::size_t>(s.shape.width);
  const auto w = static_cast<std::size_t>(image.width);
#pragma omp parallel for schedule(static) num_threads(s.threads)
  for (int row = 0; row < image.height; ++row) {
    std::copy_n(s.real.get() + static_cast<std::size_t>(row) * pw, w, output.data() + static_cast<std::size_t>(row) * w);
  }
}
// [docs:end fftw_run]

void convolve_naive_c2c_fftw(const Image& image, const Filter& filter, std::span<float> output) {
  // The classic: complex arrays of the image's own size, the filter in the upper-left corner,
  // forward both, multiply, inverse, divide by the count. No padding, no centring.
  const int h = image.height, w = image.width, k = filter.size;
  if (k > h || k > w) throw course::UsageError("the naive FFT needs the filter to fit inside the image");
  const std::size_t count = image.size();
  ComplexArray x = alloc_complex(count), f = alloc_complex(count);
  init_fftw_threads();
  fftwf_plan_with_nthreads(1);
  const FftwPlan forward_x = checked(fftwf_plan_dft_2d(h, w, x.get(), x.get(), FFTW_FORWARD, FFTW_ESTIMATE), "c2c forward");
  const FftwPlan forward_f = checked(fftwf_plan_dft_2d(h, w, f.get(), f.get(), FFTW_FORWARD, FFTW_ESTIMATE), "c2c forward");
  const FftwPlan inverse = checked(fftwf_plan_dft_2d(h, w, x.get(), x.get(), FFTW_BACKWARD, FFTW_ESTIMATE), "c2c inverse");
  for (std::size_t i = 0; i < count; ++i) {
    x[i][0] = image.pixels[i];
    x[i][1] = 0.0f;
    f[i][0] = f[i][1] = 0.0f;
  }
  for (int i = 0; i < k; ++i) {
    for (int j = 0; j < k; ++j) f[static_cast<std::size_t>(i) * static_cast<std::size_t>(w) + static_cast<std::size_t>(j)][0] = filter.at(i, j);
  }
  fftwf_execute(forward_x.get());
  fftwf_execute(forward_f.get());
  auto* xs = reinterpret_cast<std::complex<float>*>(x.get());
  const auto* fs = reinterpret_cast<const std::complex<float>*>(f.get());
  const float scale = 1.0f / static_cast<float>(count);
  for (std::size_t i = 0; i < count; ++i) xs[i] *= fs[i] * scale;
  fftwf_execute(inverse.get());
  for (std::size_t i = 0; i < count; ++i) output[i] = x[i][0];
}

}  // namespace fft_convolve
