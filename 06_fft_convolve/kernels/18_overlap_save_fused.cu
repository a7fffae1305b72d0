// 18 overlap_save_fused: overlap-save as two batched transforms and nothing else (callbacks).
//
// Teaches: step 17 cuts the image into tiles and transforms them in one batch, but it still makes
// three passes of its own over the tiles: the gather (write every tile, its border included), the
// product, and the scatter (read each tile's middle back out). Step 08 removed the same passes
// from the one-transform path with cuFFT callbacks; here they are index arithmetic on a batch:
//   - the batched R2C's load callback: element `offset` of the batch is tile offset / T^2,
//     row u and column v inside it, so image pixel (a L_h - r + u, b L_w - r + v), or 0 outside
//     the image: the tiles are never written;
//   - the batched C2R's load callback: the product, the filter's element being offset modulo one
//     tile's spectrum (T_h (T_w / 2 + 1) complex numbers): the same filter for every tile;
//   - the C2R's store callback: an element in a tile's kept middle goes to its output pixel, the
//     wrapped border (r rows and columns at each edge) is dropped: the scatter is the store.
// What is left is one batched R2C that reads the image and one batched C2R that writes the
// result. The idea toward the FFT goal (at or below one cuFFT R2C + C2R pair at the padded size):
// that pair transforms the padded image, a non-power-of-two size of several passes per direction,
// while a batch of short power-of-two transforms is about one read and one write of the spectra
// per direction, with (T / L)^2 more of them. Where the tile is a few times K, the batch can move
// fewer bytes than the one large pair: the row is held against that pair (the cufft_pair ceiling),
// beside fft_fused (step 08, the same callbacks on the one large transform) and step 17 (the
// same tiles without callbacks), so each idea is measured on its own.
//
// The tile size is timed in setup as step 17 does (each candidate's plans linked with the
// callbacks, so setup takes longer); the callbacks' 32-bit index arithmetic needs fewer than
// 2^32 elements in the batch, which any image of the lesson (at most 2^28 pixels) keeps.
#include <cufftXt.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "course/check.hpp"
#include "course/check_nvrtc.hpp"
#include "course/cufft_plan.hpp"
#include "course/errors.hpp"
#include "course/nvrtc.hpp"
#include "course/timing.hpp"
#include "kernels/fft_steps.cuh"

namespace fft_convolve {

namespace {

// What the three callbacks need: the image and the result, the filter's spectrum, and the
// tiling (tile T_h x T_w, L_h x L_w kept outputs, tiles_across tiles per row of tiles). The same
// layout is declared in the callbacks' source below.
struct TileInfo {
  const float* input;
  float* output;
  const float2* filter;  // one tile's spectrum, 1 / (T_h T_w) folded in
  unsigned int height, width, radius;
  unsigned int tile_height, tile_width, out_height, out_width, tiles_across, spectrum_per_tile;
};

#define TILE_INFO_SOURCE                                                                    \
  "struct TileInfo {\n"                                                                     \
  "  const float* input; float* output; const float2* filter;\n"                            \
  "  unsigned int height, width, radius;\n"                                                 \
  "  unsigned int tile_height, tile_width, out_height, out_width, tiles_across, spectrum_per_tile;\n" \
  "};\n"

// The callbacks, as source for NVRTC (one program each, so each LTO-IR module defines one
// function; the name is looked up as a C++ function of exactly cuFFT's signature).
// [docs:tile_callbacks]
constexpr const char* kGatherSource = TILE_INFO_SOURCE R"(
__device__ float load_tile_pixel(void* data_in, unsigned long long offset, void* caller_info, void* shared_pointer) {
  const TileInfo& t = *static_cast<const TileInfo*>(caller_info);
  const unsigned int index = static_cast<unsigned int>(offset), per_tile = t.tile_height * t.tile_width;
  const unsigned int tile = index / per_tile, within = index - tile * per_tile;
  const unsigned int u = within / t.tile_width, v = within - u * t.tile_width;
  const unsigned int a = tile / t.tiles_across, b = tile - a * t.tiles_across;
  const int row = static_cast<int>(a * t.out_height + u) - static_cast<int>(t.radius);
  const int col = static_cast<int>(b * t.out_width + v) - static_cast<int>(t.radius);
  const bool inside = row >= 0 && row < static_cast<int>(t.height) && col >= 0 && col < static_cast<int>(t.width);
  return inside ? t.input[static_cast<unsigned int>(row) * t.width + static_cast<unsigned int>(col)] : 0.0f;
}
)";
constexpr const char* kProductSource = TILE_INFO_SOURCE R"(
__device__ float2 multiply_tile_spectrum(void* data_in, unsigned long long offset, void* caller_info, void* shared_pointer) {
  const TileInfo& t = *static_cast<const TileInfo*>(caller_info);
  const float2 a = static_cast<const float2*>(data_in)[offset];
  const float2 b = t.filter[static_cast<unsigned int>(offset) % t.spectrum_per_tile];
  return make_float2(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
}
)";
constexpr const char* kScatterSource = TILE_INFO_SOURCE R"(
__device__ void store_tile_middle(void* data_out, unsigned long long offset, float element, void* caller_info,
                                  void* shared_pointer) {
  const TileInfo& t = *static_cast<const TileInfo*>(caller_info);
  const unsigned int index = static_cast<unsigned int>(offset), per_tile = t.tile_height * t.tile_width;
  const unsigned int tile = index / per_tile, within = index - tile * per_tile;
  const unsigned int u = within / t.tile_width, v = within - u * t.tile_width;
  // The kept middle: u - r in [0, L_h), v - r in [0, L_w) (unsigned: u < r wraps to a large number).
  const unsigned int du = u - t.radius, dv = v - t.radius;
  if (du >= t.out_height || dv >= t.out_width) return;
  const unsigned int a = tile / t.tiles_across, b = tile - a * t.tiles_across;
  const unsigned int row = a * t.out_height + du, col = b * t.out_width + dv;
  if (row < t.height && col < t.width) t.output[row * t.width + col] = element;
}
)";
// [docs:end tile_callbacks]
#undef TILE_INFO_SOURCE
constexpr const char* kGatherName = "load_tile_pixel";
constexpr const char* kProductName = "multiply_tile_spectrum";
constexpr const char* kScatterName = "store_tile_middle";

int current_architecture() {
  int device = 0, major = 0, minor = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
  CUDA_CHECK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device));
  return major * 10 + minor;
}

// One callback's LTO-IR for the highest NVRTC target not above `architecture` (as steps 05, 08).
std::vector<char> lto_ir(const char* source, const char* file, int architecture) {
  int target = 0;
  for (const int supported : course::nvrtc::supported_architectures()) {
    if (supported <= architecture) target = supported;
  }
  if (target == 0) throw course::Error("NVRTC cannot compile for compute capability " + std::to_string(architecture));
  course::nvrtc::Program program(source, file);
  program.compile({"--gpu-architecture=compute_" + std::to_string(target), "--relocatable-device-code=true", "-dlto"});
  std::size_t size = 0;
  NVRTC_CHECK(nvrtcGetLTOIRSize(program.get(), &size));
  std::vector<char> ir(size);
  NVRTC_CHECK(nvrtcGetLTOIR(program.get(), ir.data()));
  return ir;
}

// One tile shape's plans (callbacks linked in) and arrays.
class FusedTiles {
 public:
  FusedTiles(const GpuProblem& p, PaddedShape tile, const TileCallbacks& callbacks, cudaStream_t stream) {
    const int k = p.filter->size;
    TileInfo info{};
    info.input = p.input->data();
    info.output = p.output->data();
    info.height = static_cast<unsigned int>(p.height);
    info.width = static_cast<unsigned int>(p.width);
    info.radius = static_cast<unsigned int>(k / 2);
    info.tile_height = static_cast<unsigned int>(tile.height);
    info.tile_width = static_cast<unsigned int>(tile.width);
    info.out_height = static_cast<unsigned int>(tile.height - k + 1);
    info.out_width = static_cast<unsigned int>(tile.width - k + 1);
    const std::int64_t down = (p.height + tile.height - k) / (tile.height - k + 1);
    const std::int64_t across = (p.width + tile.width - k) / (tile.width - k + 1);
    info.tiles_across = static_cast<unsigned int>(across);
    info.spectrum_per_tile = static_cast<unsigned int>(tile.complex_count());
    tiles_ = down * across;
    if (tiles_ * static_cast<std::int64_t>(tile.real_count()) >= (std::int64_t{1} << 32) || tiles_ > INT32_MAX) {
      throw course::Error("overlap_save_fused: " + std::to_string(tiles_) + " tiles of " + tile.text() +
                          " exceed the callbacks' 32-bit indices");
    }
    tile_ = tile;
    // The filter's spectrum at one tile's size, 1 / (T_h T_w) folded in, with a plain plan.
    {
      const course::CufftPlan one(tile.height, tile.width, CUFFT_R2C);
      filter_spectrum_ =
          detail::filter_spectrum(*p.filter, tile, one, stream, 1.0f / static_cast<float>(tile.real_count()));
    }
    info.filter = filter_spectrum_.data();
    info_ = course::DeviceBuffer<TileInfo>(1, "overlap_save_fused: the callbacks' caller info");
    info_.copy_from_host({&info, 1});
    info_pointer_ = info_.data();

    int n[2] = {tile.height, tile.width};
    const int batch = static_cast<int>(tiles_);
    CUFFT_CHECK(cufftXtSetJITCallback(forward_.get(), kGatherName, callbacks.gather.data(), callbacks.gather.size(),
                                      CUFFT_CB_LD_REAL, &info_pointer_));
    CUFFT_CHECK(cufftMakePlanMany(forward_.get(), 2, n, nullptr, 1, 0, nullptr, 1, 0, CUFFT_R2C, batch, &work_[0]));
    CUFFT_CHECK(cufftXtSetJITCallback(inverse_.get(), kProductName, callbacks.product.data(), callbacks.product.size(),
                                      CUFFT_CB_LD_COMPLEX, &info_pointer_));
    CUFFT_CHECK(cufftXtSetJITCallback(inverse_.get(), kScatterName, callbacks.scatter.data(), callbacks.scatter.size(),
                                      CUFFT_CB_ST_REAL, &info_pointer_));
    CUFFT_CHECK(cufftMakePlanMany(inverse_.get(), 2, n, nullptr, 1, 0, nullptr, 1, 0, CUFFT_C2R, batch, &work_[1]));
    // The transforms' own arrays: the R2C's input and the C2R's output are never read or written
    // by the callbacks' paths, but cuFFT is handed valid arrays of the batch's size (as step 08).
    real_ = course::DeviceBuffer<float>(tile.real_count() * static_cast<std::size_t>(tiles_),
                                        "overlap_save_fused: the tiles (unused by the callbacks)");
    spectra_ = course::DeviceBuffer<cufftComplex>(tile.complex_count() * static_cast<std::size_t>(tiles_),
                                                  "overlap_save_fused: the tiles' spectra");
  }

  void run(cudaStream_t stream) {
    if (!stream_set_ || stream != stream_) {  // a plan remembers one stream
      forward_.set_stream(stream);
      inverse_.set_stream(stream);
      stream_ = stream;
      stream_set_ = true;
    }
    CUFFT_CHECK(cufftExecR2C(forward_.get(), real_.data(), spectra_.data()));  // gathers on load
    CUFFT_CHECK(cufftExecC2R(inverse_.get(), spectra_.data(), real_.data()));  // product on load, scatter on store
  }

  std::string text() const {
    return std::to_string(tiles_) + " tiles of " + tile_.text() + ", plan work areas " +
           std::to_string((work_[0] + work_[1]) >> 20) + " MiB";
  }

 private:
  PaddedShape tile_;
  std::int64_t tiles_ = 0;
  course::CufftPlan forward_, inverse_;  // cufftCreate only: callbacks are set before planning
  std::size_t work_[2] = {0, 0};
  course::DeviceBuffer<cufftComplex> filter_spectrum_;
  course::DeviceBuffer<TileInfo> info_;
  void* info_pointer_ = nullptr;  // caller info: a device pointer, handed to cuFFT by address
  course::DeviceBuffer<float> real_;
  course::DeviceBuffer<cufftComplex> spectra_;
  cudaStream_t stream_ = nullptr;
  bool stream_set_ = false;
};

class OverlapSaveFused final : public GpuConvolver {
 public:
  // tile: a fixed tile shape (tests), or 0 x 0 to choose among overlap_save_tiles().
  OverlapSaveFused(const GpuProblem& problem, PaddedShape tile) : p_(problem), fixed_(tile) {}

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
    const TileCallbacks callbacks = overlap_save_callbacks_lto_ir(current_architecture());
    const std::vector<PaddedShape> candidates =
        fixed_.height > 0 ? std::vector<PaddedShape>{fixed_} : overlap_save_tiles(p_.height, p_.width, p_.filter->size);
    if (!p_.measure_padding || candidates.size() == 1) {
      chosen_ = std::make_unique<FusedTiles>(p_, candidates.front(), callbacks, stream);
      CUDA_CHECK(cudaDeviceSynchronize());  // the caller info's pageable copy
      return;
    }
    double best = -1;
    for (const PaddedShape& tile : candidates) {  // each built and timed (5 runs after one warm-up)
      auto trial = std::make_unique<FusedTiles>(p_, tile, callbacks, stream);
      CUDA_CHECK(cudaDeviceSynchronize());
      const course::TimingStats stats = course::time_device({1, 5}, stream, [&] { trial->run(stream); });
      char line[48];
      std::snprintf(line, sizeof line, "%s %.3f ms", tile.text().c_str(), stats.median_ms);
      measured_ += (measured_.empty() ? "" : ", ") + std::string(line);
      if (best < 0 || stats.median_ms < best) {
        best = stats.median_ms;
        chosen_ = std::move(trial);  // the previous best's plans and arrays are freed
      }
    }
  }

  void run(cudaStream_t stream) override { chosen_->run(stream); }

  std::string note() const override {
    if (!chosen_) return "";
    return chosen_->text() + ", gather in the R2C's load callback, product and scatter in the C2R's" +
           (measured_.empty() ? std::string() : "; tiles timed: " + measured_);
  }

 private:
  GpuProblem p_;
  PaddedShape fixed_;
  // Held by pointer: cuFFT was handed the address of its caller-info pointer, so it never moves.
  std::unique_ptr<FusedTiles> chosen_;
  std::string measured_;
};

}  // namespace

TileCallbacks overlap_save_callbacks_lto_ir(int architecture) {
  return {lto_ir(kGatherSource, "gather_callback.cu", architecture),
          lto_ir(kProductSource, "tile_product_callback.cu", architecture),
          lto_ir(kScatterSource, "scatter_callback.cu", architecture)};
}

std::unique_ptr<GpuConvolver> make_overlap_save_fused(const GpuProblem& problem, PaddedShape tile) {
  return std::make_unique<OverlapSaveFused>(problem, tile);
}

std::unique_ptr<GpuConvolver> launch_overlap_save_fused(const GpuProblem& problem) {
  return std::make_unique<OverlapSaveFused>(problem, PaddedShape{});
}

}  // namespace fft_convolve
