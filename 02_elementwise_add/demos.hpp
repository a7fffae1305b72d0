// Lesson 02, the two demonstrations beside the progression (demos.cpp): part 1, the classic
// PyCUDA demo, as a verified row; part 2, the block-size limit, run once after the rows.
// Host code only: it uses the harness (CLI11, JSON), which no kernel file should compile.
#pragma once

#include <cstdint>

#include "course/harness.hpp"

namespace elementwise_add {

// Part 1: multiply_them, dest[i] = a[i] * b[i] with i = threadIdx.x, one block of 400 threads,
// checked exactly against the CPU's products. A row without a timing (400 elements say nothing
// about speed) that joins the verdict; its data is owned by the lesson, its device buffers made
// in its setup step.
void add_part1(course::Lesson& lesson, std::uint64_t seed);

// Part 2: add_one_block as one block of 2048 threads, twice what every current GPU allows. The
// launch is refused; CUDA_CHECK_LAUNCH turns the refusal into a course::ApiError, which is the
// expected outcome here, not a failure of the run. Prints what happened and records it in the
// report's JSON (extra.part2_block_limit); without a GPU, prints why it was skipped.
void run_part2(course::Lesson& lesson);

}  // namespace elementwise_add
