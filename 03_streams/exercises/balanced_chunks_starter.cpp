// Exercise 2 (lesson 03, runs without a GPU), find the bug: n elements in balanced chunks.
//
// split_chunks_starter(n, chunks) cuts n elements into `chunks` contiguous chunks, in order, for
// the streams to copy and compute one after another (the lesson's split_chunks, chunks.cpp):
//   - every element in exactly one chunk, the chunks in order (each starts where the last ended);
//   - exactly `chunks` chunks, none empty, no two differing by more than one element (a short
//     last chunk would leave the pipeline's last stages with almost nothing to overlap);
//   - std::invalid_argument unless 1 <= chunks <= n.
// The check compares the chunks with these rules for every n up to 64 and every chunk count, and
// for a few large n.
//
// As shipped, it is the usual first attempt: chunks of ceil(n / chunks), whatever is left for the
// last one. Find what goes wrong and fix it.
// Check it:   ./scripts/check_exercise.sh 03 balanced_chunks      (a hint: add --hint)
#include <algorithm>
#include <stdexcept>
#include <string>

#include "exercises/exercises.hpp"

namespace streams::exercises {

std::vector<Chunk> split_chunks_starter(std::size_t n, std::size_t chunks) {
  if (chunks == 0 || chunks > n) {
    throw std::invalid_argument("split_chunks: " + std::to_string(chunks) + " chunks for " + std::to_string(n) +
                                " elements (need 1 <= chunks <= elements)");
  }
  const std::size_t size = (n + chunks - 1) / chunks;  // ceil(n / chunks)
  std::vector<Chunk> result(chunks);
  for (std::size_t i = 0; i < chunks; ++i) {
    const std::size_t offset = std::min(n, i * size);
    result[i] = {offset, std::min(size, n - offset)};  // the last chunk: whatever is left
  }
  return result;
}

}  // namespace streams::exercises
