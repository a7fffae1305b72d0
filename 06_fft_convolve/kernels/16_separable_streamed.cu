// 16 separable_streamed: step 07's two passes without block-wide barriers, so that the loads of
// some warps overlap the sums of others.
//
// Teaches why a kernel can sit well below both its ceilings: step 07 fell from 92% of the copy at
// K = 3 to 61% at K = 63 (1024 x 1024, the first GPU run, an H200), although at K = 63 its FMAs
// alone need about a third of the copy's time. Each of its blocks loads a tile, waits for all its
// threads at __syncthreads, sums, and only then stores: while a block sums it has no load in
// flight, and a block's warps all wait for the slowest load. With few blocks per SM (the column
// tile at K = 63 is 63 KiB), the time is roughly load + sum, not the larger of the two. Here:
//  - the row pass is step 07's, with __syncwarp instead of __syncthreads: each warp loads and
//    reads only its own image row's strip, so a warp waits for nothing but its own loads and the
//    SM's warps drift apart, some loading while others sum;
//  - the column pass has no shared memory at all: each thread (4 columns x 8 rows, as in step 07)
//    reads the K + 7 rows it needs per chunk of 8 taps straight from global memory as float4.
//    The block's 8 warps read overlapping rows, so most of those loads hit the SM's L1 (which is
//    now the whole 256 KiB, no shared memory carved out); DRAM still sees each pixel about once.
//    No tile, no barrier: occupancy is set by registers only.
// Both passes still read and write the image once each (16 bytes per pixel).
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "course/check.hpp"
#include "fft_convolve.hpp"
#include "kernels/register_chunk.cuh"

namespace fft_convolve {

namespace {

// Both factors flipped (convolution as correlation).
__constant__ float c_row_taps_s[kMaxDirectFilterSize];
__constant__ float c_column_taps_s[kMaxDirectFilterSize];
int g_loaded_filter = 0;

constexpr int kThreadsX = 32, kThreadsY = 8;  // 256 threads per block, both passes

// ---- Pass 1: rows. A warp: one image row x 256 outputs, 8 outputs per thread. ----
constexpr int kRowOutputs = 8;
constexpr int kRowTileWidth = kThreadsX * kRowOutputs;  // 256
__host__ __device__ constexpr int row_stride(int k) { return (kRowTileWidth + k + 2 + 3) / 4 * 4; }
constexpr int kRowLoadSteps = (row_stride(kMaxDirectFilterSize) + kThreadsX - 1) / kThreadsX;

__global__ void __launch_bounds__(kThreadsX * kThreadsY)
    row_pass_streamed_kernel(const float* __restrict__ in, float* __restrict__ scratch, int height, int width, int k) {
  extern __shared__ float4 row_storage[];
  float* strips = reinterpret_cast<float*>(row_storage);  // kThreadsY rows of row_stride(k)
  const int radius = k / 2, stride = row_stride(k);
  const int row = blockIdx.y * kThreadsY + threadIdx.y;
  const int col0 = blockIdx.x * kRowTileWidth;
  float* strip = strips + threadIdx.y * stride;  // this warp's image row, with its halo
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
  // [docs:streamed_syncwarp]
  __syncwarp();  // the strip is this warp's alone (threadIdx.y is the warp): no other warp to wait for
  // [docs:end streamed_syncwarp]
  const int first = threadIdx.x * kRowOutputs;
  float acc[kRowOutputs] = {};
  detail::accumulate_row<kRowOutputs>(strip + first, c_row_taps_s, k, acc);
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

// ---- Pass 2: columns. A block: 64 rows x 128 columns, each thread 8 rows x 4 columns. ----
constexpr int kColumnWidth = 4;
constexpr int kColumnRows = 8;
constexpr int kColumnTileWidth = kThreadsX * kColumnWidth;  // 128
constexpr int kColumnTileHeight = kThreadsY * kColumnRows;  // 64

// Pixels col ... col + 3 of row `row`, 0 outside the image: one 16-byte load when the row is
// 16-byte aligned (`vec`) and the four are inside, else one at a time.
__device__ __forceinline__ float4 load_four(const float* __restrict__ image, int row, int col, int height, int width,
                                            bool vec) {
  if (row < 0 || row >= height) return make_float4(0.0f, 0.0f, 0.0f, 0.0f);
  const float* line = image + static_cast<std::size_t>(row) * width;
  if (vec) return __ldg(reinterpret_cast<const float4*>(line + col));  // col < width: all 4 inside
  float v[4];
#pragma unroll
  for (int p = 0; p < 4; ++p) v[p] = col + p < width ? __ldg(line + col + p) : 0.0f;
  return make_float4(v[0], v[1], v[2], v[3]);
}

// acc[q] += sum over j < kTaps of taps[j] * pixel row (first_row + q + j), 4 columns at once:
// the kRows + kTaps - 1 rows come in as float4 one by one (from L1, mostly), each used by every
// output q it reaches.
// [docs:streamed_column_chunk]
template <int kTaps>
__device__ __forceinline__ void accumulate_column_chunk_streamed(const float* __restrict__ scratch, int first_row,
                                                                 int col, int height, int width, bool vec,
                                                                 const float* taps, float4 (&acc)[kColumnRows]) {
  float w[kTaps];
#pragma unroll
  for (int j = 0; j < kTaps; ++j) w[j] = taps[j];
#pragma unroll
  for (int m = 0; m < kColumnRows + kTaps - 1; ++m) {
    const float4 v = load_four(scratch, first_row + m, col, height, width, vec);
#pragma unroll
    for (int q = 0; q < kColumnRows; ++q) {
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
// [docs:end streamed_column_chunk]

__global__ void __launch_bounds__(kThreadsX * kThreadsY, 3)
    column_pass_streamed_kernel(const float* __restrict__ scratch, float* __restrict__ out, int height, int width,
                                int k, bool vec) {
  const int radius = k / 2;
  const int col = blockIdx.x * kColumnTileWidth + threadIdx.x * kColumnWidth;
  const int first_row = blockIdx.y * kColumnTileHeight + threadIdx.y * kColumnRows;
  if (col >= width) return;  // no barrier below: a thread with nothing to do can leave
  float4 acc[kColumnRows] = {};
  int i = 0;
  for (; i + 8 <= k; i += 8) {
    accumulate_column_chunk_streamed<8>(scratch, first_row - radius + i, col, height, width, vec, c_column_taps_s + i, acc);
  }
  const int rest_row = first_row - radius + i;
  switch (k - i) {  // the last K mod 8 taps
    case 1: accumulate_column_chunk_streamed<1>(scratch, rest_row, col, height, width, vec, c_column_taps_s + i, acc); break;
    case 2: accumulate_column_chunk_streamed<2>(scratch, rest_row, col, height, width, vec, c_column_taps_s + i, acc); break;
    case 3: accumulate_column_chunk_streamed<3>(scratch, rest_row, col, height, width, vec, c_column_taps_s + i, acc); break;
    case 4: accumulate_column_chunk_streamed<4>(scratch, rest_row, col, height, width, vec, c_column_taps_s + i, acc); break;
    case 5: accumulate_column_chunk_streamed<5>(scratch, rest_row, col, height, width, vec, c_column_taps_s + i, acc); break;
    case 6: accumulate_column_chunk_streamed<6>(scratch, rest_row, col, height, width, vec, c_column_taps_s + i, acc); break;
    case 7: accumulate_column_chunk_streamed<7>(scratch, rest_row, col, height, width, vec, c_column_taps_s + i, acc); break;
    default: break;
  }
#pragma unroll
  for (int q = 0; q < kColumnRows; ++q) {
    const int row = first_row + q;
    if (row >= height) break;
    float* target = out + static_cast<std::size_t>(row) * width + col;
    if (vec) {
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

class SeparableStreamed final : public GpuConvolver {
 public:
  explicit SeparableStreamed(const GpuProblem& problem) : p_(problem) {}

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
    row_pass_streamed_kernel<<<row_grid, block, row_shared, stream>>>(p_.input->data(), scratch_.data(), p_.height,
                                                                      p_.width, k);
    CUDA_CHECK_LAUNCH("row_pass_streamed_kernel");
    // 16-byte loads and stores need every row 16-byte aligned: the width a multiple of 4 and the
    // buffers aligned (cudaMalloc's are).
    const bool vec = p_.width % 4 == 0 && reinterpret_cast<std::uintptr_t>(scratch_.data()) % 16 == 0 &&
                     reinterpret_cast<std::uintptr_t>(p_.output->data()) % 16 == 0;
    const dim3 column_grid((p_.width + kColumnTileWidth - 1) / kColumnTileWidth,
                           (p_.height + kColumnTileHeight - 1) / kColumnTileHeight);
    column_pass_streamed_kernel<<<column_grid, block, 0, stream>>>(scratch_.data(), p_.output->data(), p_.height,
                                                                   p_.width, k, vec);
    CUDA_CHECK_LAUNCH("column_pass_streamed_kernel");
  }

  double bytes_per_pixel() const override { return 4 * sizeof(float); }  // two passes, each a read and a write

  std::string note() const override {
    return "2 passes of " + std::to_string(p_.filter->size) +
           " taps, no block barrier (rows: __syncwarp; columns: 4 x 8 outputs per thread straight from L1), scratch image";
  }

 private:
  void upload(cudaStream_t stream) {
    CUDA_CHECK(cudaMemcpyToSymbolAsync(c_row_taps_s, row_.data(), row_.size() * sizeof(float), 0,
                                       cudaMemcpyHostToDevice, stream));
    CUDA_CHECK(cudaMemcpyToSymbolAsync(c_column_taps_s, column_.data(), column_.size() * sizeof(float), 0,
                                       cudaMemcpyHostToDevice, stream));
    g_loaded_filter = id_;
  }

  GpuProblem p_;
  std::vector<float> row_, column_;
  course::DeviceBuffer<float> scratch_;
  int id_ = 0;
};

}  // namespace

std::unique_ptr<GpuConvolver> launch_separable_streamed(const GpuProblem& problem) {
  return std::make_unique<SeparableStreamed>(problem);
}

}  // namespace fft_convolve
