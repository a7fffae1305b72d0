// 22 separable_lean: step 21's two passes, K compiled and every tap an operand of its FMA, with
// the instructions that are not multiply-adds taken out of both passes, for the large filters
// (K = 27 to 63) where a pass is bound by the FMA pipe's issue slots rather than by memory.
//
// Teaches that at large K a kernel's speed is its share of FFMAs among all the instructions it
// issues: a warp scheduler issues one instruction per cycle, and every address, bounds test,
// branch or load takes the slot of a multiply-add. Counted in step 21's SASS at K = 63 (the
// cubin's instructions, 16 bytes each, by opcode): the column pass is 4,513 instructions for its
// 2,016 FFMAs (72 KB of code: each of its 70 row loads tests the row against the image, the
// width against float4s, and carries a four-load fallback beside its 16-byte load), and the row
// pass 863 for its 504 (about 300 instructions of loads, bounds and swizzle per warp's 256
// outputs, whatever K). What changed:
//  - the scratch image has zero rows above and below the image (K - 1 + R of them, written once
//    in setup) and a pitch rounded up to 16 floats: the column pass reads its K + R - 1 rows with
//    no test at all, one 16-byte load and one pointer step per row, and the row pass stores its
//    outputs whole (the columns past the width hold sums that no output reads).
//  - the row pass loads its strip as float4s (one test for the whole strip but at a row's ends)
//    and each thread makes N = 8 outputs from one window of N + K - 1 pixels. In place of step
//    21's XOR swizzle, the strip keeps an empty float4 after every N / 4, which spreads the
//    threads' loads over the banks as well and leaves each load's address a base plus a constant.
//  - the column pass: each thread 4 columns x R = 8 rows, as step 21 (72 registers at K = 63: 3
//    blocks of 8 warps per SM).
// The H100 chose these shapes among five (rows N = 8 or 16; columns R = 8 or 16, or held to 64
// registers for 4 blocks per SM): N = 8, R = 8 was the fastest at every K from 15 to 63 at
// 4096 x 4096 (docs/data/h100-2026-11-27/candidates-b/; the page, section 26, has the run).
// Both passes read and write the image once each (16 bytes per pixel), as steps 07, 16 and 21.
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
__constant__ float c_row_taps_l[kMaxDirectFilterSize];
__constant__ float c_column_taps_l[kMaxDirectFilterSize];
int g_loaded_filter = 0;

constexpr int kThreadsX = 32, kThreadsY = 8;  // 256 threads per block, both passes
constexpr int kOddSizes = (kMaxDirectFilterSize + 1) / 2;

// ---- The scratch image: the row pass's output, with room that spares the column pass its tests ----
// Image row r is scratch row r + K / 2; the K / 2 rows above, and K / 2 + R below, stay zero.
constexpr int scratch_pitch(int width) { return (width + 15) / 16 * 16; }  // N <= 16 outputs stored whole
constexpr int scratch_rows(int height, int k, int column_rows) { return height + k - 1 + column_rows; }

// ---- Pass 1: rows. A warp: one image row x 32 N outputs, N per thread. ----
// The strip starts `halo` pixels left of the warp's first output: the radius rounded up to a
// float4, so that the strip's loads are whole float4s.
__host__ __device__ constexpr int row_halo(int k) { return (k / 2 + 3) / 4 * 4; }
__host__ __device__ constexpr int row_strip_fours(int k, int n) { return (kThreadsX * n + 2 * row_halo(k)) / 4; }
// Shared memory keeps one empty float4 after every N / 4 (one thread's outputs): float4 u of the
// strip sits at u + u / (N / 4). A thread reads float4s N / 4 after its neighbour's, so the 8
// threads of one shared-memory cycle would share 32 / N of the 8 bank groups (N / 4 cycles per
// load); with the gaps they are N / 4 + 1 apart, an odd number, and meet each group once. Unlike
// an XOR swizzle the place of float4 e of a thread's window, lane (N / 4 + 1) + e + e / (N / 4),
// is a base plus a constant: no address arithmetic per load.
__host__ __device__ constexpr int row_strip_slots(int k, int n) {
  return row_strip_fours(k, n) + row_strip_fours(k, n) / (n / 4) + 1;
}
constexpr std::size_t row_shared_bytes(int k, int n) {
  return static_cast<std::size_t>(kThreadsY) * row_strip_slots(k, n) * sizeof(float4);
}

// Four pixels of an image row at `col` (0 outside the row): one 16-byte load where the four are
// inside a row of whole float4s, else one at a time.
__device__ __forceinline__ float4 load_row_four_checked(const float* __restrict__ line, int col, int width,
                                                        bool aligned_rows) {
  if (aligned_rows && col >= 0 && col + 4 <= width) return *reinterpret_cast<const float4*>(line + col);
  float f[4];
#pragma unroll
  for (int i = 0; i < 4; ++i) f[i] = (col + i >= 0 && col + i < width) ? line[col + i] : 0.0f;
  return make_float4(f[0], f[1], f[2], f[3]);
}

template <int K, int N>
__global__ void __launch_bounds__(kThreadsX * kThreadsY)
    row_pass_lean_kernel(const float* __restrict__ in, float* __restrict__ scratch, int height, int width, int pitch) {
  constexpr int radius = K / 2, halo = row_halo(K), shift = halo - radius;  // the first tap's place in the window
  constexpr int kFours = row_strip_fours(K, N), kLoadSteps = (kFours + kThreadsX - 1) / kThreadsX;
  constexpr int kGap = N / 4;                                   // float4s between two gaps
  constexpr int kWindowFours = (shift + N + K - 1 + 3) / 4;     // N + K - 1 pixels, whole float4s
  extern __shared__ float4 row_storage[];
  float4* strip = row_storage + threadIdx.y * row_strip_slots(K, N);  // this warp's row
  const int row = blockIdx.y * kThreadsY + threadIdx.y;
  if (row >= height) return;  // the whole warp: this pass has no block barrier, only __syncwarp
  const int lane = threadIdx.x;
  const int col0 = blockIdx.x * kThreadsX * N, start = col0 - halo;  // the strip's first pixel
  const float* line = in + static_cast<std::size_t>(row) * width;
  float4 values[kLoadSteps];  // all loads in flight before any store
  // The whole strip inside a row of whole float4s (all but a row's first and last strips): one
  // test; else one per float4.
  const bool aligned_rows = width % 4 == 0;
  if (aligned_rows && start >= 0 && start + 4 * kFours <= width) {
    const float4* fours = reinterpret_cast<const float4*>(line + start);
#pragma unroll
    for (int m = 0; m < kLoadSteps; ++m) {
      const int u = lane + m * kThreadsX;
      values[m] = u < kFours ? fours[u] : make_float4(0, 0, 0, 0);
    }
  } else {
#pragma unroll
    for (int m = 0; m < kLoadSteps; ++m) {
      const int u = lane + m * kThreadsX;
      values[m] = u < kFours ? load_row_four_checked(line, start + 4 * u, width, aligned_rows) : make_float4(0, 0, 0, 0);
    }
  }
#pragma unroll
  for (int m = 0; m < kLoadSteps; ++m) {
    const int u = lane + m * kThreadsX;
    if (u < kFours) strip[u + u / kGap] = values[m];
  }
  __syncwarp();  // the strip is this warp's alone
  const float4* window = strip + lane * (kGap + 1);  // the thread's first float4, pixel lane N of the strip
  float v[4 * kWindowFours];
#pragma unroll
  for (int e = 0; e < kWindowFours; ++e) {
    const float4 four = window[e + e / kGap];
    v[4 * e] = four.x;
    v[4 * e + 1] = four.y;
    v[4 * e + 2] = four.z;
    v[4 * e + 3] = four.w;
  }
  // [docs:lean_row_taps]
  float acc[N] = {};
#pragma unroll
  for (int j = 0; j < K; ++j) {  // c_row_taps_l[j]: a constant operand of the FMA
#pragma unroll
    for (int p = 0; p < N; ++p) acc[p] = fmaf(c_row_taps_l[j], v[shift + p + j], acc[p]);
  }
  // [docs:end lean_row_taps]
  const int col = col0 + lane * N;
  if (col >= width) return;
  // col + N <= pitch (multiples of N and of 16, col < width <= pitch): the N outputs are stored whole.
  float4* target = reinterpret_cast<float4*>(scratch + static_cast<std::size_t>(row + radius) * pitch + col);
#pragma unroll
  for (int e = 0; e < N / 4; ++e) target[e] = make_float4(acc[4 * e], acc[4 * e + 1], acc[4 * e + 2], acc[4 * e + 3]);
}

// ---- Pass 2: columns. A block: 8 R rows x 128 columns, each thread R rows x 4 columns. ----
constexpr int kColumnWidth = 4;
constexpr int kColumnTileWidth = kThreadsX * kColumnWidth;  // 128

template <int K, int R>
__global__ void __launch_bounds__(kThreadsX * kThreadsY)
    column_pass_lean_kernel(const float* __restrict__ scratch, float* __restrict__ out, int height, int width,
                            int pitch) {
  const int col = blockIdx.x * kColumnTileWidth + threadIdx.x * kColumnWidth;
  const int first_row = (blockIdx.y * kThreadsY + threadIdx.y) * R;
  if (col >= width || first_row >= height) return;  // no barrier in this pass: a thread may leave
  // [docs:lean_column_sums]
  // Scratch row first_row + m is image row first_row - K / 2 + m, or a zero row: no test.
  const float* source = scratch + static_cast<std::size_t>(first_row) * pitch + col;
  float4 acc[R] = {};
#pragma unroll
  for (int m = 0; m < K + R - 1; ++m) {
    const float4 v = __ldg(reinterpret_cast<const float4*>(source));
    source += pitch;
#pragma unroll
    for (int q = 0; q < R; ++q) {
      const int j = m - q;  // the tap: known when compiling, so no test is left in the code
      if (j >= 0 && j < K) {
        const float w = c_column_taps_l[j];
        acc[q].x = fmaf(w, v.x, acc[q].x);
        acc[q].y = fmaf(w, v.y, acc[q].y);
        acc[q].z = fmaf(w, v.z, acc[q].z);
        acc[q].w = fmaf(w, v.w, acc[q].w);
      }
    }
  }
  // [docs:end lean_column_sums]
  const bool fours = width % 4 == 0;  // then col + 4 <= width, and the output's rows start on 16 bytes
#pragma unroll
  for (int q = 0; q < R; ++q) {
    const int row = first_row + q;
    if (row >= height) break;
    float* target = out + static_cast<std::size_t>(row) * width + col;
    if (fours) {
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

using PassFunction = void (*)(const float*, float*, int, int, int);

// The instances for each odd K: table[K / 2].
template <int N, std::size_t... I>
constexpr std::array<PassFunction, sizeof...(I)> row_instances(std::index_sequence<I...>) {
  return {&row_pass_lean_kernel<2 * static_cast<int>(I) + 1, N>...};
}
template <int R, std::size_t... I>
constexpr std::array<PassFunction, sizeof...(I)> column_instances(std::index_sequence<I...>) {
  return {&column_pass_lean_kernel<2 * static_cast<int>(I) + 1, R>...};
}

// The shape the H100 chose (the file's header): outputs per thread in the row pass, rows per
// thread in the column pass.
constexpr int kRowOutputs = 8, kColumnRows = 8;

class SeparableLean final : public GpuConvolver {
 public:
  explicit SeparableLean(const GpuProblem& problem) : p_(problem) {}

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
    pitch_ = scratch_pitch(p_.width);
    const std::size_t scratch_size =
        static_cast<std::size_t>(scratch_rows(p_.height, f.size, kColumnRows)) * static_cast<std::size_t>(pitch_);
    scratch_ = course::DeviceBuffer<float>(scratch_size, "the row pass's output, with zero rows around it");
    // The zero rows (and the columns past the width) are never written again.
    CUDA_CHECK(cudaMemsetAsync(scratch_.data(), 0, scratch_size * sizeof(float), stream));
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
    const int row_tile = kThreadsX * kRowOutputs;
    const dim3 row_grid((p_.width + row_tile - 1) / row_tile, (p_.height + kThreadsY - 1) / kThreadsY);
    row_kernel_<<<row_grid, block, row_shared_bytes(k, kRowOutputs), stream>>>(p_.input->data(), scratch_.data(),
                                                                               p_.height, p_.width, pitch_);
    CUDA_CHECK_LAUNCH("row_pass_lean_kernel");
    const int tile_height = kThreadsY * kColumnRows;
    const dim3 column_grid((p_.width + kColumnTileWidth - 1) / kColumnTileWidth,
                           (p_.height + tile_height - 1) / tile_height);
    column_kernel_<<<column_grid, block, 0, stream>>>(scratch_.data(), p_.output->data(), p_.height, p_.width, pitch_);
    CUDA_CHECK_LAUNCH("column_pass_lean_kernel");
  }

  double bytes_per_pixel() const override { return 4 * sizeof(float); }  // two passes, each a read and a write

  std::string note() const override {
    return "K = " + std::to_string(p_.filter->size) + " compiled, taps as FMA operands; rows " +
           std::to_string(kRowOutputs) + ", columns 4 x " + std::to_string(kColumnRows) +
           " outputs per thread, zero-padded scratch image";
  }

 private:
  static constexpr std::array<PassFunction, kOddSizes> kRowInstances =
      row_instances<kRowOutputs>(std::make_index_sequence<kOddSizes>{});
  static constexpr std::array<PassFunction, kOddSizes> kColumnInstances =
      column_instances<kColumnRows>(std::make_index_sequence<kOddSizes>{});

  void upload(cudaStream_t stream) {
    CUDA_CHECK(cudaMemcpyToSymbolAsync(c_row_taps_l, row_.data(), row_.size() * sizeof(float), 0,
                                       cudaMemcpyHostToDevice, stream));
    CUDA_CHECK(cudaMemcpyToSymbolAsync(c_column_taps_l, column_.data(), column_.size() * sizeof(float), 0,
                                       cudaMemcpyHostToDevice, stream));
    g_loaded_filter = id_;
  }

  GpuProblem p_;
  std::vector<float> row_, column_;
  course::DeviceBuffer<float> scratch_;
  int pitch_ = 0;
  PassFunction row_kernel_ = nullptr, column_kernel_ = nullptr;
  int id_ = 0;
};

}  // namespace

std::unique_ptr<GpuConvolver> launch_separable_lean(const GpuProblem& problem) {
  return std::make_unique<SeparableLean>(problem);
}

}  // namespace fft_convolve
