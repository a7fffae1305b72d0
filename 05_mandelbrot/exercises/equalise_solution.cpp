// Exercise 2, a solution: the equalised grey level of one pixel (histogram.hpp's equalised_level).
#include "exercises/exercises.hpp"

namespace mandelbrot::exercises {

std::uint8_t equalised_level_solution(std::uint32_t count, std::span<const std::uint32_t> cdf, int max_iters) {
  const auto interior = static_cast<std::uint32_t>(max_iters);
  if (count >= interior) return 0;                  // the set's interior: black
  const std::uint64_t outside = cdf[interior - 1];  // every pixel outside the set
  if (outside == 0) return 0;
  return static_cast<std::uint8_t>(1 + 254 * static_cast<std::uint64_t>(cdf[count]) / outside);
}

}  // namespace mandelbrot::exercises
