// A kernel with a syntax error (a missing semicolon), for the test that NVRTC's log reaches
// the user: 08_driver_api_saxpy --kernel-file tests/broken_kernel.cu must print the log and exit 3.
extern "C" __global__ void saxpy(float a, const float* x, const float* y, float* out, unsigned long long n) {
  const unsigned long long i = static_cast<unsigned long long>(blockIdx.x) * blockDim.x + threadIdx.x
  if (i < n) out[i] = a * x[i] + y[i];
}
