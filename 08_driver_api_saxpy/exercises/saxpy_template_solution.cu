// Lesson 08, exercise 1 (solution): a kernel template, instantiated at run time by NVRTC.
//
// The host asks for saxpy_ilp<1>, saxpy_ilp<2>, ... with name expressions, gets each
// instance's mangled name back (nvrtcGetLoweredName) and launches it through the driver API.
// kIlp is a compile-time constant inside each instance: the loops over k are unrolled and the
// loads of one trip are all issued before the first multiply.
// The tests (test_saxpy.cpp, SaxpyExercise.* and GpuSaxpyExercise.*) compile and check this file.
template <int kIlp>
__global__ void saxpy_ilp(float a, const float* x, const float* y, float* out, unsigned long long n) {
  const unsigned long long thread = static_cast<unsigned long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  const unsigned long long stride = static_cast<unsigned long long>(gridDim.x) * blockDim.x;
  unsigned long long i = thread;
  // Whole trips: all kIlp elements of the trip exist.
  for (; i + (kIlp - 1) * stride < n; i += kIlp * stride) {
    float xs[kIlp], ys[kIlp];
#pragma unroll
    for (int k = 0; k < kIlp; ++k) {
      xs[k] = x[i + k * stride];
      ys[k] = y[i + k * stride];
    }
#pragma unroll
    for (int k = 0; k < kIlp; ++k) out[i + k * stride] = a * xs[k] + ys[k];
  }
  // The rest: fewer than kIlp elements are left for this thread.
  for (; i < n; i += stride) out[i] = a * x[i] + y[i];
}
