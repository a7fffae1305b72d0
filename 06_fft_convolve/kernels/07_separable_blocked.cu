// 07 separable_blocked: the two passes of step 04, each register-blocked, so each stays at the
// copy's limit up to K = 63.
//
// Teaches: step 04 did one output per thread, one shared load and one constant load per
// multiply-add. With 2 K multiply-adds per pixel that is cheap at K = 3 and the limit at K = 63
// (126 FMAs, 126 shared and 126 constant loads per pixel against 16 bytes of DRAM traffic), so
// the passes fell from the copy's bandwidth to a third of it. What changed:
//  - the row pass is step 06's inner loop with one filter row: each thread 8 neighbouring
//    outputs of a row, the pixels as float4 from a shared strip, each tap read once and used 8
//    times (kernels/register_chunk.cuh);
//  - the column pass has each thread 4 neighbouring columns x 8 rows: one 16-byte shared load
//    (a row of its 4 columns) serves the 4 columns of up to 8 rows (32 FMAs), the taps of a
//    chunk of 8 sit in registers. A warp's 32 float4 loads are 512 consecutive bytes: no bank
//    conflict, and its global loads and stores are coalesced along the row.
// Both passes read and write the image once (16 bytes per pixel in all, through a scratch image).
#include <memory>
#include <string>
#include <vector>

#include "course/check.hpp"
#include "fft_convolve.hpp"
#include "kernels/register_chunk.cuh"

namespace fft_convolve {

namespace {

// Both factors flipped (convolution as correlation).
__constant__ float c_row_taps[kMaxDirectFilterSize];
__constant__ float c_column_taps[kMaxDirectFilterSize];
int g_loaded_filter = 0;

constexpr int kThreadsX = 32, kThreadsY = 8;  // 256 threads per block, both passes

// ---- Pass 1: rows. A block: 8 image rows x 256 outputs, 8 outputs per thread. ----
constexpr int kRowOutputs = 8;
constexpr int kRowTileWidth = kThreadsX * kRowOutputs;  // 256
__host__ __device__ constexpr int row_stride(int k) { return (kRowTileWidth + k + 2 + 3) / 4 * 4; }
constexpr int kRowLoadSteps = (row_stride(kMaxDirectFilterSize) + kThreadsX - 1) / kThreadsX;

__global__ void __launch_bounds__(kThreadsX * kThreadsY)
    row_pass_blocked_kernel(const float* __restrict__ in, float* __restrict__ scratch, int height, int width, int k) {
  extern __shared__ float4 row_storage[];
  float* strips = reinterpret_cast<float*>(row_storage);  // kThreadsY rows of row_stride(k)
  const int radius = k / 2, stride = row_stride(k);
  const int row = blockIdx.y * kThreadsY + threadIdx.y;
  const int col0 = blockIdx.x * kRowTileWidth;
  float* strip = strips + threadIdx.y * stride;  // this thread row's image row, with its halo
  const bool row_inside = row < height;
  const float* line = in + static_cast<std::size_t>(row_inside ? row : 0) * width;
  float values[kRowLoadSteps];  // all loads in flight before any store
#pragma unroll
  for (int m = 0; m < kRowLoadSteps; ++m) {
    const int b = threadIdx.x + m * kThreadsX, col = col0 - radius + b;
    values[m] = (b < stride && row_inside && col >= 0 && col < width) ? line[col] : 0.0f;
  }
#pragma unroll
  for (int m = 0; m < kRowLoadSteps; ++m) {
    const int b = threadIdx.x + m * kThreadsX;
    if (b < stride) strip[b] = values[m];
  }
  __syncthreads();
  const int first = threadIdx.x * kRowOutputs;
  float acc[kRowOutputs] = {};
  detail::accumulate_row<kRowOutputs>(strip + first, c_row_taps, k, acc);
  const int col = col0 + first;
  if (!row_inside || col >= width) return;
  float* target = scratch + static_cast<std::size_t>(row) * width + col;
  if (width % 4 == 0 && col + kRowOutputs <= width) {
    reinterpret_cast<float4*>(target)[0] = make_float4(acc[0], acc[1], acc[2], acc[3]);
    reinterpret_cast<float4*>(target)[1] = make_float4(acc[4], acc[5], acc[6], acc[7]);
  } else {
#pragma unroll
    for (int p = 0; p < kRowOutputs; ++p) {
      if (col + p < width) target[p] = acc[p];
    }
  }
}

// ---- Pass 2: columns. A block: 8 kRows rows x 128 columns, each thread kRows rows x 4 columns
// (kRows = 8; 4 on an image too small to give every SM two blocks of 64 rows). ----
constexpr int kColumnWidth = 4;
constexpr int kColumnTileWidth = kThreadsX * kColumnWidth;  // 128
constexpr std::size_t column_shared_bytes(int k, int rows) {
  return static_cast<std::size_t>(kThreadsY * rows + k - 1) * kColumnTileWidth * sizeof(float);
}

// acc[q] += sum over j < kTaps of taps[j] * strip row (q + j), 4 columns at once: the strip's
// rows come in as float4 one by one, each used by every output q it reaches.
template <int kRows, int kTaps>
__device__ __forceinline__ void accumulate_column_chunk(const float* __restrict__ strip, const float* taps,
                                                        float4 (&acc)[kRows]) {
  float w[kTaps];
#pragma unroll
  for (int j = 0; j < kTaps; ++j) w[j] = taps[j];
#pragma unroll
  for (int m = 0; m < kRows + kTaps - 1; ++m) {
    const float4 v = *reinterpret_cast<const float4*>(strip + m * kColumnTileWidth);
#pragma unroll
    for (int q = 0; q < kRows; ++q) {
      const int j = m - q;  // known at compile time: no test in the code
      if (j >= 0 && j < kTaps) {
        acc[q].x = fmaf(w[j], v.x, acc[q].x);
        acc[q].y = fmaf(w[j], v.y, acc[q].y);
        acc[q].z = fmaf(w[j], v.z, acc[q].z);
        acc[q].w = fmaf(w[j], v.w, acc[q].w);
      }
    }
  }
}

template <int kRows>
__global__ void __launch_bounds__(kThreadsX * kThreadsY)
    column_pass_blocked_kernel(const float* __restrict__ scratch, float* __restrict__ out, int height, int width, int k) {
  extern __shared__ float4 column_storage[];
  float* tile = reinterpret_cast<float*>(column_storage);  // (8 kRows + k - 1) rows x 128 columns
  const int radius = k / 2;
  const int col0 = blockIdx.x * kColumnTileWidth, row0 = blockIdx.y * kThreadsY * kRows;
  const int tile_rows = kThreadsY * kRows + k - 1;
  for (int a = threadIdx.y; a < tile_rows; a += kThreadsY) {
    const int row = row0 - radius + a;
    const bool row_inside = row >= 0 && row < height;
    const float* line = scratch + static_cast<std::size_t>(row_inside ? row : 0) * width;
    float values[kColumnWidth];
#pragma unroll
    for (int m = 0; m < kColumnWidth; ++m) {
      const int col = col0 + threadIdx.x + m * kThreadsX;
      values[m] = (row_inside && col < width) ? line[col] : 0.0f;
    }
#pragma unroll
    for (int m = 0; m < kColumnWidth; ++m) tile[a * kColumnTileWidth + threadIdx.x + m * kThreadsX] = values[m];
  }
  __syncthreads();
  const int first_row = threadIdx.y * kRows, first_col = threadIdx.x * kColumnWidth;
  float4 acc[kRows] = {};
  const float* strip = tile + first_row * kColumnTileWidth + first_col;
  int i = 0;
  for (; i + 8 <= k; i += 8) accumulate_column_chunk<kRows, 8>(strip + i * kColumnTileWidth, c_column_taps + i, acc);
  const float* rest = strip + i * kColumnTileWidth;
  switch (k - i) {  // the last K mod 8 taps
    case 1: accumulate_column_chunk<kRows, 1>(rest, c_column_taps + i, acc); break;
    case 2: accumulate_column_chunk<kRows, 2>(rest, c_column_taps + i, acc); break;
    case 3: accumulate_column_chunk<kRows, 3>(rest, c_column_taps + i, acc); break;
    case 4: accumulate_column_chunk<kRows, 4>(rest, c_column_taps + i, acc); break;
    case 5: accumulate_column_chunk<kRows, 5>(rest, c_column_taps + i, acc); break;
    case 6: accumulate_column_chunk<kRows, 6>(rest, c_column_taps + i, acc); break;
    case 7: accumulate_column_chunk<kRows, 7>(rest, c_column_taps + i, acc); break;
    default: break;
  }
  const int col = col0 + first_col;
  if (col >= width) return;
#pragma unroll
  for (int q = 0; q < kRows; ++q) {
    const int row = row0 + first_row + q;
    if (row >= height) break;
    float* target = out + static_cast<std::size_t>(row) * width + col;
    if (width % 4 == 0 && col + kColumnWidth <= width) {
      *reinterpret_cast<float4*>(target) = acc[q];
    } else {
      const float lanes[kColumnWidth] = {acc[q].x, acc[q].y, acc[q].z, acc[q].w};
#pragma unroll
      for (int p = 0; p < kColumnWidth; ++p) {
        if (col + p < width) target[p] = lanes[p];
      }
    }
  }
}

class SeparableBlocked final : public GpuConvolver {
 public:
  explicit SeparableBlocked(const GpuProblem& problem) : p_(problem) {}

  std::string unsupported() const override {
    if (!p_.filter->separable()) return p_.filter->separable_problem();
    if (p_.filter->size > kMaxDirectFilterSize) {
      return "the filter is larger than " + std::to_string(kMaxDirectFilterSize) + " x " +
             std::to_string(kMaxDirectFilterSize) + " (step 04 takes any size)";
    }
    return "";
  }

  void setup(cudaStream_t stream) override {
    const Filter& f = *p_.filter;
    row_.assign(f.row.rbegin(), f.row.rend());  // flipped
    column_.assign(f.column.rbegin(), f.column.rend());
    scratch_ = course::DeviceBuffer<float>(static_cast<std::size_t>(p_.height) * p_.width, "the row pass's output");
    // The column pass's tile for K = 63 is 126 x 128 floats, 63 KiB: over the default 48 KiB.
    CUDA_CHECK(cudaFuncSetAttribute(column_pass_blocked_kernel<8>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    static_cast<int>(column_shared_bytes(kMaxDirectFilterSize, 8))));
    CUDA_CHECK(cudaFuncSetAttribute(column_pass_blocked_kernel<4>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    static_cast<int>(column_shared_bytes(kMaxDirectFilterSize, 4))));
    int device = 0, sms = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    const long long tall_blocks = static_cast<long long>((p_.width + kColumnTileWidth - 1) / kColumnTileWidth) *
                                  ((p_.height + 8 * kThreadsY - 1) / (8 * kThreadsY));
    column_rows_ = tall_blocks >= 2ll * sms ? 8 : 4;
    id_ = detail::next_filter_id();
    upload(stream);
    CUDA_CHECK(cudaStreamSynchronize(stream));
  }

  void run(cudaStream_t stream) override {
    if (g_loaded_filter != id_) upload(stream);
    const int k = p_.filter->size;
    const dim3 block(kThreadsX, kThreadsY);
    const dim3 row_grid((p_.width + kRowTileWidth - 1) / kRowTileWidth, (p_.height + kThreadsY - 1) / kThreadsY);
    const std::size_t row_shared = static_cast<std::size_t>(kThreadsY) * row_stride(k) * sizeof(float);
    row_pass_blocked_kernel<<<row_grid, block, row_shared, stream>>>(p_.input->data(), scratch_.data(), p_.height,
                                                                     p_.width, k);
    CUDA_CHECK_LAUNCH("row_pass_blocked_kernel");
    const int tile_height = kThreadsY * column_rows_;
    const dim3 column_grid((p_.width + kColumnTileWidth - 1) / kColumnTileWidth, (p_.height + tile_height - 1) / tile_height);
    const std::size_t column_shared = column_shared_bytes(k, column_rows_);
    if (column_rows_ == 8) {
      column_pass_blocked_kernel<8><<<column_grid, block, column_shared, stream>>>(scratch_.data(), p_.output->data(),
                                                                                  p_.height, p_.width, k);
    } else {
      column_pass_blocked_kernel<4><<<column_grid, block, column_shared, stream>>>(scratch_.data(), p_.output->data(),
                                                                                  p_.height, p_.width, k);
    }
    CUDA_CHECK_LAUNCH("column_pass_blocked_kernel");
  }

  double bytes_per_pixel() const override { return 4 * sizeof(float); }  // two passes, each a read and a write

  std::string note() const override {
    return "2 register-blocked passes of " + std::to_string(p_.filter->size) + " taps (columns: 4 x " +
           std::to_string(column_rows_) + " outputs per thread), scratch image";
  }

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
  int column_rows_ = 8;
  int id_ = 0;
};

}  // namespace

std::unique_ptr<GpuConvolver> launch_separable_blocked(const GpuProblem& problem) {
  return std::make_unique<SeparableBlocked>(problem);
}

}  // namespace fft_convolve
