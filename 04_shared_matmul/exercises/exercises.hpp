// Lesson 04's exercises: each has a starter (what you edit) and a solution (what the tests check).
// Both are built into the test binary (add_lesson compiles exercises/*.cu there), never into the
// lesson's table: what the table measures is the progression in kernels/. The tests also run the
// starter as shipped and expect it to FAIL verification, so "it ran" is never taken for "it is right".
#pragma once

#include <cuda_runtime_api.h>

#include <span>

#include "matmul.hpp"

namespace matmul::exercises {

// Exercise 1: the classic tiled kernel (kernel 02) with the tile size a compile-time parameter,
// launched with kExerciseTile x kExerciseTile tiles.
inline constexpr int kExerciseTile = 16;
void launch_tiled_starter(const MatmulArgs& args, cudaStream_t stream);
void launch_tiled_solution(const MatmulArgs& args, cudaStream_t stream);

}  // namespace matmul::exercises

namespace matmul::exercises {

// Exercise 2 (CPU, find the bug): kernel 02's tiling on the CPU, tiles of kCpuTile x kCpuTile in
// two small arrays that play the block's shared memory. See cpu_tiled_starter.cpp.
inline constexpr int kCpuTile = 16;
void matmul_tiled_cpu_starter(std::span<const float> a, std::span<const float> b, std::span<float> c, int m, int n,
                              int k);
void matmul_tiled_cpu_solution(std::span<const float> a, std::span<const float> b, std::span<float> c, int m, int n,
                               int k);

}  // namespace matmul::exercises

namespace matmul::exercises {

// Find the bug, on a GPU: kernel 02 (tiled_shared) with one line taken out; its products are
// often right, compute-sanitizer's racecheck shows what is wrong. See tile_barrier_starter.cu.
void launch_tile_barrier_starter(const MatmulArgs& args, cudaStream_t stream);
void launch_tile_barrier_solution(const MatmulArgs& args, cudaStream_t stream);

}  // namespace matmul::exercises
