// Lesson 08, exercise 3 (make it fast): a SAXPY of your own, compiled at run time, that reaches the
// device copy. The lesson compiles this file with NVRTC and launches it through the driver API in
// place of its own kernel (--kernel-file), one thread per element, and verifies every element:
//   08_driver_api_saxpy --kernel-file 08_driver_api_saxpy/exercises/coalesce_saxpy_starter.cu
//     --entry coalesce_starter --skip-cpu
// As shipped it is right and slow: the array is seen as 32 columns, and lane l of warp w takes
// element l * rows + w, so the 32 threads of a warp touch 32 elements `rows` floats apart, 32
// memory sectors for 128 useful bytes, for x, y and out alike.
//
// Goal: at least 75% of the device copy (the d2d_copy ceiling the same run measures), as
//   ./scripts/check_exercise.sh 08 coalesce_saxpy
// reports. Keep the entry's name and parameters (the lesson passes a, x, y, out, n in this order)
// and the arithmetic a * x[i] + y[i] (the lesson compiles with --fmad=false and compares bit for
// bit). Hints: ./scripts/check_exercise.sh 08 coalesce_saxpy --hint
extern "C" __global__ void coalesce_starter(float a, const float* x, const float* y, float* out, unsigned long long n) {
  const unsigned long long rows = (n + 31) / 32;  // the array as 32 columns of `rows` elements
  const unsigned long long threads = static_cast<unsigned long long>(gridDim.x) * blockDim.x;
  for (unsigned long long t = static_cast<unsigned long long>(blockIdx.x) * blockDim.x + threadIdx.x; t < 32 * rows;
       t += threads) {
    const unsigned long long i = (t % 32) * rows + t / 32;  // lane l of warp w: element l * rows + w
    if (i < n) out[i] = a * x[i] + y[i];
  }
}
