// Lesson 06: 2-D image convolution, by FFT (cuFFT, FFTW) and directly, and where each wins.
//
// This header is the lesson's API, shared by main.cpp, the tests and the kernels: images and
// filters (test_image.cpp, filters.cpp), fast FFT sizes (padding.cpp), the CPU versions and the
// references (fft_convolve_cpu.cpp, fftw_convolve.cpp), the tolerance (verify_convolution.cpp),
// and the GPU methods, one per kernels/NN_name.cu, listed in kernels/registry.inc. It is light
// on purpose (no FFTW, cuFFT, CLI or JSON headers), since every kernel file includes it.
//
// The convolution everywhere ("same" mode, zero padding): for an H x W image x and a K x K
// filter f (K odd, r = K / 2),
//
//   y(row, col) = sum over i, j in [0, K) of f(i, j) * x(row + r - i, col + r - j)
//
// with x = 0 outside the image. That is the true convolution (the filter flipped), centred: a
// single bright pixel turns into a copy of the filter around it. y has the image's size.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "course/device_buffer.hpp"
#include "course/kernel_registry.hpp"
#include "course/verify.hpp"

namespace fft_convolve {

// ---- Images ----------------------------------------------------------------------------------

// A grey image of floats, row-major, row 0 at the top.
struct Image {
  int width = 0;
  int height = 0;
  std::vector<float> pixels;

  Image() = default;
  Image(int image_width, int image_height);  // all pixels 0
  std::size_t size() const { return pixels.size(); }
  std::size_t index(int row, int col) const {
    return static_cast<std::size_t>(row) * static_cast<std::size_t>(width) + static_cast<std::size_t>(col);
  }
  float at(int row, int col) const { return pixels[index(row, col)]; }
  float& at(int row, int col) { return pixels[index(row, col)]; }
};

inline constexpr int kMaxSide = 32768;                  // pixels per side
inline constexpr std::int64_t kMaxPixels = 1ll << 28;   // 268 M pixels: the padded FFT still fits

// A deterministic test image in [0, 1]: a gradient, a disc, a ring, rectangles, thin lines, a
// checkerboard, a spot of pure noise and a little noise everywhere, so every filter has edges,
// flat areas and texture to work on. Depends only on (width, height, seed), never on threads.
Image test_image(int width, int height, std::uint64_t seed);

// An image file named on the command line (PNG, PGM 8/16-bit, PPM as grey), in [0, 1]; any
// problem with it is a course::UsageError: "--image: <path>: <what is wrong>" (images.cpp).
Image load_image(const std::string& path);

// The pictures of a run (images.cpp): <folder>/input.png, reference.png, and for each result
// <name>.png (through the reference's value range) and <name>_difference.png (|result - against|,
// or |result - reference|, through its own maximum), 16-bit grey, written atomically.
struct NamedResult {
  std::string name;                 // "cpu", "gpu", "naive" -> cpu.png, cpu_difference.png
  std::span<const float> values;
  std::span<const float> against;   // empty: the reference
  std::string against_name;         // what `against` is, for the plot's title
};
struct ImageFile {
  std::string name, file;
  double low = 0, high = 1;         // the values that black and white stand for
  std::string against;              // for a difference: what the result was compared with
};
struct ImageFiles {
  std::string folder;               // absolute
  double low = 0, high = 1;         // the reference's range, shared by all results
  std::vector<ImageFile> images;
};
ImageFiles write_result_images(const std::string& folder, const Image& input, std::span<const double> reference,
                               const std::vector<NamedResult>& results);

// ---- Filters ---------------------------------------------------------------------------------

inline constexpr int kMaxFilterSize = 255;

struct Filter {
  std::string name;           // "classic 5 x 5", "gaussian 9 x 9 (sigma 1.5)", ...
  int size = 0;               // K: odd, 1 to kMaxFilterSize
  std::vector<float> taps;    // K * K, row-major: taps[i * K + j] = f(i, j)
  // f(i, j) = column[i] * row[j] when the filter is separable (rank 1); both empty otherwise.
  std::vector<float> column, row;

  bool separable() const { return !row.empty(); }
  // "" when separable; else the reason a separable method gives for not running it.
  std::string separable_problem() const { return separable() ? "" : "the filter is not separable (not a column times a row)"; }
  int radius() const { return size / 2; }
  float at(int i, int j) const { return taps[static_cast<std::size_t>(i) * static_cast<std::size_t>(size) + static_cast<std::size_t>(j)]; }
  double sum() const;       // what a constant image of 1 gives inside
  double l1_norm() const;   // sum |f|: the largest |y| per unit of max |x|, and the FFT's gain
};

// The classic's 5 x 5 filter (a zero-sum, not separable, edge-enhancing filter).
Filter classic_filter();
// A normalised Gaussian of odd size K (sigma = K / 6, so the filter holds +-3 sigma); separable.
Filter gaussian_filter(int size);
// The K x K mean (every tap 1 / K^2); separable.
Filter box_filter(int size);
// A filter from text: one row per line, numbers separated by spaces, tabs or commas; '#' starts
// a comment; blank lines are skipped. Square, odd size, finite numbers. `origin` names the
// source in errors. Bad text throws course::UsageError, one line: "<origin>: line 3: ...".
Filter parse_filter(std::string_view text, const std::string& origin);
Filter read_filter_file(const std::string& path);  // "--filter-file PATH: ..." on any problem
// Splits a rank-1 filter into column x row (sets column and row), within float rounding.
void find_separable_factors(Filter& filter);

// The filter named on the command line: "classic" (size must be 5 or 0), "gaussian", "box".
// A bad name or size throws course::UsageError naming the flag.
Filter make_filter(const std::string& name, int size);

// ---- Fast FFT sizes (padding.cpp) ----------------------------------------------------------------

// An FFT of n points costs about n log n when n has only small prime factors, and several
// times more with a large one (4100 = 2^2 5^2 41). The lesson pads to sizes 2^a 3^b 5^c 7^d.
bool is_fast_size(std::int64_t n);
std::int64_t next_fast_size(std::int64_t n);                               // smallest fast size >= n
std::vector<std::int64_t> fast_size_candidates(std::int64_t n, int count);  // the `count` smallest >= n

struct PaddedShape {
  int height = 0, width = 0;  // of the FFT: at least H + K - 1 by W + K - 1
  std::size_t real_count() const { return static_cast<std::size_t>(height) * static_cast<std::size_t>(width); }
  std::size_t complex_count() const { return static_cast<std::size_t>(height) * static_cast<std::size_t>(width / 2 + 1); }
  std::string text() const;  // "525 x 525"
};
// The smallest fast sizes for a linear (not circular) convolution of an H x W image with K x K.
PaddedShape linear_padding(int height, int width, int filter_size);
// Candidate shapes for a measured choice: every pair of the `per_side` smallest fast sizes.
std::vector<PaddedShape> padding_candidates(int height, int width, int filter_size, int per_side);

// The filter laid into a padded real array of `shape` so that the circular convolution's pixel
// (row, col) is the "same"-mode output's pixel (row, col): tap (i, j) goes to
// ((i - r) mod Ph, (j - r) mod Pw), the filter's centre at (0, 0), its upper-left part wrapped
// to the far corner. Everything else is 0.
void place_filter_centred(const Filter& filter, PaddedShape shape, std::span<float> padded);
// The image into the upper-left corner of a padded array, zeros elsewhere (`threads` threads).
void place_image(const Image& image, PaddedShape shape, std::span<float> padded, int threads = 1);

// ---- CPU (fft_convolve_cpu.cpp) ----------------------------------------------------------------

// The reference: the definition above in double, directly, with zero padding (OpenMP, every core).
std::vector<double> convolve_reference(const Image& image, const Filter& filter);
// The full linear convolution, (H + K - 1) x (W + K - 1), in double: the same-mode output is its
// window starting at (r, r).
std::vector<double> convolve_full_reference(const Image& image, const Filter& filter);
// What the classic's naive FFT computes exactly: the circular convolution of the unpadded image
// with the filter in the array's corner, y(row, col) = sum f(i, j) x((row - i) mod H, (col - j) mod W).
std::vector<double> circular_reference(const Image& image, const Filter& filter);
// The full linear convolution folded onto H x W (index mod H, mod W): equal to circular_reference,
// which is the exact sense in which the naive result is "wrapped".
std::vector<double> wrap_onto_image(std::span<const double> full, int height, int width, int filter_size);

// The direct convolution in float: rows in parallel (OpenMP, `threads` threads), columns in SIMD
// lanes, on a zero-padded copy of the image so the inner loop has no branch.
void convolve_direct(const Image& image, const Filter& filter, std::span<float> output, int threads);
// A separable filter (Filter::separable: a column times a row) in two 1-D passes, 2K multiply-adds
// a pixel instead of K^2: the rows into a scratch image that keeps r zero rows above and below,
// then the columns; rows in parallel, columns in SIMD lanes, as convolve_direct.
void convolve_separable(const Image& image, const Filter& filter, std::span<float> output, int threads);

// FFTW (single precision, r2c / c2r) on the padded shape: plans made once (FFTW_MEASURE by
// default: the planner times candidate algorithms, overwriting its arrays, so it plans before the
// image is put in), the filter's spectrum computed once; run() does the convolution.
enum class FftwPlanner { estimate, measure, patient };
class FftwConvolver {
 public:
  FftwConvolver(const Image& image, const Filter& filter, int threads, FftwPlanner planner = FftwPlanner::measure);
  ~FftwConvolver();
  FftwConvolver(const FftwConvolver&) = delete;
  FftwConvolver& operator=(const FftwConvolver&) = delete;
  void run(std::span<float> output);  // the image given at construction (read at every run)
  PaddedShape shape() const;
  double plan_ms() const;  // the planning time (both plans)
 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};
// The classic's naive way on the CPU: FFTW complex-to-complex at the image's own size, the filter
// in the corner, no padding. Returns what the GPU's naive kernel returns: a wrapped, shifted result.
void convolve_naive_c2c_fftw(const Image& image, const Filter& filter, std::span<float> output);

// ---- Verification (verify_convolution.cpp) -----------------------------------------------------

// What a correct float result may differ from the double reference by, for every method:
//   per pixel  |y - ref| <= e * ||f||_1 * max|x|
//   the image  ||y - ref||_2 <= e * ||f||_1 * ||x||_2   (turned into a bound on ||y - ref|| / ||ref||)
// with e = max(gamma(K^2), kFftErrorFactor * log2(Ph * Pw) * u), u = 2^-24: a direct sum of K^2
// products, or an FFT whose rounding error grows like log2 of its size (docs, section 9).
inline constexpr double kFftErrorFactor = 2.0;
double gamma_bound(std::int64_t n);  // n u / (1 - n u)
double error_factor(int filter_size, PaddedShape shape);
course::Tolerance convolution_tolerance(const Image& image, const Filter& filter, PaddedShape shape,
                                        std::span<const double> reference);
// The tolerance in words with its numbers, for the lesson's header line.
std::string describe_tolerance(const Image& image, const Filter& filter, PaddedShape shape);
// Pixels within r of the edge, where zero padding matters, checked on their own.
std::vector<std::size_t> border_indices(int height, int width, int filter_size);
course::VerifyResult verify_border(std::span<const float> result, std::span<const double> reference,
                                   int height, int width, const Filter& filter, course::Tolerance tolerance);

// ---- GPU: the registry -------------------------------------------------------------------------

// Where a GPU method finds its data. The device buffers are owned by the caller and filled in
// before setup() runs. The FFT methods' size: *padded if given and set (read at setup), else measured
// (gpu::choose_padding) if measure_padding, else the smallest fast shape.
struct GpuProblem {
  int width = 0, height = 0;
  const Filter* filter = nullptr;
  const course::DeviceBuffer<float>* input = nullptr;  // height x width
  course::DeviceBuffer<float>* output = nullptr;       // height x width, every pixel written
  const PaddedShape* padded = nullptr;
  bool measure_padding = false;
};
PaddedShape fft_shape(const GpuProblem& problem, cudaStream_t stream);  // the rule above (kernels/fft_steps.cu)

// One GPU method: made cheaply (no CUDA call), asked whether it applies to the filter, set up
// once (plans, the filter's spectrum, constant memory: untimed, reported as setup time), then run
// many times (enqueued in a stream, device-resident, timed).
class GpuConvolver {
 public:
  virtual ~GpuConvolver() = default;
  // Why this method cannot convolve with this filter ("the filter is not separable"), or "".
  virtual std::string unsupported() const { return ""; }
  virtual void setup(cudaStream_t stream) = 0;
  virtual void run(cudaStream_t stream) = 0;
  // After setup: the method's shape in words ("FFT 4116 x 4116, plan work areas 130 MiB").
  virtual std::string note() const { return ""; }
  // A memory-bound method's ideal DRAM traffic per image pixel (8: read once, written once), the
  // bytes its row is held against the device copy with; 0 for an FFT method, held against one
  // cuFFT R2C + C2R pair instead.
  virtual double bytes_per_pixel() const { return 0; }
  // A direct method's arithmetic per image pixel (2 K^2 flops: K^2 multiply-adds), 0 otherwise:
  // where it exceeds what the device copy can feed (large K), the row is held against the FP32
  // FMA ceiling in GFLOP/s instead of the copy.
  virtual double flops_per_pixel() const { return 0; }
};

// One line per kernel of kernels/registry.inc: std::unique_ptr<GpuConvolver> launch_direct_tiled(const GpuProblem&); ...
#define COURSE_KERNEL(name, summary, ...) std::unique_ptr<GpuConvolver> launch_##name(const GpuProblem& problem);
#include "kernels/registry.inc"
#include "exercises/registry.inc"
#undef COURSE_KERNEL

using Launcher = std::unique_ptr<GpuConvolver> (*)(const GpuProblem&);

// The registry: every method above with what it is (course::KernelTraits: the headline, the
// teaching row expected to fail), in the order of the progression. kernels() and kernel(name).
inline constexpr course::KernelEntry<Launcher> kKernelTable[] = {
#define COURSE_KERNEL COURSE_KERNEL_ENTRY
#include "kernels/registry.inc"
#include "exercises/registry.inc"  // the "make it fast" exercise: runs only when --kernel names it
#undef COURSE_KERNEL
};
COURSE_KERNEL_ACCESSORS(Launcher, kKernelTable)

namespace detail {
// A fresh number per filter upload: kernels that keep their filter in constant memory (one
// copy per program) compare it with what they uploaded last, and upload again before they run
// if another convolver's filter is there now.
inline int next_filter_id() {
  static int last = 0;
  return ++last;
}
}  // namespace detail

// The largest filter the direct GPU kernel holds in constant memory (with its tile's halo in
// 48 KiB of shared memory). The separable kernel takes any size up to kMaxFilterSize.
inline constexpr int kMaxDirectFilterSize = 63;

// Kernel 05's load callback, compiled by NVRTC to LTO-IR for compute capability `architecture`
// (90 for 9.0; the highest NVRTC target not above it). Needs no GPU: a test compiles it anywhere.
inline constexpr const char* kProductCallbackName = "multiply_by_filter_spectrum";
std::vector<char> product_callback_lto_ir(int architecture);
// Kernel 08's padding (R2C load) and crop (C2R store) callbacks, compiled the same way.
struct FusedCallbacks {
  std::vector<char> pad, crop;
};
FusedCallbacks fused_callbacks_lto_ir(int architecture);

// Kernel 17's tile shapes (overlap-save): the powers of two it times, smallest first, each side at
// least max(32, 4 (K - 1)) and none beyond the one that holds the whole side; and the method with
// a fixed tile (tests: a tile smaller than the filter, or a side of 1, is refused in unsupported()).
std::vector<PaddedShape> overlap_save_tiles(int height, int width, int filter_size);
std::unique_ptr<GpuConvolver> make_overlap_save(const GpuProblem& problem, PaddedShape tile);
// Kernel 18's callbacks (the gather as the batched R2C's load, the product and the scatter as the
// C2R's load and store), compiled like kernel 08's; and the method with a fixed tile (tests).
struct TileCallbacks {
  std::vector<char> gather, product, scatter;
};
TileCallbacks overlap_save_callbacks_lto_ir(int architecture);
std::unique_ptr<GpuConvolver> make_overlap_save_fused(const GpuProblem& problem, PaddedShape tile);

// GPU helpers the FFT methods share (kernels/fft_steps.cu).
namespace gpu {
// Fastest of the padding candidates for an R2C + C2R pair on this GPU, and that pair's median time.
struct PaddingChoice {
  PaddedShape shape;
  double pair_ms = 0;
  std::string measured;  // every candidate with its time, for the note
};
PaddingChoice choose_padding(int height, int width, int filter_size, cudaStream_t stream, int reps);
// The median time of one R2C + C2R pair at `shape` (device-resident, events): the FFT ceiling.
double time_fft_pair(PaddedShape shape, cudaStream_t stream, int reps);
}  // namespace gpu

}  // namespace fft_convolve
