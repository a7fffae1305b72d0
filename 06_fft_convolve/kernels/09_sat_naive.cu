// 09 sat_naive: the summed-area table's row pass with one thread per row (the first step).
//
// Teaches: the scan as a CPU programmer writes it, a running sum along the row, and why it is
// slow on a GPU. A thread's loop is serial (W dependent additions), there are only H threads
// (a few warps per SM at 1024 rows), and the 32 threads of a warp read 32 different rows at
// once: addresses W floats apart, one memory transaction per thread instead of one per warp
// (uncoalesced). The column pass and the box from four corners (sat_steps.cuh) are shared by all
// the steps; only the row pass changes from here to kernels/12_sat_cub.cu.
#include <memory>

#include "course/check.hpp"
#include "kernels/sat_steps.cuh"

namespace fft_convolve {

namespace {

// [docs:sat_rows_naive]
__global__ void sat_rows_naive(const float* __restrict__ in, double* __restrict__ table, int height, int width) {
  const int row = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (row >= height) return;
  const std::size_t first = static_cast<std::size_t>(row) * static_cast<std::size_t>(width);
  double sum = 0;
  for (int c = 0; c < width; ++c) {
    sum += in[first + c];
    table[first + c] = sum;
  }
}
// [docs:end sat_rows_naive]

void rows_naive(const float* in, double* table, int height, int width, double*, cudaStream_t stream) {
  sat_rows_naive<<<(height + 127) / 128, 128, 0, stream>>>(in, table, height, width);
  CUDA_CHECK_LAUNCH("sat_rows_naive");
}

}  // namespace

std::unique_ptr<GpuConvolver> launch_sat_naive(const GpuProblem& problem) {
  return detail::make_sat_box(problem, &rows_naive, nullptr, "row pass: one thread per row");
}

}  // namespace fft_convolve
