// Lesson 02, exercise 4, solution: each element of the pair has its own bounds check.
//
// For an odd n the last thread's pair is (n - 1, n): its first element is the array's last, its
// second lies one past the end. The starter tested only the first, so that thread read a[n] and
// b[n] and wrote c[n]. A check per element keeps every access inside the arrays; the sums were
// already right, which is why only a tool that watches the accesses could tell.
#include <cuda_runtime.h>

#include "course/check.hpp"
#include "exercises/exercises.hpp"

namespace elementwise_add::exercises {

namespace {

__global__ void add_pairs_checked(const float* a, const float* b, float* c, std::size_t n) {
  const std::size_t first = 2 * (static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x);
  if (first < n) c[first] = a[first] + b[first];
  if (first + 1 < n) c[first + 1] = a[first + 1] + b[first + 1];
}

}  // namespace

void launch_pair_tail_solution(const float* a, const float* b, float* c, std::size_t n, int block_size,
                               cudaStream_t stream) {
  if (n == 0) return;
  const std::size_t pairs = (n + 1) / 2;
  const auto blocks = static_cast<unsigned>((pairs + block_size - 1) / block_size);
  add_pairs_checked<<<blocks, block_size, 0, stream>>>(a, b, c, n);
  CUDA_CHECK_LAUNCH("add_pairs_checked (solution)");
}

}  // namespace elementwise_add::exercises
