// Exercise 2, a solution: kernel 02's tiling on the CPU, with zeros loaded outside the matrices.
#include <cstddef>

#include "exercises/exercises.hpp"

namespace matmul::exercises {

void matmul_tiled_cpu_solution(std::span<const float> a, std::span<const float> b, std::span<float> c, int m, int n,
                              int k) {
  constexpr int T = kCpuTile;
  const auto at = [](int row, int col, int cols) {
    return static_cast<std::size_t>(row) * static_cast<std::size_t>(cols) + static_cast<std::size_t>(col);
  };
  float a_tile[T][T] = {}, b_tile[T][T] = {};  // the "shared memory": set once, reused by every tile
  for (int i0 = 0; i0 < m; i0 += T) {
    for (int j0 = 0; j0 < n; j0 += T) {
      float acc[T][T] = {};  // one accumulator per "thread" of the block
      for (int p0 = 0; p0 < k; p0 += T) {
        // [docs:cpu_tiled_load]
        // Load the tiles: element (r, q) of each where it lies inside its matrix, else 0 (a product
        // with a zero adds nothing), never what the previous tile left there.
        for (int r = 0; r < T; ++r) {
          for (int q = 0; q < T; ++q) {
            a_tile[r][q] = i0 + r < m && p0 + q < k ? a[at(i0 + r, p0 + q, k)] : 0.0f;
            b_tile[r][q] = p0 + r < k && j0 + q < n ? b[at(p0 + r, j0 + q, n)] : 0.0f;
          }
        }
        // [docs:end cpu_tiled_load]
        // Every "thread" (r, q): its dot product over the tile's K.
        for (int r = 0; r < T; ++r) {
          for (int q = 0; q < T; ++q) {
            for (int p = 0; p < T; ++p) acc[r][q] += a_tile[r][p] * b_tile[p][q];
          }
        }
      }
      for (int r = 0; r < T && i0 + r < m; ++r) {
        for (int q = 0; q < T && j0 + q < n; ++q) c[at(i0 + r, j0 + q, n)] = acc[r][q];
      }
    }
  }
}

}  // namespace matmul::exercises
