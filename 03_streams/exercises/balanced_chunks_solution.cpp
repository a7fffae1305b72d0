// Exercise 2, a solution: n = q * chunks + r, the first r chunks one element longer (chunks.cpp).
#include <stdexcept>
#include <string>

#include "exercises/exercises.hpp"

namespace streams::exercises {

std::vector<Chunk> split_chunks_solution(std::size_t n, std::size_t chunks) {
  if (chunks == 0 || chunks > n) {
    throw std::invalid_argument("split_chunks: " + std::to_string(chunks) + " chunks for " + std::to_string(n) +
                                " elements (need 1 <= chunks <= elements)");
  }
  const std::size_t q = n / chunks, r = n % chunks;
  std::vector<Chunk> result(chunks);
  std::size_t offset = 0;
  for (std::size_t i = 0; i < chunks; ++i) {
    result[i] = {offset, q + (i < r ? 1 : 0)};
    offset += result[i].count;
  }
  return result;
}

}  // namespace streams::exercises
