// Lesson 02, parts 1 and 2: the classic demo as a verified row, and the block-size limit.
//
// Teaches: part 1 is where CUDA programs start (one block, i = threadIdx.x), checked like every
// other result; part 2 shows where that indexing stops (1024 threads per block) and that a
// refused launch is silent unless cudaGetLastError() is asked right after <<<>>>.
#include "demos.hpp"

#include <cstdio>
#include <span>
#include <vector>

#include "course/check.hpp"
#include "course/random.hpp"
#include "elementwise_add.hpp"

namespace elementwise_add {

namespace {

constexpr int kTooManyThreads = 2048;  // part 2: twice the 1024 every current GPU allows

struct Part1 {
  std::vector<float> a, b, dest, expected;
  course::DeviceBuffer<float> d_a, d_b, d_dest;
};

}  // namespace

void add_part1(course::Lesson& lesson, std::uint64_t seed) {
  const std::size_t n = kMultiplyLength;
  // The row's own setup step: a and b made, a * b on the CPU, a, b and dest on the GPU.
  auto& part1 = lesson.add_setup("", [n, seed] {
    Part1 p;
    p.a.resize(n), p.b.resize(n), p.dest.resize(n), p.expected.resize(n);
    course::fill_normal(p.a, seed);
    course::fill_normal(p.b, seed + 1);
    multiply_serial(p.a, p.b, p.expected);
    p.d_a = course::DeviceBuffer<float>(n, "part 1: a");
    p.d_b = course::DeviceBuffer<float>(n, "part 1: b");
    p.d_dest = course::DeviceBuffer<float>(n, "part 1: dest");
    p.d_a.copy_from_host(p.a);
    p.d_b.copy_from_host(p.b);
    return p;
  });
  course::Check check;
  check.poison = [&part1] { part1->d_dest.poison(); };
  check.verify = [&part1] {
    Part1& p = part1.get();
    p.d_dest.copy_to_host(p.dest);
    const course::VerifyResult result = course::verify(
        std::span<const float>(p.dest), course::reference_of(std::span<const float>(p.expected)), course::Tolerance::exact());
    std::printf("\nPart 1, the classic demo: multiply_them, dest[i] = a[i] * b[i] with i = threadIdx.x, 1 block of "
                "%d threads:\n  %s against the CPU's a * b (dest[0] = %.9g = %.9g x %.9g)\n",
                kMultiplyLength, result.summary().c_str(), p.dest[0], p.a[0], p.b[0]);
    return result;
  };
  lesson.add({.name = "GPU multiply_them, part 1 (400 elements, 1 block)", .target = course::Target::gpu,
              .setup = {part1},
              .run = [&part1](cudaStream_t s) {
                launch_multiply_them(part1->d_dest.data(), part1->d_a.data(), part1->d_b.data(), kMultiplyLength, s);
              },
              .check = check, .timed = false});
}

namespace {
nlohmann::json block_limit(const course::DeviceInfo& device, cudaStream_t stream) {
  const std::size_t n = kTooManyThreads;
  course::DeviceBuffer<float> d_a(n, "part 2: a"), d_b(n, "part 2: b"), d_c(n, "part 2: c");
  d_a.zero(stream);
  d_b.zero(stream);
  std::printf("Part 2, the block-size limit: add_one_block (i = threadIdx.x) as 1 block of %d threads:\n",
              kTooManyThreads);
  try {
    launch_add_one_block(d_a.data(), d_b.data(), d_c.data(), n, stream);
    CUDA_CHECK(cudaStreamSynchronize(stream));
    std::printf("  launched: this GPU allows %d threads per block (maxThreadsPerBlock)\n",
                device.max_threads_per_block);
    return {{"threads", kTooManyThreads}, {"refused", false}, {"max_threads_per_block", device.max_threads_per_block}};
  } catch (const course::ApiError& error) {
    if (!is_block_size_refusal(error)) throw;  // anything else is a real error
    std::printf("  refused, as expected: %s\n  This GPU allows at most %d threads per block (maxThreadsPerBlock): "
                "a kernel indexed by threadIdx.x alone stops there; add_indexed adds blockIdx.x * blockDim.x.\n",
                error.what(), device.max_threads_per_block);
    return {{"threads", kTooManyThreads},
            {"refused", true},
            {"error", error.code_name()},
            {"max_threads_per_block", device.max_threads_per_block}};
  }
}
}  // namespace

void run_part2(course::Lesson& lesson) {
  if (!lesson.has_gpu()) {
    std::printf("\nPart 2 (the block-size limit) skipped: %s\n", lesson.gpu().reason.c_str());
    return;
  }
  lesson.record("part2_block_limit", block_limit(*lesson.gpu().device, lesson.stream()));
}

}  // namespace elementwise_add
