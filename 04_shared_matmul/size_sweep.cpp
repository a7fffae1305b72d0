// Lesson 04, the size sweep (--sweep size): cuBLAS and every selected kernel at square sizes from
// 256 to 8192. Each point goes through the harness like a row (poisoned, run, verified against
// the double product of its own size, timed), so a failed point fails the run: the table, the
// JSON and the exit code all say so. scripts/plot.py draws it (04_shared_matmul_size_sweep.png).
//
// Teaches: a kernel's GFLOP/s depends on the size. A small product does not fill the GPU (at
// 256^3 a kernel with 128 x 128 tiles launches 4 blocks), and each kernel's tile choices pay off
// only once there are enough tiles for every SM; cuBLAS picks a different kernel for each shape.
// The FP32 FMA loop, measured in the same run, is the line none of them can cross.
#include <algorithm>
#include <cstdint>
#include <memory>

#include "course/random.hpp"
#include "matmul_lesson.hpp"

namespace matmul {

namespace {

// One size's data, made by the setup step of its first point (timed and reported apart from the
// point's time) and shared by all of its points; freed when they have run.
struct SizeData {
  Shape shape;
  std::vector<float> a, b, c;
  Reference reference;
  course::DeviceBuffer<float> d_a, d_b, d_c;

  void prepare(std::uint64_t seed) {
    course::require_device_memory(3 * shape.c_count() * sizeof(float), "the sweep's A, B and C at " + shape.text());
    a.resize(shape.a_count()), b.resize(shape.b_count()), c.resize(shape.c_count());
    course::fill_normal(a, seed + static_cast<std::uint64_t>(shape.m));
    course::fill_normal(b, seed + static_cast<std::uint64_t>(shape.m) + 1);
    reference = reference_product(a, b, shape.m, shape.n, shape.k);
    d_a = course::DeviceBuffer<float>(shape.a_count(), "A (sweep)");
    d_b = course::DeviceBuffer<float>(shape.b_count(), "B (sweep)");
    d_c = course::DeviceBuffer<float>(shape.c_count(), "C (sweep)");
    d_a.copy_from_host(a);  // a synchronous copy: it has landed before any kernel reads A
    d_b.copy_from_host(b);
  }
  MatmulArgs args() const { return {shape.m, shape.n, shape.k, d_a.data(), d_b.data(), d_c.data()}; }
};

// The data is made when the first point runs, so the check reads it then, not now.
course::Check check_of(const std::shared_ptr<SizeData>& data) {
  return {[data] { data->d_c.poison(); },
          [data] {
            data->d_c.copy_to_host(data->c);
            return verify_product(data->c, data->reference);
          }};
}

std::vector<course::Variant> points_at(const SweepContext& context, std::int64_t size) {
  auto data = std::make_shared<SizeData>();
  data->shape = {static_cast<int>(size), static_cast<int>(size), static_cast<int>(size)};
  const course::CommonOptions& options = context.lesson.options();
  const course::RepeatOptions repeat{1, std::min(options.reps, 10)};
  std::vector<course::Variant> points;
  auto& prepare = context.lesson.add_setup("", [data, seed = options.seed] { data->prepare(seed); });
  points.push_back({.name = "GPU cuBLAS SGEMM (FP32, TF32 off)", .target = course::Target::gpu,
                    .work = data->shape.flops(), .ceiling = "fp32_fma", .setup = {prepare, context.cublas},
                    .run = [data, &cublas = context.cublas](cudaStream_t stream) {
                      const MatmulArgs args = data->args();
                      course::sgemm_row_major(cublas.get(), args.m, args.n, args.k, args.a, args.b, args.c, stream);
                    },
                    .check = check_of(data), .repeat = repeat});
  for (const course::KernelEntry<Launcher>* kernel : context.kernels) {
    course::RepeatOptions capped = repeat;  // a slow kernel's cap (its registry line), as in the rows
    if (kernel->traits.max_reps > 0) capped.reps = std::min(capped.reps, kernel->traits.max_reps);
    points.push_back({.name = "GPU " + std::string(kernel->name), .target = course::Target::gpu,
                      .work = data->shape.flops(), .ceiling = "fp32_fma",
                      .run = [data, launch = kernel->launch](cudaStream_t stream) { launch(data->args(), stream); },
                      .check = check_of(data), .repeat = capped});
  }
  return points;
}

}  // namespace

course::Sweep size_sweep(SweepContext context) {
  return {.name = "size",
          .axis = "M = N = K",
          .values = {std::begin(kSweepSizes), std::end(kSweepSizes)},
          .points = [context](std::int64_t size) { return points_at(context, size); },
          .target = course::Target::gpu,
          .title = "cuBLAS and the kernels at square sizes, each verified against its own double product"};
}

}  // namespace matmul
