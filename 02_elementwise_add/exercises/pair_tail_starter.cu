// Lesson 02, exercise 4 (find the bug, on a GPU): two elements per thread, and a bad access.
//
// add_pairs gives each thread two neighbouring elements, 2i and 2i + 1, so half as many threads
// cover the array. Its sums are right for every n, and the test that compares them with the CPU
// passes. Yet for some lengths it touches memory the program does not own: nothing checks that,
// and nothing crashes, today. compute-sanitizer's memcheck watches every access of the kernel and
// reports the bad one. The check runs the test under it:
//   ./scripts/check_exercise.sh 02 pair_tail          (FAIL names what memcheck reported)
// Find the bad access and fix it (one line). Hints: ./scripts/check_exercise.sh 02 pair_tail --hint
#include <cuda_runtime.h>

#include "course/check.hpp"
#include "exercises/exercises.hpp"

namespace elementwise_add::exercises {

namespace {

__global__ void add_pairs(const float* a, const float* b, float* c, std::size_t n) {
  const std::size_t first = 2 * (static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x);
  if (first < n) {
    c[first] = a[first] + b[first];
    c[first + 1] = a[first + 1] + b[first + 1];
  }
}

}  // namespace

void launch_pair_tail_starter(const float* a, const float* b, float* c, std::size_t n, int block_size,
                              cudaStream_t stream) {
  if (n == 0) return;
  const std::size_t pairs = (n + 1) / 2;  // a last, lone element gets a thread of its own
  const auto blocks = static_cast<unsigned>((pairs + block_size - 1) / block_size);
  add_pairs<<<blocks, block_size, 0, stream>>>(a, b, c, n);
  CUDA_CHECK_LAUNCH("add_pairs (starter)");
}

}  // namespace elementwise_add::exercises
