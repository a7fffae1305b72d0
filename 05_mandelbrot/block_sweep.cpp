// Lesson 05, the block-shape sweep (--sweep blocks): the headline kernel at many block shapes,
// each point a harness sweep point (poisoned, run, verified exactly, timed), so a failed shape
// fails the run.
//
// Teaches: for a compute-bound kernel with uneven work per pixel, the block shape decides which
// pixels share a warp. A warp runs until its slowest pixel is done, so 32 pixels in one row
// (32x8, 32x1) or in a 8x4 patch (8x8) share much of their work, while a warp that is one column
// of 32 rows (1x32) spans a tall strip, mixes more inside and outside pixels, and writes 32
// different rows (uncoalesced stores; cheap here, the kernel barely touches memory). The axis is
// the block's width: one line per block size, from one column (1 x 256) to one row (256 x 1).
#include <algorithm>
#include <memory>

#include "mandelbrot_lesson.hpp"

namespace mandelbrot {

namespace {

struct BlockShape {
  Extent block;
  Extent grid;  // {0, 0}: one thread per pixel
};

// 11 shapes with one thread per pixel, and the classic: a fixed grid of 32x16 blocks of 32x8,
// each thread looping over many pixels.
const std::vector<BlockShape>& block_shapes() {
  static const std::vector<BlockShape> shapes = {
      {{32, 8}, {}},  {{16, 16}, {}}, {{8, 8}, {}},  {{32, 1}, {}},  {{1, 32}, {}},  {{64, 4}, {}},
      {{128, 1}, {}}, {{8, 32}, {}},  {{32, 32}, {}}, {{256, 1}, {}}, {{4, 64}, {}},  {{32, 8}, {32, 16}}};
  return shapes;
}

std::string label(const BlockShape& shape) {
  return std::to_string(shape.block.x * shape.block.y) + " threads per block" +
         (shape.grid.x > 0 ? ", the classic's grid of " + shape.grid.describe() + " blocks" : "");
}

template <class T>
course::Variant point(LessonData& in, PrecisionRun& run, const BlockShape& shape, std::vector<std::uint32_t>& host) {
  const KernelEntry& kernel = course::headline_kernel(in.kernels(), run.precision);
  RenderArgs<T> args{nullptr, run.frame<T>(), in.problem.iters, launch_of(shape.block, shape.grid)};
  const course::LaunchShape planned = plan_launch(args.shape, args.frame.width, args.frame.height);
  return {.name = label(shape), .target = course::Target::gpu, .group = run.group(),
          .work = static_cast<double>(run.stats.iterations), .ceiling = fma_ceiling_name(run.precision, kernel),
          .setup = {*in.on_device},
          .run = [&d_counts = in.d_counts, args, go = kernel.launch.get<T>()](cudaStream_t stream) mutable {
            args.counts = d_counts.data();
            go(args, stream);
          },
          .check = check_kernel(*kernel.launch.facts, run, in.problem.iters, in.d_counts, host),
          .note = shape.block.describe() + ": " + planned.describe()};
}

}  // namespace

course::Sweep block_sweep(LessonData& data) {
  std::vector<std::int64_t> widths;
  for (const BlockShape& shape : block_shapes()) widths.push_back(shape.block.x);
  std::sort(widths.begin(), widths.end());
  widths.erase(std::unique(widths.begin(), widths.end()), widths.end());
  auto host = std::make_shared<std::vector<std::uint32_t>>();  // the points' counts on the host, made when it runs
  const std::string kernel(course::headline_kernel(data.kernels(), data.runs.front().precision).name);
  return {.name = "blocks",
          .axis = "block width (threads in x)",
          .values = widths,
          .points =
              [&data, host](std::int64_t width) {
                if (host->empty()) host->resize(data.problem.pixels());
                std::vector<course::Variant> points;
                for (PrecisionRun& run : data.runs) {
                  for (const BlockShape& shape : block_shapes()) {
                    if (shape.block.x != width) continue;
                    points.push_back(run.precision == course::Precision::fp32 ? point<float>(data, run, shape, *host)
                                                                              : point<double>(data, run, shape, *host));
                  }
                }
                return points;
              },
          .target = course::Target::gpu,
          .title = kernel + " at 11 block shapes (one thread per pixel) and the classic's fixed grid, each verified"};
}

}  // namespace mandelbrot
