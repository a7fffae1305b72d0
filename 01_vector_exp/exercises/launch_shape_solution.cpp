// Exercise 4, a solution: the blocks of a grid-stride launch (step 1's ceil(n / block), capped).
#include <algorithm>

#include "exercises/exercises.hpp"

namespace vector_exp::exercises {

unsigned blocks_for_solution(std::size_t n, unsigned block, unsigned max_blocks) {
  // [docs:launch_shape]
  // ceil(n / block) without (n + block - 1), which wraps around for n near SIZE_MAX.
  const std::size_t blocks = n / block + (n % block != 0 ? 1 : 0);
  return static_cast<unsigned>(std::min<std::size_t>(blocks, max_blocks));
  // [docs:end launch_shape]
}

}  // namespace vector_exp::exercises
