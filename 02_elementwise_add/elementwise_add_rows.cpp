// Lesson 02: the plumbing around main.cpp's rows, declared in elementwise_add_rows.hpp (which
// says what they teach): the launch flags and the end-to-end row.
#include <algorithm>
#include <limits>
#include <string>

#include "elementwise_add_rows.hpp"

namespace elementwise_add {

void add_launch_options(CLI::App& cli, LaunchConfig& launch) {
  cli.add_option("--block", launch.block_size, "threads per block of every kernel")
      ->check(CLI::Range(1, 1024))->capture_default_str();
  cli.add_option("--grid", launch.grid_size,
                 "blocks of add_grid_stride and add_float4 (0 = as many as fit on the GPU at once; add_indexed and add_one_pass cover the array once)")
      ->check(CLI::Range(0, std::numeric_limits<int>::max()))->capture_default_str();
  cli.add_option("--ilp", launch.ilp, "float4 groups of a and of b each thread of add_float4 and add_one_pass loads before adding: 1, 2 or 4")
      ->check(CLI::IsMember({1, 2, 4}))->capture_default_str();
  cli.add_option("--tile", launch.tile, "floats of a (and of b) in a block's tile of add_bulk_copy: a multiple of 4, 4 to 16384")
      ->check(course::multiple_of(4, 16384))->capture_default_str();
}

// End to end: what a program that starts and ends with host data waits for. The copies, in order,
// from and to pageable memory, are staged through a driver buffer and overlap nothing (lesson 03
// does better). The device's c is poisoned too: a skipped element cannot pass on an old result.
void add_end_to_end(course::Lesson& lesson, RowData& d) {
  const auto& headline = course::headline_kernel(kernels());
  course::Check check = d.host_check();
  check.poison = [poison_host = check.poison, &d] {
    poison_host();
    d.d_c.poison();
  };
  lesson.add({.name = "GPU end-to-end: copy a, b in, " + std::string(headline.name) + ", copy c out",
              .target = course::Target::gpu, .role = course::Role::gpu_end_to_end, .work = d.bytes,
              .setup = {*d.inputs},
              .run = [&d, go = headline.launch](cudaStream_t s) {
                d.d_a.copy_from_host_async(d.a, s);
                d.d_b.copy_from_host_async(d.b, s);
                go(d.d_a.data(), d.d_b.data(), d.d_c.data(), d.a.size(), *d.headline, s);
                d.d_c.copy_to_host_async(d.c, s);  // the harness synchronizes before c is read
              },
              .check = check, .timing = course::Timing::host,
              .repeat = course::RepeatOptions{1, std::min(lesson.options().reps, 10)}});
}

}  // namespace elementwise_add
