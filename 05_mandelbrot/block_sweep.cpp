// Lesson 05: the fast kernel at many block shapes, each verified, then timed.
//
// Teaches: for a compute-bound kernel with uneven work per pixel, the block shape decides which
// pixels share a warp. A warp runs until its slowest pixel is done, so 32 pixels in one row
// (32x8, 32x1) or in a 8x4 patch (8x8) share much of their work, while a warp that is one column
// of 32 rows (1x32) spans a tall strip, mixes more inside and outside pixels, and writes 32
// different rows (uncoalesced stores; cheap here, the kernel barely touches memory).
#include <vector>

#include "course/check.hpp"
#include "course/device_buffer.hpp"
#include "mandelbrot.hpp"

namespace mandelbrot {

template <class T>
std::vector<SweepPoint> run_block_sweep(const Frame<T>& frame, int max_iters,
                                        std::span<const std::uint32_t> reference,
                                        const course::RepeatOptions& repeat, cudaStream_t stream) {
  const std::size_t pixels = static_cast<std::size_t>(frame.width) * static_cast<std::size_t>(frame.height);
  course::DeviceBuffer<std::uint32_t> d_counts(pixels, "escape counts (sweep)");
  std::vector<std::uint32_t> counts(pixels);

  std::vector<LaunchShape> shapes;
  for (const Shape& block : sweep_block_shapes()) shapes.push_back({block, {0, 0}});
  shapes.push_back({{32, 8}, {32, 16}});  // the classic: a fixed grid, each thread loops over many pixels

  std::vector<SweepPoint> points;
  for (const LaunchShape& shape : shapes) {
    SweepPoint point;
    point.shape = shape;
    d_counts.poison(stream);  // 0xFFFFFFFF: above any max_iters, so an unwritten pixel fails
    point.launch = launch_mandelbrot(Kernel::fast, d_counts.data(), frame, max_iters, shape, stream);
    CUDA_CHECK(cudaStreamSynchronize(stream));
    d_counts.copy_to_host(counts);
    point.check = check_counts(counts, reference, max_iters, 0.0);
    point.time = course::time_device(repeat, stream, [&] {
      launch_mandelbrot(Kernel::fast, d_counts.data(), frame, max_iters, shape, stream);
    });
    points.push_back(std::move(point));
  }
  return points;
}

template std::vector<SweepPoint> run_block_sweep<float>(const Frame<float>&, int, std::span<const std::uint32_t>,
                                                        const course::RepeatOptions&, cudaStream_t);
template std::vector<SweepPoint> run_block_sweep<double>(const Frame<double>&, int, std::span<const std::uint32_t>,
                                                         const course::RepeatOptions&, cudaStream_t);

}  // namespace mandelbrot
