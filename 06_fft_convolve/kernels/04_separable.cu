// 04 separable: a rank-1 filter in two passes, rows then columns.
//
// Teaches: when f(i, j) = column[i] * row[j] (a Gaussian, a box), the 2-D sum splits:
//
//   y(r, c) = sum_i column[i] * ( sum_j row[j] * x(r + R - i, c + R - j) )     (R = K / 2)
//
// The inner sum is a 1-D convolution along each row (pass 1, into a scratch image), the outer
// one a 1-D convolution down each column of that (pass 2): 2K multiply-adds per pixel instead of
// K^2 (10 instead of 25 for K = 5, 126 instead of 3969 for K = 63), at the price of writing and
// reading the scratch image once more. Each pass is a small version of kernel 03: a strip of the
// input with its halo in shared memory (zeros outside the image), the taps in constant memory.
// The classic filter is not separable (its rows are not multiples of one another), so for it
// this method reports why it does not apply instead of computing something else.
//
// What changed from step 03: the K x K taps become a column and a row (Filter::column, ::row),
// and the one direct pass becomes two 1-D passes through a scratch image.
#include <memory>
#include <string>
#include <vector>

#include "course/check.hpp"
#include "fft_convolve.hpp"

namespace fft_convolve {

namespace {

// Both factors flipped (convolution as correlation), up to the largest filter the lesson takes.
__constant__ float c_row_taps[kMaxFilterSize];
__constant__ float c_column_taps[kMaxFilterSize];
int g_loaded_filter = 0;

constexpr int kRowSegment = 256;    // pass 1: one block = 256 outputs of one row
constexpr int kColumnTile = 32;     // pass 2: one block = 32 columns x 32 rows of outputs
constexpr int kColumnBlockRows = 8;
constexpr int kRowsPerThread = kColumnTile / kColumnBlockRows;

// Pass 1: scratch(r, c) = sum_j row_taps[j] * x(r, c - R + j).
__global__ void row_pass_kernel(const float* __restrict__ in, float* __restrict__ scratch, int height, int width, int k) {
  extern __shared__ float strip[];  // kRowSegment + k - 1 values of one row
  const int radius = k / 2;
  const int row = blockIdx.y;
  const int col0 = blockIdx.x * kRowSegment;
  const float* line = in + static_cast<std::size_t>(row) * width;
  for (int b = threadIdx.x; b < kRowSegment + k - 1; b += kRowSegment) {
    const int col = col0 - radius + b;
    strip[b] = (col >= 0 && col < width) ? line[col] : 0.0f;
  }
  __syncthreads();
  const int col = col0 + threadIdx.x;
  if (col >= width) return;  // after the barrier: every thread has helped load
  float acc = 0.0f;
  for (int j = 0; j < k; ++j) acc += c_row_taps[j] * strip[threadIdx.x + j];
  scratch[static_cast<std::size_t>(row) * width + col] = acc;
}

// Pass 2: out(r, c) = sum_i column_taps[i] * scratch(r - R + i, c), 4 rows per thread (each
// value read from shared memory serves up to 4 outputs, as in kernel 03).
__global__ void column_pass_kernel(const float* __restrict__ scratch, float* __restrict__ out, int height, int width,
                                   int k) {
  extern __shared__ float strip[];  // (kColumnTile + k - 1) rows x kColumnTile columns
  const int radius = k / 2;
  const int col0 = blockIdx.x * kColumnTile, row0 = blockIdx.y * kColumnTile;
  const int col = col0 + threadIdx.x;
  for (int a = threadIdx.y; a < kColumnTile + k - 1; a += kColumnBlockRows) {
    const int row = row0 - radius + a;
    const bool inside = row >= 0 && row < height && col < width;
    strip[a * kColumnTile + threadIdx.x] = inside ? scratch[static_cast<std::size_t>(row) * width + col] : 0.0f;
  }
  __syncthreads();
  const int first_row = threadIdx.y * kRowsPerThread;
  float acc[kRowsPerThread] = {};
  for (int m = 0; m < k + kRowsPerThread - 1; ++m) {
    const float v = strip[(first_row + m) * kColumnTile + threadIdx.x];
#pragma unroll
    for (int q = 0; q < kRowsPerThread; ++q) {
      const int i = m - q;
      if (i >= 0 && i < k) acc[q] += c_column_taps[i] * v;
    }
  }
#pragma unroll
  for (int q = 0; q < kRowsPerThread; ++q) {
    const int row = row0 + first_row + q;
    if (row < height && col < width) out[static_cast<std::size_t>(row) * width + col] = acc[q];
  }
}

class Separable final : public GpuConvolver {
 public:
  explicit Separable(const GpuProblem& problem) : p_(problem) {}

  std::string unsupported() const override {
    return p_.filter->separable_problem();
  }

  void setup(cudaStream_t stream) override {
    const Filter& f = *p_.filter;
    row_.assign(f.row.rbegin(), f.row.rend());  // flipped
    column_.assign(f.column.rbegin(), f.column.rend());
    scratch_ = course::DeviceBuffer<float>(static_cast<std::size_t>(p_.height) * p_.width, "the row pass's output");
    id_ = detail::next_filter_id();
    upload(stream);
    CUDA_CHECK(cudaStreamSynchronize(stream));
  }

  void run(cudaStream_t stream) override {
    if (g_loaded_filter != id_) upload(stream);
    const int k = p_.filter->size;
    const dim3 row_grid((p_.width + kRowSegment - 1) / kRowSegment, p_.height);
    const std::size_t row_shared = static_cast<std::size_t>(kRowSegment + k - 1) * sizeof(float);
    row_pass_kernel<<<row_grid, kRowSegment, row_shared, stream>>>(p_.input->data(), scratch_.data(), p_.height,
                                                                   p_.width, k);
    CUDA_CHECK_LAUNCH("row_pass_kernel");
    const dim3 block(kColumnTile, kColumnBlockRows);
    const dim3 grid((p_.width + kColumnTile - 1) / kColumnTile, (p_.height + kColumnTile - 1) / kColumnTile);
    const std::size_t column_shared = static_cast<std::size_t>(kColumnTile + k - 1) * kColumnTile * sizeof(float);
    column_pass_kernel<<<grid, block, column_shared, stream>>>(scratch_.data(), p_.output->data(), p_.height, p_.width, k);
    CUDA_CHECK_LAUNCH("column_pass_kernel");
  }

  double bytes_per_pixel() const override { return 4 * sizeof(float); }  // two passes, each a read and a write

  std::string note() const override { return "2 passes of " + std::to_string(p_.filter->size) + " taps, scratch image"; }

 private:
  void upload(cudaStream_t stream) {
    CUDA_CHECK(cudaMemcpyToSymbolAsync(c_row_taps, row_.data(), row_.size() * sizeof(float), 0,
                                       cudaMemcpyHostToDevice, stream));
    CUDA_CHECK(cudaMemcpyToSymbolAsync(c_column_taps, column_.data(), column_.size() * sizeof(float), 0,
                                       cudaMemcpyHostToDevice, stream));
    g_loaded_filter = id_;
  }

  GpuProblem p_;
  std::vector<float> row_, column_;
  course::DeviceBuffer<float> scratch_;
  int id_ = 0;
};

}  // namespace

std::unique_ptr<GpuConvolver> launch_separable(const GpuProblem& problem) { return std::make_unique<Separable>(problem); }

}  // namespace fft_convolve
