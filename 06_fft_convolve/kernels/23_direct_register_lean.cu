// 23 direct_register_lean: step 20 with less work for the shared-memory pipe,
// which Nsight Compute shows busy beside its FMAs at K = 15 on a 1024 x 1024 image.
//
// Teaches that a kernel made of multiply-adds can still be limited by its loads: not by their
// bytes, but by how many cycles the L1 / shared-memory pipe spends on them. An SM's shared memory
// serves 128 bytes (32 banks of 4 bytes) per cycle, one "wavefront": a warp's 16-byte load
// (LDS.128, 512 bytes) takes at least 4 wavefronts, more when two of its threads hit the same
// banks at different addresses; a 4-byte asynchronous copy is a wavefront for 128 bytes as well,
// and a tap load that all threads of a warp make at the same address (a broadcast) one. Nsight
// Compute on step 20 at K = 15 (docs/data/h100-2026-11-27-f/second/ncu/
// ncu_direct_register_2d_k15.txt) has the L1 / shared-memory pipe at 68.7% of its peak while a
// scheduler issues in only 61% of the cycles. Four changes from step 20, each one less load or
// fewer wavefronts:
//  - 16-byte copies for the tile. Step 20 copies its tile one 4-byte cp.async per pixel (32 per
//    thread at K = 15). Here the tile's first column is image column col0 - ra, ra the radius
//    K / 2 rounded up to a multiple of 4, so that every 16-byte group of a tile row is a 16-byte
//    aligned group of an image row whenever the width is a multiple of 4 and the image 16-byte
//    aligned (checked at launch): one cp.async.cg of 16 bytes per 4 pixels (8 per thread at
//    K = 15), zeros outside the image. Otherwise the same tile is copied with step 20's 4-byte
//    copies (a kernel argument says which).
//  - the tile starts d = ra - K / 2 (0 to 3) columns further left, so output p's window begins at
//    window column p + d: the filter row is walked as K + d taps whose first d are not there,
//    skipped when compiling (no multiply-add by a zero tap), in chunks of 4 over the shifted
//    index j' = j + d; the device copy of each filter row starts with d zeros so that its float4s
//    line up with those chunks.
//  - no bank conflicts on the window loads (up to K = 29). A thread's window is float4s 2 lane +
//    e of its tile row: neighbouring threads 32 bytes apart, so a warp meets only 4 of the 8
//    16-byte bank groups, 8 threads each, and a window load takes 8 wavefronts. Here a tile row
//    keeps an empty float4 after every two (each thread's share, as in step 22's row strip):
//    float4 u at slot u + u / 2, threads 3 slots apart; 3 is odd, so 8 neighbouring lanes hit
//    slots 3 lane + e + e / 2 on 8 different bank groups, each group by 4 lanes of the warp: 4
//    wavefronts, the least a 16-byte load takes. The place of window float4 e is a base plus a
//    constant, as before. The gaps make the tile 1.5 times as large; from K = 31 that would
//    leave fewer blocks on an SM than step 20's (see gapped() below), so there step 20's layout.
//  - half the tap loads. A thread's two output rows take filter rows s and s - 1 at tile row s;
//    filter row s - 1 was loaded at tile row s - 1. Its float4s stay in registers for the next
//    row (up to K = 29, see reuse_taps() below), so a tile row loads one filter row, not two.
// And the middle loop (the rows where both output rows take a filter row) is unrolled twice,
// which was 1 to 3% faster at K >= 23 in a candidate measured before (the pipelined one).
// Unrolled and with the taps kept, the kernel would take up to 96 registers (2 blocks of 256
// threads per SM); a register cap (__launch_bounds__) holds it to step 20's blocks per SM, 80
// registers up to K = 47, without spilling. Everything else is step 20's: tile 256 x 16, 256
// threads, 8 x 2 outputs per thread, K compiled (an instance per odd K up to 63). Each
// accumulator takes the same multiply-adds in the same order as in step 20, so the results are
// step 20's bit for bit (GpuRegisterLeanAtEveryFilterSize checks it at every K).
#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "async_copy.cuh"
#include "course/check.hpp"
#include "fft_convolve.hpp"

namespace fft_convolve {

namespace {

using detail::copy_four_async;
using detail::copy_pixel_async;
using detail::wait_for_copies;

constexpr int kOutputsPerThread = 8;                        // P: neighbouring outputs of one row
constexpr int kRowsPerThread = 2;                           // R: output rows per thread
constexpr int kThreadsX = 32;
constexpr int kThreadsY = 8;
constexpr int kThreads = kThreadsX * kThreadsY;             // 256
constexpr int kTileWidth = kThreadsX * kOutputsPerThread;   // 256 outputs per tile row
constexpr int kTileHeight = kThreadsY * kRowsPerThread;     // 16 output rows per tile
constexpr int kOddSizes = (kMaxDirectFilterSize + 1) / 2;   // K = 1, 3, ..., 63: one instance each

// The tile's left margin: the radius rounded up to whole float4s, and how far that is past the
// radius (d: the skipped taps at the front of every filter row).
__host__ __device__ constexpr int margin(int k) { return (k / 2 + 3) / 4 * 4; }
__host__ __device__ constexpr int shift(int k) { return margin(k) - k / 2; }
// NC: chunks of 4 over the shifted tap index j' = j + d, 0 <= j' < K + d.
__host__ __device__ constexpr int chunks(int k) { return (k + shift(k) + 3) / 4; }
// float4s per tile row: the 256 + K - 1 + d pixels the outputs need and what the last window
// reads past them (the last thread's last chunk reads float4 63 + NC).
__host__ __device__ constexpr int row_fours(int k) { return kTileWidth / 4 + chunks(k); }

// Shared memory per block, with and without the gaps, and how many blocks of 256 threads an
// H100's SM then holds: 228 KiB of shared memory per SM, 1 KiB of it reserved per block, and at
// most 3 blocks for the registers (step 20's 72 a thread, and this step's up to 80: 65,536 / (80
// x 256) = 3.2).
__host__ __device__ constexpr int gapped_slots(int k) { return row_fours(k) - 1 + (row_fours(k) - 1) / 2 + 1; }
__host__ __device__ constexpr std::size_t bytes_for(int k, int slots_per_row) {
  return static_cast<std::size_t>(kTileHeight + k - 1) * static_cast<std::size_t>(slots_per_row) * sizeof(float4);
}
__host__ __device__ constexpr int blocks_per_sm(std::size_t bytes) {
  const std::size_t by_shared = (228 * 1024) / (bytes + 1024);
  return by_shared < 3 ? static_cast<int>(by_shared) : 3;
}
// The gaps only where they leave an SM as many blocks as the plain rows: K <= 29 (at K = 29,
// 44 rows x 107 slots x 16 bytes = 75,328 bytes, 3 blocks; at K = 31, 46 x 107 x 16 = 78,752
// bytes, 2 blocks against the plain rows' 3).
__host__ __device__ constexpr bool gapped(int k) {
  return blocks_per_sm(bytes_for(k, gapped_slots(k))) >= blocks_per_sm(bytes_for(k, row_fours(k)));
}
__host__ __device__ constexpr int row_slots(int k) { return gapped(k) ? gapped_slots(k) : row_fours(k); }
__host__ __device__ constexpr std::size_t shared_bytes(int k) { return bytes_for(k, row_slots(k)); }
// Where float4 u of a tile row sits (in float4 slots from the row's start).
template <int K>
__device__ __forceinline__ int slot(int u) {
  return gapped(K) ? u + u / 2 : u;
}
// Keep the previous filter row's taps in registers: NC float4s, 4 NC registers. Up to K = 29
// (NC = 8, 32 registers): there the kernel fits the 80 registers of 3 blocks per SM without
// spilling (ptxas -v); with the taps kept at K = 31 to 47 it spills (8 to 168 bytes a thread),
// so there, and from K = 49, the taps of both rows are loaded per tile row, as in step 20.
__host__ __device__ constexpr bool reuse_taps(int k) { return k <= 29; }

static_assert(!gapped(31) && gapped(29), "the gapped rows end where they would cost a block per SM");
static_assert(reuse_taps(29) && !reuse_taps(31), "the taps are kept up to K = 29");

// The multiply-adds of one chunk c (shifted taps j' = 4c ... 4c + 3) for one output row: tap j'
// exists for d <= j' < K + d, decided when compiling; v holds window pixels 4c ... 4c + 11.
template <int K>
__device__ __forceinline__ void chunk_sums(int c, const float4& t4, const float (&v)[12],
                                           float (&acc)[kOutputsPerThread]) {
  constexpr int d = shift(K);
  const float t[4] = {t4.x, t4.y, t4.z, t4.w};
#pragma unroll
  for (int u = 0; u < 4; ++u) {
    const int j = 4 * c + u;             // known when unrolled
    if (j < d || j >= K + d) continue;   // a padding tap: no code
#pragma unroll
    for (int p = 0; p < kOutputsPerThread; ++p) acc[p] = fmaf(t[u], v[p + u], acc[p]);
  }
}

// One tile row s (`line`: this thread's window, in float4 slots) for the thread's two output
// rows: output row 0 takes filter row s (if kRow0), output row 1 filter row s - 1 (if kRow1).
// With reuse_taps(K), `held` brings filter row s - 1's float4s from the previous tile row and
// leaves filter row s's for the next; else both rows' taps are loaded here, as in step 20.
template <int K, bool kRow0, bool kRow1>
__device__ __forceinline__ void tile_row(const float4* line, const float4* __restrict__ taps, int s,
                                         float (&acc)[kRowsPerThread][kOutputsPerThread],
                                         float4 (&held)[chunks(K)]) {
  constexpr int kChunks = chunks(K);
  constexpr bool kReuse = reuse_taps(K);
  float4 a = line[slot<K>(0)], b = line[slot<K>(1)];  // the window: pixels 4c ... 4c + 11 of chunk c
#pragma unroll
  for (int c = 0; c < kChunks; ++c) {
    const float4 next = line[slot<K>(c + 2)];  // slot(c + 2): a constant offset from `line`
    const float v[12] = {a.x, a.y, a.z, a.w, b.x, b.y, b.z, b.w, next.x, next.y, next.z, next.w};
    float4 now = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    if (kRow0) {
      now = __ldg(taps + s * kChunks + c);  // filter row s, chunk c: one broadcast load
      chunk_sums<K>(c, now, v, acc[0]);
    }
    if (kRow1) {
      const float4 before = kReuse ? held[c] : __ldg(taps + (s - 1) * kChunks + c);
      chunk_sums<K>(c, before, v, acc[1]);
    }
    if (kReuse && kRow0) held[c] = now;  // for the next tile row's output row 1
    a = b;  // slide by 4 pixels: renamed registers, no copies, once unrolled
    b = next;
  }
}

// The register cap: as many blocks of 256 threads per SM as the shared memory admits (3 up to
// K = 47, 80 registers a thread; 2 from K = 49, 128), which is where step 20 lands without a
// cap. Uncapped, the unrolled middle loop and the kept taps take up to 96 (ptxas -v): 2 blocks.
template <int K>
__global__ void __launch_bounds__(kThreads, blocks_per_sm(shared_bytes(K)))
    direct_register_lean_kernel(const float* __restrict__ in, const float4* __restrict__ taps, float* __restrict__ out,
                                int height, int width, bool wide_copies) {
  static_assert(kRowsPerThread == 2, "the rows below are written out for two output rows per thread");
  constexpr int r = K / 2;
  constexpr int ra = margin(K);
  constexpr int fours = row_fours(K);
  constexpr int stride = row_slots(K);  // float4 slots per tile row
  constexpr int tile_rows = kTileHeight + K - 1;
  extern __shared__ float4 tile[];
  const int col0 = blockIdx.x * kTileWidth, row0 = blockIdx.y * kTileHeight;

  // Load: float4 g of tile row a holds x(row0 - r + a, col0 - ra + 4g ... + 3), 0 outside the
  // image; it sits at slot(g) of the row. Every copy is requested before any is waited for.
  const int thread = static_cast<int>(threadIdx.y) * kThreadsX + static_cast<int>(threadIdx.x);
  if (wide_copies) {  // width % 4 == 0, `in` 16-byte aligned: every group whole inside or outside a row
    constexpr int kCopies = tile_rows * fours;
    constexpr int kSteps = (kCopies + kThreads - 1) / kThreads;
#pragma unroll
    for (int m = 0; m < kSteps; ++m) {
      const int e = thread + m * kThreads;
      if (kCopies % kThreads != 0 && e >= kCopies) break;
      const int a = e / fours, g = e % fours;  // divisions by a constant
      const int row = row0 - r + a, col = col0 - ra + 4 * g;  // col: a multiple of 4
      const int left = width - col;  // pixels of the image row from col on
      const int bytes = row >= 0 && row < height && col >= 0 ? 4 * (left < 0 ? 0 : left < 4 ? left : 4) : 0;
      copy_four_async(tile + a * stride + slot<K>(g), bytes > 0 ? in + static_cast<std::size_t>(row) * width + col : in,
                      bytes);
    }
  } else {  // step 20's copies, one pixel at a time, into the same places
    constexpr int kLoadSteps = (4 * fours + kThreadsX - 1) / kThreadsX;  // per tile row and thread
    float* const floats = reinterpret_cast<float*>(tile);
    for (int a = static_cast<int>(threadIdx.y); a < tile_rows; a += kThreadsY) {
      const int row = row0 - r + a;
      const bool row_inside = row >= 0 && row < height;
      const float* source = in + static_cast<std::size_t>(row_inside ? row : 0) * width;
#pragma unroll
      for (int m = 0; m < kLoadSteps; ++m) {
        const int b = static_cast<int>(threadIdx.x) + m * kThreadsX;  // float b of the row: float4 b / 4
        const int col = col0 - ra + b;
        const bool inside = row_inside && col >= 0 && col < width;
        if (b < 4 * fours) {
          copy_pixel_async(floats + 4 * (a * stride + slot<K>(b / 4)) + b % 4, inside ? source + col : in, inside);
        }
      }
    }
  }
  wait_for_copies();
  __syncthreads();

  // Compute: this thread's outputs are tile rows t0, t0 + 1, columns 8 threadIdx.x ... + 7; its
  // window starts at float4 2 threadIdx.x of each tile row, slot(2 threadIdx.x) = 3 threadIdx.x
  // with the gaps. Tile rows t0 + s, s = 0 ... K: the first serves output row 0 only, the last
  // output row 1 only, the K - 1 between both.
  const int lane = static_cast<int>(threadIdx.x);
  const int t0 = static_cast<int>(threadIdx.y) * kRowsPerThread;
  const float4* lines = tile + t0 * stride + slot<K>(2 * lane);
  float acc[kRowsPerThread][kOutputsPerThread] = {};
  float4 held[chunks(K)];  // with reuse_taps(K): the previous tile row's filter row
  tile_row<K, true, false>(lines, taps, 0, acc, held);
#pragma unroll 2
  for (int s = 1; s < K; ++s) tile_row<K, true, true>(lines + s * stride, taps, s, acc, held);
  tile_row<K, false, true>(lines + K * stride, taps, K, acc, held);

  const int first_col = lane * kOutputsPerThread;
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

using KernelFunction = void (*)(const float*, const float4*, float*, int, int, bool);

// The instance for each odd K: table[K / 2].
template <std::size_t... I>
constexpr std::array<KernelFunction, sizeof...(I)> instances(std::index_sequence<I...>) {
  return {&direct_register_lean_kernel<2 * static_cast<int>(I) + 1>...};
}
constexpr std::array<KernelFunction, kOddSizes> kInstances = instances(std::make_index_sequence<kOddSizes>{});

class DirectRegisterLean final : public GpuConvolver {
 public:
  explicit DirectRegisterLean(const GpuProblem& problem) : p_(problem) {}

  std::string unsupported() const override {
    if (p_.filter->size > kMaxDirectFilterSize) {
      return "the filter is larger than " + std::to_string(kMaxDirectFilterSize) + " x " +
             std::to_string(kMaxDirectFilterSize) + " (one compiled instance per odd K up to there)";
    }
    return "";
  }

  void setup(cudaStream_t stream) override {
    const Filter& f = *p_.filter;
    const int k = f.size, row_floats = 4 * chunks(k), d = shift(k);
    // The flipped filter g(i, j) = f(K-1-i, K-1-j), each row d zeros, its K taps, zeros to whole
    // float4s: tap j of row i at float d + j, where the chunks of the shifted index expect it.
    std::vector<float> padded(static_cast<std::size_t>(k) * static_cast<std::size_t>(row_floats), 0.0f);
    for (int i = 0; i < k; ++i) {
      for (int j = 0; j < k; ++j) {
        padded[static_cast<std::size_t>(i * row_floats + d + j)] = f.at(k - 1 - i, k - 1 - j);
      }
    }
    taps_ = course::DeviceBuffer<float>(padded.size(), "the padded, flipped filter");
    taps_.copy_from_host_async(padded, stream);
    kernel_ = kInstances[static_cast<std::size_t>(k / 2)];
    // The 16-byte copies need every image row to start 16-byte aligned.
    wide_copies_ = p_.width % 4 == 0 && reinterpret_cast<std::uintptr_t>(p_.input->data()) % 16 == 0;
    // Over 48 KiB of dynamic shared memory needs the kernel's consent (73 KiB at K = 29 with the
    // gaps, 97.5 KiB at K = 63 without).
    CUDA_CHECK(cudaFuncSetAttribute(kernel_, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    static_cast<int>(shared_bytes(k))));
    CUDA_CHECK(cudaStreamSynchronize(stream));
  }

  void run(cudaStream_t stream) override {
    const int k = p_.filter->size;
    kernel_<<<grid(), dim3(kThreadsX, kThreadsY), shared_bytes(k), stream>>>(
        p_.input->data(), reinterpret_cast<const float4*>(taps_.data()), p_.output->data(), p_.height, p_.width,
        wide_copies_);
    CUDA_CHECK_LAUNCH("direct_register_lean_kernel");
  }

  double bytes_per_pixel() const override { return 2 * sizeof(float); }  // the image read once, the result written once
  double flops_per_pixel() const override {
    return 2.0 * p_.filter->size * p_.filter->size;  // K^2 multiply-adds, 2 flops each
  }

  std::string note() const override {
    const int k = p_.filter->size;
    return "K = " + std::to_string(k) + " compiled, tile 256 x " + std::to_string(kTileHeight) + " + halo " +
           std::to_string(k - 1) + ", 8 x 2 outputs per thread, 256 threads per block, " +
           (wide_copies_ ? "16-byte copies" : "4-byte copies (width not a multiple of 4)") + ", " +
           (gapped(k) ? "rows with gaps (no bank conflicts)" : "plain rows") + ", " +
           (reuse_taps(k) ? "taps kept for the next row" : "taps loaded per row") + ", " +
           std::to_string(shared_bytes(k) / 1024) + " KiB shared per block";
  }

 private:
  dim3 grid() const {
    return dim3((p_.width + kTileWidth - 1) / kTileWidth, (p_.height + kTileHeight - 1) / kTileHeight);
  }

  GpuProblem p_;
  course::DeviceBuffer<float> taps_;
  KernelFunction kernel_ = nullptr;
  bool wide_copies_ = false;
};

}  // namespace

std::unique_ptr<GpuConvolver> launch_direct_register_lean(const GpuProblem& problem) {
  return std::make_unique<DirectRegisterLean>(problem);
}

}  // namespace fft_convolve
