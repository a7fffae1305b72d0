// Exercise 4 (lesson 01, runs without a GPU), find the bug: the launch shape of a grid-stride kernel.
//
// blocks_for_starter(n, block, max_blocks) is the number of blocks of `block` threads the host
// launches for a grid-stride loop over n elements (step 2's kernel):
//   - enough blocks for one element per thread, ceil(n / block), so no element is left out;
//   - but never more than max_blocks (the resident blocks): the loop's stride covers the rest;
//   - 0 when n == 0 (the caller then launches nothing).
// The check simulates the grid-stride loop on the CPU (every thread index, every step of its
// loop) and counts how often each element is visited: exactly once, for n from 1 to 2^40.
//
// As shipped, some lengths leave elements unvisited. Find the bug and fix it.
// Check it:   ./scripts/check_exercise.sh 01 launch_shape      (a hint: add --hint)
#include <algorithm>

#include "exercises/exercises.hpp"

namespace vector_exp::exercises {

unsigned blocks_for_starter(std::size_t n, unsigned block, unsigned max_blocks) {
  const std::size_t blocks = n / block;
  return static_cast<unsigned>(std::min<std::size_t>(blocks, max_blocks));
}

}  // namespace vector_exp::exercises
