// Lesson 08, exercise 3 (solution): the starter's SAXPY with neighbouring threads on neighbouring
// elements.
//
// What changed from the starter: the index. Thread t takes element t (and t + the grid's size, ...,
// should the grid be smaller than the array), so the 32 threads of a warp read 32 neighbouring
// floats of x and of y and write 32 of out: one 128-byte line each, every byte used. Run it with
//   08_driver_api_saxpy --kernel-file 08_driver_api_saxpy/exercises/coalesce_saxpy_solution.cu
//     --entry coalesce_solution --skip-cpu
extern "C" __global__ void coalesce_solution(float a, const float* x, const float* y, float* out, unsigned long long n) {
  const unsigned long long threads = static_cast<unsigned long long>(gridDim.x) * blockDim.x;
  for (unsigned long long i = static_cast<unsigned long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += threads) {
    out[i] = a * x[i] + y[i];
  }
}
