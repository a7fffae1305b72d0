// 17 overlap_save: FFT convolution in small tiles (overlap-save), many small transforms in one call.
//
// Teaches: steps 02 to 08 transform the whole padded image at once: an FFT of Ph x Pw points
// costs about log2(Ph Pw) passes over the image, and a large FFT on a GPU is several kernels, each
// a trip through memory. A K x K filter only ever mixes pixels K apart, so the image can be cut
// into tiles, each convolved with its own small FFT, and the pieces put back together:
//
//   tile (a, b), T_h x T_w input pixels, starting r pixels above and left of its outputs:
//     X(u, v) = x(a L_h - r + u, b L_w - r + v)      (0 outside the image)
//   its circular convolution with the filter (centred at (0, 0) of a T_h x T_w array) wraps
//   around only in the r rows and columns at each edge; the L_h x L_w middle is exact:
//     y(a L_h + u - r, b L_w + v - r) = (X * f)(u, v)  for u in [r, r + L_h), v in [r, r + L_w)
//   with L = T - K + 1 outputs per tile side. Neighbouring tiles overlap by K - 1 input pixels,
//   and the wrapped edges are thrown away ("saved" is the part kept).
//
// What changed from step 02 (fft_r2c): the same five steps (gather -> R2C -> multiply -> C2R ->
// scatter), but on a batch of tiles: one cuFFT plan of many T_h x T_w transforms
// (cufftMakePlanMany), the filter's spectrum of one tile's size shared by every tile. The
// costs: each input pixel is transformed (T/L)^2 times (the overlap), and the transform is short
// (log2 T passes, not log2 of the image's side). A small power-of-two transform fits in one
// block's registers and shared memory, so a library can do a whole batch of them in about one read
// and one write of the data per direction (Nsight Systems shows how many kernels cuFFT
// launches for each plan).
//
// When it wins: a large image with a small to medium filter (T a few times K, overlap small);
// when K approaches the image's size the tiles grow to one tile, the whole padded image, and it
// is step 02 again. The tile size is not guessed: a few power-of-two sizes (each at least
// 4 (K - 1), so the overlap stays under (4/3)^2) are timed in setup, as step 02 times its FFT
// sizes, and the fastest wins. The product kernel folds 1 / (T_h T_w) into the filter's spectrum.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "course/check.hpp"
#include "course/cufft_plan.hpp"
#include "course/timing.hpp"
#include "kernels/fft_steps.cuh"

namespace fft_convolve {

namespace {

// A grid's y dimension holds at most 65,535 blocks; kernels below loop over the rest.
constexpr unsigned kMaxGridY = 65535;

// How the image is cut: tiles of T_h x T_w input pixels, L_h x L_w outputs each, ty x tx of them.
struct Tiling {
  int height = 0, width = 0;            // the image
  int radius = 0;                       // r = K / 2
  int tile_height = 0, tile_width = 0;  // T: the transform's size
  int out_height = 0, out_width = 0;    // L = T - K + 1: the outputs a tile keeps
  int tiles_down = 0, tiles_across = 0;
  __host__ __device__ int tiles() const { return tiles_down * tiles_across; }
  std::size_t real_per_tile() const { return static_cast<std::size_t>(tile_height) * static_cast<std::size_t>(tile_width); }
  std::size_t complex_per_tile() const {
    return static_cast<std::size_t>(tile_height) * static_cast<std::size_t>(tile_width / 2 + 1);
  }
};

Tiling make_tiling(int height, int width, int filter_size, PaddedShape tile) {
  Tiling t;
  t.height = height;
  t.width = width;
  t.radius = filter_size / 2;
  t.tile_height = tile.height;
  t.tile_width = tile.width;
  t.out_height = tile.height - filter_size + 1;
  t.out_width = tile.width - filter_size + 1;
  t.tiles_down = (height + t.out_height - 1) / t.out_height;
  t.tiles_across = (width + t.out_width - 1) / t.out_width;
  return t;
}

// tiles[tile][u][v] = image(a L_h - r + u, b L_w - r + v), 0 outside the image: every element of
// the batch written. The batch is seen as (tiles x T_h) rows of T_w floats; a warp reads a run of
// one image row.
// [docs:gather_tiles_kernel]
__global__ void gather_tiles_kernel(const float* __restrict__ image, float* __restrict__ tiles, Tiling t) {
  const int v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v >= t.tile_width) return;
  const long long rows = static_cast<long long>(t.tiles()) * t.tile_height;
  for (long long row = static_cast<long long>(blockIdx.y) * blockDim.y + threadIdx.y; row < rows;
       row += static_cast<long long>(gridDim.y) * blockDim.y) {
    const int tile = static_cast<int>(row / t.tile_height), u = static_cast<int>(row - static_cast<long long>(tile) * t.tile_height);
    const int a = tile / t.tiles_across, b = tile - a * t.tiles_across;
    const int source_row = a * t.out_height - t.radius + u, source_col = b * t.out_width - t.radius + v;
    const bool inside = source_row >= 0 && source_row < t.height && source_col >= 0 && source_col < t.width;
    tiles[row * t.tile_width + v] =
        inside ? image[static_cast<std::size_t>(source_row) * static_cast<std::size_t>(t.width) + source_col] : 0.0f;
  }
}
// [docs:end gather_tiles_kernel]

// spectra[tile][k] *= filter[k]: every tile's spectrum times the one filter spectrum (1/N in it).
__global__ void multiply_tiles_kernel(cufftComplex* __restrict__ spectra, const cufftComplex* __restrict__ filter,
                                      int per_tile, int tiles) {
  const int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= per_tile) return;
  const cufftComplex f = filter[k];
  for (int tile = blockIdx.y; tile < tiles; tile += gridDim.y) {
    cufftComplex& z = spectra[static_cast<std::size_t>(tile) * static_cast<std::size_t>(per_tile) + k];
    const cufftComplex a = z;
    z = make_float2(a.x * f.x - a.y * f.y, a.x * f.y + a.y * f.x);
  }
}

// output(row, col) = the kept middle of the tile that owns it: tile (row / L_h, col / L_w),
// element (row mod L_h + r, col mod L_w + r). Every output pixel written once.
// [docs:scatter_tiles_kernel]
__global__ void scatter_tiles_kernel(const float* __restrict__ tiles, float* __restrict__ output, Tiling t) {
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (col >= t.width) return;
  const int b = col / t.out_width, v = col - b * t.out_width + t.radius;
  for (int row = blockIdx.y * blockDim.y + threadIdx.y; row < t.height; row += gridDim.y * blockDim.y) {
    const int a = row / t.out_height, u = row - a * t.out_height + t.radius;
    const std::size_t tile = static_cast<std::size_t>(a) * static_cast<std::size_t>(t.tiles_across) + static_cast<std::size_t>(b);
    output[static_cast<std::size_t>(row) * static_cast<std::size_t>(t.width) + col] =
        tiles[(tile * static_cast<std::size_t>(t.tile_height) + static_cast<std::size_t>(u)) * static_cast<std::size_t>(t.tile_width) +
              static_cast<std::size_t>(v)];
  }
}
// [docs:end scatter_tiles_kernel]

unsigned grid_y(long long rows, unsigned block_rows) {
  return static_cast<unsigned>(std::clamp<long long>((rows + block_rows - 1) / block_rows, 1, kMaxGridY));
}

// One tiling's plans and arrays: what run() needs, built for one tile shape.
class TiledFft {
 public:
  TiledFft(const GpuProblem& p, PaddedShape tile, cudaStream_t stream)
      : t_(make_tiling(p.height, p.width, p.filter->size, tile)) {
    int n[2] = {tile.height, tile.width};
    // Batched plans: `tiles` transforms of T_h x T_w, each tile's array right after the last
    // (null embeds: the basic layout, T_h T_w reals and T_h (T_w / 2 + 1) complex numbers apart).
    CUFFT_CHECK(cufftMakePlanMany(forward_.get(), 2, n, nullptr, 1, 0, nullptr, 1, 0, CUFFT_R2C, t_.tiles(), &work_[0]));
    CUFFT_CHECK(cufftMakePlanMany(inverse_.get(), 2, n, nullptr, 1, 0, nullptr, 1, 0, CUFFT_C2R, t_.tiles(), &work_[1]));
    tiles_ = course::DeviceBuffer<float>(t_.real_per_tile() * static_cast<std::size_t>(t_.tiles()), "overlap-save: the tiles");
    spectra_ = course::DeviceBuffer<cufftComplex>(t_.complex_per_tile() * static_cast<std::size_t>(t_.tiles()),
                                                  "overlap-save: the tiles' spectra");
    // The filter's spectrum at one tile's size, 1 / (T_h T_w) folded in, with a plain 2-D plan.
    const course::CufftPlan one(tile.height, tile.width, CUFFT_R2C);
    filter_spectrum_ =
        detail::filter_spectrum(*p.filter, tile, one, stream, 1.0f / static_cast<float>(t_.real_per_tile()));
  }

  void run(const float* image, float* output, cudaStream_t stream) {
    if (!stream_set_ || stream != stream_) {  // a plan remembers one stream
      forward_.set_stream(stream);
      inverse_.set_stream(stream);
      stream_ = stream;
      stream_set_ = true;
    }
    const dim3 block(32, 8);
    const long long tile_rows = static_cast<long long>(t_.tiles()) * t_.tile_height;
    gather_tiles_kernel<<<dim3((t_.tile_width + 31) / 32, grid_y(tile_rows, block.y)), block, 0, stream>>>(image, tiles_.data(), t_);
    CUDA_CHECK_LAUNCH("gather_tiles_kernel");
    CUFFT_CHECK(cufftExecR2C(forward_.get(), tiles_.data(), spectra_.data()));
    const int per_tile = static_cast<int>(t_.complex_per_tile());
    multiply_tiles_kernel<<<dim3((per_tile + 255) / 256, grid_y(t_.tiles(), 1)), 256, 0, stream>>>(
        spectra_.data(), filter_spectrum_.data(), per_tile, t_.tiles());
    CUDA_CHECK_LAUNCH("multiply_tiles_kernel");
    CUFFT_CHECK(cufftExecC2R(inverse_.get(), spectra_.data(), tiles_.data()));
    scatter_tiles_kernel<<<dim3((t_.width + 31) / 32, grid_y(t_.height, block.y)), block, 0, stream>>>(tiles_.data(), output, t_);
    CUDA_CHECK_LAUNCH("scatter_tiles_kernel");
  }

  const Tiling& tiling() const { return t_; }
  std::size_t work_bytes() const { return work_[0] + work_[1]; }

 private:
  Tiling t_;
  course::CufftPlan forward_, inverse_;  // empty handles, planned in the constructor
  std::size_t work_[2] = {0, 0};
  course::DeviceBuffer<float> tiles_;
  course::DeviceBuffer<cufftComplex> spectra_, filter_spectrum_;
  cudaStream_t stream_ = nullptr;
  bool stream_set_ = false;
};

class OverlapSave final : public GpuConvolver {
 public:
  // tile: a fixed tile shape (tests), or 0 x 0 to choose among overlap_save_tiles().
  OverlapSave(const GpuProblem& problem, PaddedShape tile) : p_(problem), fixed_(tile) {}

  std::string unsupported() const override {
    const int k = p_.filter->size;
    if (fixed_.height > 0 && (fixed_.height < 2 || fixed_.width < 2)) {  // as linear_padding: no side of 1
      return "the tile (" + fixed_.text() + ") is smaller than 2 x 2";
    }
    if (fixed_.height > 0 && (fixed_.height < k || fixed_.width < k)) {
      return "the filter (" + std::to_string(k) + " x " + std::to_string(k) + ") is larger than the tile (" +
             fixed_.text() + ")";
    }
    return "";
  }

  void setup(cudaStream_t stream) override {
    chosen_.reset();
    measured_.clear();
    const std::vector<PaddedShape> candidates =
        fixed_.height > 0 ? std::vector<PaddedShape>{fixed_} : overlap_save_tiles(p_.height, p_.width, p_.filter->size);
    if (!p_.measure_padding || candidates.size() == 1) {
      chosen_.emplace(p_, candidates.front(), stream);
      return;
    }
    // Each candidate built and timed (5 runs after one warm-up), one at a time; the fastest kept.
    double best = -1;
    for (const PaddedShape& tile : candidates) {
      std::optional<TiledFft> trial;
      trial.emplace(p_, tile, stream);
      const course::TimingStats stats = course::time_device(
          {1, 5}, stream, [&] { trial->run(p_.input->data(), p_.output->data(), stream); });
      measured_ += (measured_.empty() ? "" : ", ") + tile.text() + " " + milliseconds(stats.median_ms);
      if (best < 0 || stats.median_ms < best) {
        best = stats.median_ms;
        chosen_ = std::move(trial);  // the previous best's plans and arrays are freed
      }
    }
  }

  void run(cudaStream_t stream) override { chosen_->run(p_.input->data(), p_.output->data(), stream); }

  std::string note() const override {
    if (!chosen_) return "";
    const Tiling& t = chosen_->tiling();
    std::string text = std::to_string(t.tiles()) + " tiles of " + std::to_string(t.tile_height) + " x " +
                       std::to_string(t.tile_width) + " (" + std::to_string(t.out_height) + " x " +
                       std::to_string(t.out_width) + " outputs each), plan work areas " +
                       std::to_string(chosen_->work_bytes() >> 20) + " MiB";
    if (!measured_.empty()) text += "; tiles timed: " + measured_;
    return text;
  }

 private:
  static std::string milliseconds(double ms) {
    char text[32];
    std::snprintf(text, sizeof text, "%.3f ms", ms);
    return text;
  }

  GpuProblem p_;
  PaddedShape fixed_;
  std::optional<TiledFft> chosen_;
  std::string measured_;
};

// The smallest power of two >= n.
int power_of_two_at_least(std::int64_t n) {
  std::int64_t p = 1;
  while (p < n) p *= 2;
  return static_cast<int>(p);
}

}  // namespace

std::vector<PaddedShape> overlap_save_tiles(int height, int width, int filter_size) {
  // Per side: powers of two from max(32, 4 (K - 1)) up, at most four, none beyond the first that
  // holds the whole side in one tile (T - K + 1 >= n, the smallest such power of two `cover`).
  const int smallest = power_of_two_at_least(std::max<std::int64_t>(32, 4 * (static_cast<std::int64_t>(filter_size) - 1)));
  const int cover_h = std::max(2, power_of_two_at_least(static_cast<std::int64_t>(height) + filter_size - 1));
  const int cover_w = std::max(2, power_of_two_at_least(static_cast<std::int64_t>(width) + filter_size - 1));
  std::vector<PaddedShape> tiles;
  for (int i = 0, side = smallest; i < 4; ++i, side *= 2) {
    const PaddedShape tile{std::min(side, cover_h), std::min(side, cover_w)};
    if (!tiles.empty() && tiles.back().height == tile.height && tiles.back().width == tile.width) break;
    tiles.push_back(tile);
    if (side >= cover_h && side >= cover_w) break;  // one tile holds the whole image
  }
  return tiles;
}

std::unique_ptr<GpuConvolver> make_overlap_save(const GpuProblem& problem, PaddedShape tile) {
  return std::make_unique<OverlapSave>(problem, tile);
}

std::unique_ptr<GpuConvolver> launch_overlap_save(const GpuProblem& problem) {
  return std::make_unique<OverlapSave>(problem, PaddedShape{});
}

}  // namespace fft_convolve
