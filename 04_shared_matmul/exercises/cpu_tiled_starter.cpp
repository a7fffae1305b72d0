// Exercise 2 (lesson 04, runs without a GPU), find the bug: kernel 02's tiling, on the CPU.
//
// matmul_tiled_cpu_starter computes C = A x B (row-major, M x K times K x N) the way kernel 02's
// block does: for each kCpuTile x kCpuTile tile of C, it walks along K one tile at a time, copies
// a tile of A and a tile of B into two small arrays (the block's shared memory), and accumulates
// their product. Like shared memory, the two arrays keep whatever the previous tile left in them.
//
// As shipped it is right when M, N and K are multiples of the tile, and wrong at other shapes.
// Find the bug and fix it (the loops' structure can stay as it is).
// Check it:   ./scripts/check_exercise.sh 04 cpu_tiled      (a hint: add --hint)
#include <cstddef>

#include "exercises/exercises.hpp"

namespace matmul::exercises {

void matmul_tiled_cpu_starter(std::span<const float> a, std::span<const float> b, std::span<float> c, int m, int n,
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
        // Load the tiles: element (r, q) of each, where it lies inside its matrix.
        for (int r = 0; r < T; ++r) {
          for (int q = 0; q < T; ++q) {
            if (i0 + r < m && p0 + q < k) a_tile[r][q] = a[at(i0 + r, p0 + q, k)];
            if (p0 + r < k && j0 + q < n) b_tile[r][q] = b[at(p0 + r, j0 + q, n)];
          }
        }
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
