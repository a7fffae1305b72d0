// 21 separable_register: step 16's two passes with K compiled, so that each tap is an operand of
// the multiply-add itself and a pass is nothing but its loads, its FMAs and its stores.
//
// Teaches what limits a pass once its memory traffic is minimal: at K = 63 a pass does 63
// multiply-adds per pixel against 8 bytes of DRAM traffic, so on an H100 its FMAs alone, at the
// FMA ceiling, take most of the time the copy of those bytes takes; any other instruction per FMA
// (a tap load, a shared load, an index) pushes the pass past the copy's time. Steps 07 and 16 read each tap with a load
// (the index depends on K at run time), and walk the taps in chunks of 8 plus a rest. Here:
//  - K is a template argument (one instance per odd K up to 63, picked at launch) and both tap
//    loops are unrolled completely: every tap index is known when compiling, so the compiler
//    puts the tap into the FMA instruction as a constant-memory operand. No tap loads at all.
//  - the row pass (one warp per image row, 8 outputs per thread, __syncwarp only, as step 16):
//    the thread's 8 + K - 1 pixels come from the warp's shared strip as float4s, once, and each
//    feeds up to 8 multiply-adds from registers. The strip is swizzled (in every other 128-byte
//    line, neighbouring float4s swapped), so that these loads, 32 bytes apart from thread to
//    thread, no longer meet twice in a bank: step 07's row pass was bound by shared memory.
//  - the column pass (no shared memory, as step 16): each thread 4 columns x R rows, the K + R - 1
//    rows it needs read once each as float4 (from L1, which the block's warps share), each row
//    feeding 4 columns of up to R outputs, R = 8. R = 16 (fewer halo rows per output, K - 1 for
//    every 16, but half the threads) was timed beside it on the H100 and was slower at every K
//    but 15 and 19 at 4096 x 4096 and at every K at 1024 x 1024
//    (docs/data/h100-2026-11-27/candidates/call3b/r06_sweep4096.txt).
// Both passes read and write the image once each (16 bytes per pixel), as steps 07 and 16.
#include <array>
#include <cstddef>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "course/check.hpp"
#include "fft_convolve.hpp"

namespace fft_convolve {

namespace {

// Both factors flipped (convolution as correlation); read only at compile-time indices.
__constant__ float c_row_taps_r[kMaxDirectFilterSize];
__constant__ float c_column_taps_r[kMaxDirectFilterSize];
int g_loaded_filter = 0;

constexpr int kThreadsX = 32, kThreadsY = 8;  // 256 threads per block, both passes
constexpr int kOddSizes = (kMaxDirectFilterSize + 1) / 2;

// ---- Pass 1: rows. A warp: one image row x 256 outputs, 8 outputs per thread. ----
constexpr int kRowOutputs = 8;
constexpr int kRowTileWidth = kThreadsX * kRowOutputs;  // 256
// The float4s one thread reads from its strip: 8 + K - 1 pixels, rounded up.
__host__ __device__ constexpr int row_window_float4s(int k) { return (kRowOutputs + k - 1 + 3) / 4; }
// Whole groups of 8 floats, so that the swizzle below stays inside the strip.
__host__ __device__ constexpr int row_stride(int k) {
  return (kRowTileWidth - kRowOutputs + 4 * row_window_float4s(k) + 7) / 8 * 8;
}
// Where pixel b of a strip is kept: in every other 128-byte line, neighbouring float4s swapped. A thread
// reads float4s 32 bytes after its neighbour's; unswizzled, the 8 threads that share a shared-memory
// cycle would hit each 16-byte bank group twice (two cycles per load), swizzled once.
__host__ __device__ constexpr int swizzle(int b) { return b ^ ((b >> 3) & 4); }
constexpr int kRowLoadSteps = (row_stride(kMaxDirectFilterSize) + kThreadsX - 1) / kThreadsX;
constexpr std::size_t row_shared_bytes(int k) {
  return static_cast<std::size_t>(kThreadsY) * row_stride(k) * sizeof(float);
}

template <int K>
__global__ void __launch_bounds__(kThreadsX * kThreadsY)
    row_pass_register_kernel(const float* __restrict__ in, float* __restrict__ scratch, int height, int width) {
  constexpr int radius = K / 2, stride = row_stride(K), kWindow = 4 * row_window_float4s(K);
  extern __shared__ float4 row_storage[];
  float* strip = reinterpret_cast<float*>(row_storage) + threadIdx.y * stride;  // this warp's row, with its halo
  const int row = blockIdx.y * kThreadsY + threadIdx.y;
  const int col0 = blockIdx.x * kRowTileWidth;
  const bool row_inside = row < height;
  const float* line = in + static_cast<std::size_t>(row_inside ? row : 0) * width;
  float values[kRowLoadSteps];  // all loads in flight before any store
#pragma unroll
  for (int m = 0; m < kRowLoadSteps; ++m) {
    const int b = threadIdx.x + m * kThreadsX, col = col0 - radius + b;
    values[m] = (b < kRowTileWidth + K - 1 && row_inside && col >= 0 && col < width) ? line[col] : 0.0f;
  }
#pragma unroll
  for (int m = 0; m < kRowLoadSteps; ++m) {
    const int b = threadIdx.x + m * kThreadsX;
    if (b < stride) strip[swizzle(b)] = values[m];
  }
  __syncwarp();  // the strip is this warp's alone
  const int first = threadIdx.x * kRowOutputs;
  float v[kWindow];
#pragma unroll
  for (int e = 0; e < kWindow / 4; ++e) {
    const float4 four = *reinterpret_cast<const float4*>(strip + swizzle(first + 4 * e));
    v[4 * e] = four.x;
    v[4 * e + 1] = four.y;
    v[4 * e + 2] = four.z;
    v[4 * e + 3] = four.w;
  }
  // [docs:register_row_taps]
  float acc[kRowOutputs] = {};
#pragma unroll
  for (int j = 0; j < K; ++j) {  // c_row_taps_r[j]: a constant operand of the FMA
#pragma unroll
    for (int p = 0; p < kRowOutputs; ++p) acc[p] = fmaf(c_row_taps_r[j], v[p + j], acc[p]);
  }
  // [docs:end register_row_taps]
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

// ---- Pass 2: columns. A block: 8 R rows x 128 columns, each thread R rows x 4 columns. ----
constexpr int kColumnWidth = 4;
constexpr int kColumnTileWidth = kThreadsX * kColumnWidth;  // 128

// Four pixels of one scratch row at `col` (0 outside the image): one 16-byte load when the row
// allows it, else one at a time.
__device__ __forceinline__ float4 load_four(const float* __restrict__ scratch, int row, int col, int height,
                                            int width) {
  if (row < 0 || row >= height) return make_float4(0.0f, 0.0f, 0.0f, 0.0f);
  const float* p = scratch + static_cast<std::size_t>(row) * width + col;
  if (width % 4 == 0 && col + kColumnWidth <= width) return __ldg(reinterpret_cast<const float4*>(p));
  return make_float4(col < width ? __ldg(p) : 0.0f, col + 1 < width ? __ldg(p + 1) : 0.0f,
                     col + 2 < width ? __ldg(p + 2) : 0.0f, col + 3 < width ? __ldg(p + 3) : 0.0f);
}

template <int K, int R>
__global__ void __launch_bounds__(kThreadsX * kThreadsY)
    column_pass_register_kernel(const float* __restrict__ scratch, float* __restrict__ out, int height, int width) {
  constexpr int radius = K / 2;
  const int col = blockIdx.x * kColumnTileWidth + threadIdx.x * kColumnWidth;
  const int first_row = (blockIdx.y * kThreadsY + threadIdx.y) * R;
  if (col >= width || first_row >= height) return;  // no barrier in this pass: a thread may leave
  // [docs:register_column_sums]
  float4 acc[R] = {};
#pragma unroll
  for (int m = 0; m < K + R - 1; ++m) {  // scratch row first_row - radius + m, read once
    const float4 v = load_four(scratch, first_row - radius + m, col, height, width);
#pragma unroll
    for (int q = 0; q < R; ++q) {
      const int j = m - q;  // the tap: known when compiling, so no test is left in the code
      if (j >= 0 && j < K) {
        const float w = c_column_taps_r[j];
        acc[q].x = fmaf(w, v.x, acc[q].x);
        acc[q].y = fmaf(w, v.y, acc[q].y);
        acc[q].z = fmaf(w, v.z, acc[q].z);
        acc[q].w = fmaf(w, v.w, acc[q].w);
      }
    }
  }
  // [docs:end register_column_sums]
#pragma unroll
  for (int q = 0; q < R; ++q) {
    const int row = first_row + q;
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

using PassFunction = void (*)(const float*, float*, int, int);

// The instances for each odd K: table[K / 2].
template <std::size_t... I>
constexpr std::array<PassFunction, sizeof...(I)> row_instances(std::index_sequence<I...>) {
  return {&row_pass_register_kernel<2 * static_cast<int>(I) + 1>...};
}
template <int R, std::size_t... I>
constexpr std::array<PassFunction, sizeof...(I)> column_instances(std::index_sequence<I...>) {
  return {&column_pass_register_kernel<2 * static_cast<int>(I) + 1, R>...};
}
constexpr std::array<PassFunction, kOddSizes> kRowInstances = row_instances(std::make_index_sequence<kOddSizes>{});

template <int R>
class SeparableRegister final : public GpuConvolver {
 public:
  explicit SeparableRegister(const GpuProblem& problem) : p_(problem) {}

  std::string unsupported() const override {
    if (!p_.filter->separable()) return p_.filter->separable_problem();
    if (p_.filter->size > kMaxDirectFilterSize) {
      return "the filter is larger than " + std::to_string(kMaxDirectFilterSize) + " x " +
             std::to_string(kMaxDirectFilterSize) +
             " (one compiled instance per odd K up to there; step 04 takes any size)";
    }
    return "";
  }

  void setup(cudaStream_t stream) override {
    const Filter& f = *p_.filter;
    row_.assign(f.row.rbegin(), f.row.rend());  // flipped
    column_.assign(f.column.rbegin(), f.column.rend());
    scratch_ = course::DeviceBuffer<float>(static_cast<std::size_t>(p_.height) * p_.width, "the row pass's output");
    row_kernel_ = kRowInstances[static_cast<std::size_t>(f.size / 2)];
    column_kernel_ = kColumnInstances[static_cast<std::size_t>(f.size / 2)];
    id_ = detail::next_filter_id();
    upload(stream);
    CUDA_CHECK(cudaStreamSynchronize(stream));
  }

  void run(cudaStream_t stream) override {
    if (g_loaded_filter != id_) upload(stream);  // another convolver's filter is in constant memory now
    const int k = p_.filter->size;
    const dim3 block(kThreadsX, kThreadsY);
    const dim3 row_grid((p_.width + kRowTileWidth - 1) / kRowTileWidth, (p_.height + kThreadsY - 1) / kThreadsY);
    row_kernel_<<<row_grid, block, row_shared_bytes(k), stream>>>(p_.input->data(), scratch_.data(), p_.height,
                                                                  p_.width);
    CUDA_CHECK_LAUNCH("row_pass_register_kernel");
    const int tile_height = kThreadsY * R;
    const dim3 column_grid((p_.width + kColumnTileWidth - 1) / kColumnTileWidth,
                           (p_.height + tile_height - 1) / tile_height);
    column_kernel_<<<column_grid, block, 0, stream>>>(scratch_.data(), p_.output->data(), p_.height, p_.width);
    CUDA_CHECK_LAUNCH("column_pass_register_kernel");
  }

  double bytes_per_pixel() const override { return 4 * sizeof(float); }  // two passes, each a read and a write

  std::string note() const override {
    return "K = " + std::to_string(p_.filter->size) + " compiled, taps as FMA operands; rows 8, columns 4 x " +
           std::to_string(R) + " outputs per thread, scratch image";
  }

 private:
  static constexpr std::array<PassFunction, kOddSizes> kColumnInstances =
      column_instances<R>(std::make_index_sequence<kOddSizes>{});

  void upload(cudaStream_t stream) {
    CUDA_CHECK(cudaMemcpyToSymbolAsync(c_row_taps_r, row_.data(), row_.size() * sizeof(float), 0,
                                       cudaMemcpyHostToDevice, stream));
    CUDA_CHECK(cudaMemcpyToSymbolAsync(c_column_taps_r, column_.data(), column_.size() * sizeof(float), 0,
                                       cudaMemcpyHostToDevice, stream));
    g_loaded_filter = id_;
  }

  GpuProblem p_;
  std::vector<float> row_, column_;
  course::DeviceBuffer<float> scratch_;
  PassFunction row_kernel_ = nullptr, column_kernel_ = nullptr;
  int id_ = 0;
};

}  // namespace

// R = 8 rows per thread in the column pass.
std::unique_ptr<GpuConvolver> launch_separable_register(const GpuProblem& problem) {
  return std::make_unique<SeparableRegister<8>>(problem);
}

}  // namespace fft_convolve
