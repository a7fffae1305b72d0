// 15 direct_blocked_2d: step 06 blocked in two directions, for the FMA ceiling at large K.
//
// Teaches what bound step 06 at large K (40 to 48% of the FP32 FMA ceiling from K = 15 to 63 on
// the first GPU run, an H200) and how a second blocking direction removes it:
//  - step 06's inner chunk does 64 FMAs per thread from 4 float4 shared loads (16 pixels). An SM
//    does 128 FMAs per clock but serves 128 bytes of shared memory per clock (one "wavefront"):
//    a warp's 64 FMA instructions take 16 clocks, its 4 float4 loads (4 x 512 bytes) at least 16
//    wavefronts, and 32 because threads 8 floats apart hit the same banks two ways. So shared
//    memory, not the FMA pipes, set the pace: about half the ceiling, as measured.
//  - blocking along the column too: a thread now computes 8 columns x 4 consecutive rows. Tile
//    row s holds pixels that output row q needs with filter row i = s - q, for each of the 4 rows
//    at once: the 16 pixels loaded for a chunk of 8 taps now feed 4 x 64 = 256 FMAs, not 64.
//    Shared traffic per FMA falls four times; the FMA pipes bind (the taps stay constant-memory
//    broadcasts, 8 per 64 FMAs as before).
//  - the tile: 256 columns x 16 rows of outputs per block of 32 x 4 threads, with its K - 1 rows
//    and columns of halo: 99 KiB of shared memory at K = 63 (two blocks per SM). At 1024 x 1024
//    that is 256 blocks, about two per SM of an H100: one wave, no SM idle.
// The loop over tile rows s runs K + 3 times; each row's taps chunks are step 06's (8 at a time,
// then the K mod 8 left, a switch over 7 compiled sizes): exactly K^2 FMAs per output for any K.
#include <memory>
#include <string>
#include <vector>

#include "course/check.hpp"
#include "fft_convolve.hpp"

namespace fft_convolve {

namespace {

constexpr int kOutputsPerThread = 8;                        // P: neighbouring outputs of one row
constexpr int kRowsPerThread = 4;                           // R: consecutive output rows of one thread
constexpr int kThreadsX = 32, kThreadsY = 4;                // 128 threads per block
constexpr int kTileWidth = kThreadsX * kOutputsPerThread;   // 256 outputs per tile row
constexpr int kTileHeight = kThreadsY * kRowsPerThread;     // 16 output rows per tile
// A tile row holds the 256 + K - 1 pixels the outputs need, plus the few a thread's last 16-byte
// load reads past them, rounded to 4 floats so that every row starts 16-byte aligned.
__host__ __device__ constexpr int tile_stride(int k) { return (kTileWidth + k + 2 + 3) / 4 * 4; }
constexpr int kMaxLoadSteps = (tile_stride(kMaxDirectFilterSize) + kThreadsX - 1) / kThreadsX;  // per tile row
constexpr std::size_t shared_bytes(int k) {
  return static_cast<std::size_t>(kTileHeight + k - 1) * tile_stride(k) * sizeof(float);
}

// The flipped filter g(i, j) = f(K-1-i, K-1-j), row-major with K columns.
__constant__ float c_taps_2d[kMaxDirectFilterSize * kMaxDirectFilterSize];
int g_loaded_filter = 0;  // which convolver's filter c_taps_2d holds (detail::next_filter_id)

// kTaps taps (columns j0 ... j0 + kTaps - 1 of the filter) of tile row s, for all 4 output rows
// of the thread: output row q takes filter row i = s - q, if there is one. The pixels come in
// once, as float4, and serve all 4 rows.
// [docs:blocked_2d_chunk]
template <int kTaps>
__device__ __forceinline__ void accumulate_chunk_2d(const float* __restrict__ line, const float* taps, int k, int s,
                                                    float (&acc)[kRowsPerThread][kOutputsPerThread]) {
  constexpr int kValues = (kOutputsPerThread + kTaps - 1 + 3) / 4 * 4;  // the pixels needed, whole float4s
  float v[kValues];
#pragma unroll
  for (int e = 0; e < kValues / 4; ++e) {
    const float4 four = reinterpret_cast<const float4*>(line)[e];
    v[4 * e] = four.x;
    v[4 * e + 1] = four.y;
    v[4 * e + 2] = four.z;
    v[4 * e + 3] = four.w;
  }
#pragma unroll
  for (int q = 0; q < kRowsPerThread; ++q) {
    const int i = s - q;
    if (i < 0 || i >= k) continue;  // the first and last 3 tile rows serve fewer output rows
    const float* row_taps = taps + i * k;
#pragma unroll
    for (int j = 0; j < kTaps; ++j) {
      const float w = row_taps[j];
#pragma unroll
      for (int p = 0; p < kOutputsPerThread; ++p) acc[q][p] = fmaf(w, v[p + j], acc[q][p]);
    }
  }
}
// [docs:end blocked_2d_chunk]

__global__ void __launch_bounds__(kThreadsX * kThreadsY)
    direct_blocked_2d_kernel(const float* __restrict__ in, float* __restrict__ out, int height, int width, int k) {
  const int r = k / 2;
  const int stride = tile_stride(k);
  const int tile_rows = kTileHeight + k - 1;
  extern __shared__ float4 tile_storage[];  // float4: the tile is 16-byte aligned
  float* tile = reinterpret_cast<float*>(tile_storage);
  const int col0 = blockIdx.x * kTileWidth, row0 = blockIdx.y * kTileHeight;

  // Load: tile(a, b) = x(row0 - r + a, col0 - r + b), 0 outside the image (as in step 06).
  for (int a = threadIdx.y; a < tile_rows; a += kThreadsY) {
    const int row = row0 - r + a;
    const bool row_inside = row >= 0 && row < height;
    const float* source = in + static_cast<std::size_t>(row_inside ? row : 0) * width;
    float values[kMaxLoadSteps];
#pragma unroll
    for (int m = 0; m < kMaxLoadSteps; ++m) {
      const int b = threadIdx.x + m * kThreadsX;
      const int col = col0 - r + b;
      values[m] = (b < stride && row_inside && col >= 0 && col < width) ? source[col] : 0.0f;
    }
#pragma unroll
    for (int m = 0; m < kMaxLoadSteps; ++m) {
      const int b = threadIdx.x + m * kThreadsX;
      if (b < stride) tile[a * stride + b] = values[m];
    }
  }
  __syncthreads();

  // Compute: this thread's outputs are tile rows t0 ... t0 + 3, columns 8 threadIdx.x ... + 7.
  // [docs:blocked_2d_rows]
  const int first_col = threadIdx.x * kOutputsPerThread;
  const int t0 = threadIdx.y * kRowsPerThread;
  float acc[kRowsPerThread][kOutputsPerThread] = {};
  for (int s = 0; s < k + kRowsPerThread - 1; ++s) {  // tile rows t0 + s: each serves up to 4 outputs
    const float* line = tile + (t0 + s) * stride + first_col;
    int j = 0;
    for (; j + 8 <= k; j += 8) accumulate_chunk_2d<8>(line + j, c_taps_2d + j, k, s, acc);
    switch (k - j) {  // the last K mod 8 taps of each filter row
      case 1: accumulate_chunk_2d<1>(line + j, c_taps_2d + j, k, s, acc); break;
      case 2: accumulate_chunk_2d<2>(line + j, c_taps_2d + j, k, s, acc); break;
      case 3: accumulate_chunk_2d<3>(line + j, c_taps_2d + j, k, s, acc); break;
      case 4: accumulate_chunk_2d<4>(line + j, c_taps_2d + j, k, s, acc); break;
      case 5: accumulate_chunk_2d<5>(line + j, c_taps_2d + j, k, s, acc); break;
      case 6: accumulate_chunk_2d<6>(line + j, c_taps_2d + j, k, s, acc); break;
      case 7: accumulate_chunk_2d<7>(line + j, c_taps_2d + j, k, s, acc); break;
      default: break;
    }
  }
  // [docs:end blocked_2d_rows]

  const int col = col0 + first_col;
  if (col >= width) return;
#pragma unroll
  for (int q = 0; q < kRowsPerThread; ++q) {
    const int row = row0 + t0 + q;
    if (row >= height) break;
    float* target = out + static_cast<std::size_t>(row) * width + col;
    if (width % 4 == 0 && col + kOutputsPerThread <= width) {  // 16-byte aligned: two float4 stores
      reinterpret_cast<float4*>(target)[0] = make_float4(acc[q][0], acc[q][1], acc[q][2], acc[q][3]);
      reinterpret_cast<float4*>(target)[1] = make_float4(acc[q][4], acc[q][5], acc[q][6], acc[q][7]);
    } else {
#pragma unroll
      for (int p = 0; p < kOutputsPerThread; ++p) {
        if (col + p < width) target[p] = acc[q][p];
      }
    }
  }
}

class DirectBlocked2d final : public GpuConvolver {
 public:
  explicit DirectBlocked2d(const GpuProblem& problem) : p_(problem) {}

  std::string unsupported() const override {
    if (p_.filter->size > kMaxDirectFilterSize) {
      return "the filter is larger than " + std::to_string(kMaxDirectFilterSize) + " x " +
             std::to_string(kMaxDirectFilterSize) + " (constant memory holds no more)";
    }
    return "";
  }

  void setup(cudaStream_t stream) override {
    const Filter& f = *p_.filter;
    flipped_.resize(f.taps.size());
    for (int i = 0; i < f.size; ++i) {
      for (int j = 0; j < f.size; ++j) flipped_[static_cast<std::size_t>(i * f.size + j)] = f.at(f.size - 1 - i, f.size - 1 - j);
    }
    // Over 48 KiB of dynamic shared memory needs the kernel's consent (99 KiB at K = 63).
    CUDA_CHECK(cudaFuncSetAttribute(direct_blocked_2d_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    static_cast<int>(shared_bytes(kMaxDirectFilterSize))));
    id_ = detail::next_filter_id();
    upload(stream);
    CUDA_CHECK(cudaStreamSynchronize(stream));
  }

  void run(cudaStream_t stream) override {
    if (g_loaded_filter != id_) upload(stream);  // another convolver's filter is in c_taps_2d now
    const int k = p_.filter->size;
    const dim3 grid((p_.width + kTileWidth - 1) / kTileWidth, (p_.height + kTileHeight - 1) / kTileHeight);
    direct_blocked_2d_kernel<<<grid, dim3(kThreadsX, kThreadsY), shared_bytes(k), stream>>>(
        p_.input->data(), p_.output->data(), p_.height, p_.width, k);
    CUDA_CHECK_LAUNCH("direct_blocked_2d_kernel");
  }

  double bytes_per_pixel() const override { return 2 * sizeof(float); }  // the image read once, the result written once
  double flops_per_pixel() const override {
    return 2.0 * p_.filter->size * p_.filter->size;  // K^2 multiply-adds, 2 flops each
  }

  std::string note() const override {
    const int k = p_.filter->size;
    return "tile 256 x 16 + halo " + std::to_string(k - 1) + ", 8 x 4 outputs per thread (each pixel load feeds 4 rows), " +
           std::to_string(shared_bytes(k) / 1024) + " KiB shared per block";
  }

 private:
  void upload(cudaStream_t stream) {
    CUDA_CHECK(cudaMemcpyToSymbolAsync(c_taps_2d, flipped_.data(), flipped_.size() * sizeof(float), 0,
                                       cudaMemcpyHostToDevice, stream));
    g_loaded_filter = id_;
  }

  GpuProblem p_;
  std::vector<float> flipped_;
  int id_ = 0;
};

}  // namespace

std::unique_ptr<GpuConvolver> launch_direct_blocked_2d(const GpuProblem& problem) {
  return std::make_unique<DirectBlocked2d>(problem);
}

}  // namespace fft_convolve
