// Lesson 05: the Mandelbrot set, a compute-bound 2-D kernel. The lesson's API, shared by main.cpp
// and the tests (light: no command-line or JSON headers, so .cu files may include it).
//
//   mandelbrot_iteration.hpp  the iteration (CPU and GPU share it), natural and fused arithmetic
//   mandelbrot_cpu.cpp        CPU versions: one thread, OpenMP (dynamic schedule), OpenMP + SIMD
//   kernels/NN_name.cu        the GPU kernels, one per file, float and double, listed in
//                             kernels/registry.inc; kernels/pixel_grid.cuh their 2-D loops
//   counts.cpp                checking escape counts, their statistics, the image, views, launches
//   mandelbrot_lesson.hpp     what main.cpp assembles: options, references, ceilings, the sweep
//   exercises/                exercise 1, the Julia set: starter and solution (exercises.hpp)
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "course/image.hpp"
#include "course/kernel_registry.hpp"
#include "course/launch.hpp"
#include "course/precision.hpp"
#include "course/verify.hpp"
#include "mandelbrot_iteration.hpp"

namespace mandelbrot {

// ---- The problem --------------------------------------------------------------------------
// The classic version: 1536 x 1024 pixels over re [-2, 1] x im [-1, 1], 20 iterations,
// blocks of 32 x 8 threads in a grid of 32 x 16 blocks.
inline constexpr int kClassicWidth = 1536;
inline constexpr int kClassicHeight = 1024;
inline constexpr int kClassicIters = 20;

struct View {
  double x_min = -2, x_max = 1, y_min = -1, y_max = 1;
  std::string describe() const;  // "re [-2, 1] x im [-1, 1]"
};

// The view of the whole set at `zoom` (1 = 3 units wide) around a centre, with square pixels.
View view_from_centre(double re, double im, double zoom, int width, int height);

// The pixel spacing in T: dx = (x_max - x_min) / width, dy = (y_max - y_min) / height, computed
// in double and rounded once to T. CPU and GPU receive the same Frame, so the same c per pixel.
template <class T>
Frame<T> make_frame(const View& view, int width, int height) {
  Frame<T> frame;
  frame.width = width;
  frame.height = height;
  frame.x_min = static_cast<T>(view.x_min);
  frame.y_max = static_cast<T>(view.y_max);
  frame.dx = static_cast<T>((view.x_max - view.x_min) / width);
  frame.dy = static_cast<T>((view.y_max - view.y_min) / height);
  return frame;
}

// Pixels must be at least this many units in the last place (ULP) of the view's largest
// coordinate apart. Closer than that, neighbouring pixels share most of their bits, rounding
// in the iteration dominates, and the picture is noise: the lesson refuses such a zoom.
inline constexpr double kMinUlpsPerPixel = 8;
// Empty when `precision` resolves the view at this size; otherwise one line saying why not.
std::string precision_problem(const View& view, int width, int height, course::Precision precision);

// ---- CPU (mandelbrot_cpu.cpp) ---------------------------------------------------------------
enum class Arithmetic { natural, fused };
enum class CpuMethod {
  serial,       // one thread, one pixel at a time (a teaching row)
  openmp,       // all cores, rows handed out dynamically, one pixel at a time
  openmp_simd,  // all cores, and each core iterates a chunk of pixels in SIMD lanes
};
// counts[row * width + col] = escape count of pixel (col, row). Every method gives the same counts.
template <class T>
void render_cpu(const Frame<T>& frame, int max_iters, Arithmetic arithmetic, CpuMethod method,
                std::span<std::uint32_t> counts);
// The SIMD instruction set the openmp_simd method runs with on this CPU ("AVX2+FMA", "SSE2").
std::string cpu_simd_description();

// ---- Launches (counts.cpp) -------------------------------------------------------------------
// A block's threads or a grid's blocks in x and y, as --block and --grid take them ("32x8").
struct Extent {
  int x = 0, y = 0;
  std::string describe() const;  // "32x8"
};
// "32x8" -> {32, 8}; throws course::UsageError naming `flag` for anything else.
Extent parse_extent(const std::string& text, const std::string& flag);

// The launch asked for: `block` threads per block, and `grid` blocks, or {0, 0} for one thread per
// pixel (as many blocks as cover the image). The classic: blocks of 32x8, a grid of 32x16.
course::LaunchShape launch_of(Extent block, Extent grid = {0, 0});
// The launch a kernel makes of the one asked for; throws course::UsageError for a block over 1024
// threads, a block or grid dimension out of range (block y <= 1024, grid y <= 65535).
course::LaunchShape plan_launch(const course::LaunchShape& asked, int width, int height);

// ---- GPU: the kernels (kernels/NN_name.cu, one line each in kernels/registry.inc) -------------
// What every launcher receives: where the counts go (device memory, width * height values), the
// frame, the iteration limit and the launch asked for. It enqueues its kernel in `stream`, checks
// the launch, and returns the launch it made.
template <class T>
struct RenderArgs {
  std::uint32_t* counts = nullptr;
  Frame<T> frame;
  int max_iters = 0;
  course::LaunchShape shape{.blocks = 0, .threads = 32, .blocks_y = 0, .threads_y = 8};  // the classic's blocks
};
template <class T>
using RenderFn = course::LaunchShape (*)(const RenderArgs<T>& args, cudaStream_t stream);

// What a kernel's counts are held against and what one iteration costs, stated in its own file
// next to its code (facts_<name>):
//  - fused arithmetic: equal to the CPU's fused reference, pixel for pixel; natural arithmetic:
//    nvcc contracts it into FMAs and the CPU does not, so a bounded fraction of the pixels may
//    differ from the CPU's natural arithmetic (natural_mismatch_bound);
//  - the FP instructions of one iteration of its loop: the FMA ceiling in iterations per second
//    is the measured FMA rate / 2 / this.
struct KernelFacts {
  Arithmetic arithmetic = Arithmetic::fused;
  double fp_per_iteration = 0;
};

// A registry entry's launcher: the kernel's float and double instantiations and its facts.
struct Launcher {
  course::TypedLauncher<RenderFn> render;
  const KernelFacts* facts = nullptr;
  template <class T>
  RenderFn<T> get() const {
    return render.get<T>();
  }
};
using KernelEntry = course::KernelEntry<Launcher>;

#define COURSE_KERNEL(name, summary, ...)                                                    \
  template <class T>                                                                         \
  course::LaunchShape launch_##name(const RenderArgs<T>& args, cudaStream_t stream);         \
  extern const KernelFacts facts_##name;
#include "kernels/registry.inc"
#undef COURSE_KERNEL

// The registry: every kernel above, in the order of the progression, with its traits (the
// headline, the precisions it runs in); kernels() is the table, kernel(name) one entry.
inline constexpr KernelEntry kKernelTable[] = {
#define COURSE_KERNEL(name, summary, ...)                                                            \
  {#name, summary, ::course::KernelTraits{__VA_ARGS__}, {{&launch_##name<float>, &launch_##name<double>}, \
                                                         &facts_##name}},
#include "kernels/registry.inc"
#undef COURSE_KERNEL
};
COURSE_KERNEL_ACCESSORS(Launcher, kKernelTable)

// ---- Escape counts (counts.cpp) -------------------------------------------------------------
// Escape counts are integers: a pixel's count is right or off by at least one iteration. The
// check is course::verify_integers: exact, or with at most `allowed_fraction` of the pixels
// different, each by at most max_iters, so a pixel nothing wrote (poison: 4,294,967,295) fails
// whatever the fraction.
course::IntegerTolerance count_tolerance(double allowed_fraction, int max_iters);
course::VerifyResult check_counts(std::span<const std::uint32_t> result, std::span<const std::uint32_t> reference,
                                  int max_iters, double allowed_fraction);

// The fraction of pixels whose counts may differ between the classic kernel (natural arithmetic,
// contracted by nvcc) and the CPU (natural arithmetic, not contracted). A last-bit difference in z
// grows by about |2z| per iteration, so the more iterations, the more boundary pixels flip. Measured
// on an H200 (docs/05_mandelbrot.md): none at the classic 20 iterations; at 1000, 0.3% (full view)
// to 3.8% (seahorse valley) in FP32 and 0.007% to 0.045% in FP64; 3% in FP64 at 8000 iterations in
// a deep zoom. The bounds (0.1% / 0.01% up to 100 iterations, 10% / 1% up to 1000, 25% beyond) sit
// above those; the fast kernel (fused arithmetic) is held to exact equality.
double natural_mismatch_bound(course::Precision precision, int max_iters);

struct CountStats {
  std::uint64_t iterations = 0;            // sum of escape counts: the iterations really executed
  std::size_t pixels = 0;
  std::size_t interior_pixels = 0;         // count == max_iters
  std::uint64_t interior_iterations = 0;
  double interior_pixel_fraction() const { return pixels ? static_cast<double>(interior_pixels) / pixels : 0; }
  double interior_iteration_fraction() const {
    return iterations ? static_cast<double>(interior_iterations) / static_cast<double>(iterations) : 0;
  }
};
CountStats count_stats(std::span<const std::uint32_t> counts, int max_iters);

// The counts as an 8-bit grey image: interior (max_iters) black, the others spread over 1..255 on
// a log scale between the lowest and highest count outside the set in this image (a deep zoom
// has counts from 2,000 to 3,000, say, and would be one flat colour on a scale from 0).
struct ShadeRange {
  std::uint32_t low = 0, high = 0;  // lowest and highest count below max_iters
};
ShadeRange shade_range(std::span<const std::uint32_t> counts, int max_iters);
course::Image shade(std::span<const std::uint32_t> counts, int width, int height, int max_iters);
// The header comment that tells draw_counts.py where the image sits in the complex plane
// and which counts its grey levels stand for.
std::string image_comment(const View& view, int max_iters, course::Precision precision, ShadeRange range,
                          const std::string& source);
// Writes the counts as an image, atomically: ".png" through the course colour map (grey levels with
// `gray`), ".pgm" grey levels, ".ppm" the colour map.
void write_counts_image(const std::string& path, std::span<const std::uint32_t> counts, int width, int height,
                        int max_iters, const std::string& comment, bool gray = false);
// The same, histogram-equalised (--colour equalised): grey levels by histogram::equalise, the
// comment's "shade:" line saying so.
void write_equalised_image(const std::string& path, std::span<const std::uint32_t> counts, int width, int height,
                           int max_iters, const std::string& comment, bool gray = false);
// Throws course::UsageError when `path` cannot be an image output (wrong extension, --gray with
// .ppm, no folder).
void check_image_path(const std::string& path, bool gray = false);

// ---- Exercise 1 (exercises/) ----------------------------------------------------------------
// The Julia set of constant k: z starts at the pixel and z = z^2 + k repeats (fused arithmetic),
// counted like the Mandelbrot set. The GPU solution and a CPU reference the tests compare with.
template <class T>
MANDEL_HD inline std::uint32_t julia_count(T zx, T zy, T kx, T ky, int max_iters) {
  T x = zx, y = zy;
  for (int i = 0; i < max_iters; ++i) {
    if (Fused<T>::escaped(x, y)) return static_cast<std::uint32_t>(i);
    Fused<T>::step(x, y, kx, ky);
  }
  return static_cast<std::uint32_t>(max_iters);
}
void julia_cpu(const Frame<float>& frame, float kx, float ky, int max_iters, std::span<std::uint32_t> counts);

}  // namespace mandelbrot
