// A user's own SAXPY kernel, the workshop use of --kernel-file: the simplest form, one element
// per thread, and named my_saxpy, so it needs --entry my_saxpy.
//
//   08_driver_api_saxpy --kernel-file 08_driver_api_saxpy/tests/user_saxpy.cu --entry my_saxpy
//
// The lesson launches a user's kernel with the lesson kernel's parameters, in this order and
// with these types, and with one thread per element (ceil(n / block) blocks).
extern "C" __global__ void my_saxpy(float a, const float* x, const float* y, float* out, unsigned long long n) {
  const unsigned long long i = static_cast<unsigned long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i] = a * x[i] + y[i];
}
