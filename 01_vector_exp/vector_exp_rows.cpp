// Lesson 01: the rows beside the kernels and the plumbing around them, declared in
// vector_exp_rows.hpp (which says what they teach): the launch flags, the headline with the L2
// left warm, the copies and end to end, and what follows the table.
#include <algorithm>
#include <cstdio>
#include <string>

#include "vector_exp_rows.hpp"

namespace vector_exp {

void add_launch_options(CLI::App& cli, LaunchConfig& launch, int& show) {
  cli.add_option("--block", launch.block_size, "threads per block (--op sum and max: 1024 unless given)")->check(CLI::Range(1, 1024))->capture_default_str();
  cli.add_option("--grid", launch.grid_size, "blocks in the grid (0 = each kernel's own choice)")
      ->check(CLI::Range(0, 1 << 30))->capture_default_str();
  cli.add_option("--ilp", launch.ilp, "elements each thread loads before computing: 1, 2, 4 or 8")
      ->check(CLI::IsMember({1, 2, 4, 8}))->capture_default_str();
  cli.add_option("--tile", launch.tile, "floats in a block's tile of bulk_copy: a multiple of 4, 4 to 16384")
      ->check(course::multiple_of(4, 16384))->capture_default_str();
  cli.add_option("--show", show, "first values to print side by side")->check(CLI::Range(0, 64))->capture_default_str();
}

// The headline without the L2 flush, the copies alone, and end to end: what a program that
// starts and ends with host data waits for. The copies use ordinary (pageable) host memory;
// lesson 03 shows pinned memory and overlapping copies.
void add_transfer_rows(course::Lesson& lesson, RowData& d) {
  using course::Target;
  const auto& headline = course::headline_kernel(kernels());
  const std::string name(headline.name);  // the kernel the end-to-end row runs
  auto run_headline = [&d, go = headline.launch](cudaStream_t s) { go(d.d_x.data(), d.d_y.data(), d.x.size(), d.launch, s); };
  if (lesson.options().flush_l2) {  // what is still in L2 is served from there
    lesson.add({.name = "GPU " + name + ", L2 left warm", .target = Target::gpu, .work = d.bytes,
                .ceiling = "d2d_copy_warm_l2", .setup = {*d.inputs}, .run = run_headline, .flush_l2 = false});
  }
  const course::RepeatOptions copies{1, std::min(lesson.options().reps, 10)};
  lesson.add({.name = "GPU copy x to device (pageable)", .target = Target::gpu, .work = d.bytes / 2, .setup = {*d.inputs},
              .run = [&](cudaStream_t) { d.d_x.copy_from_host(d.x); }, .timing = course::Timing::host, .repeat = copies});
  lesson.add({.name = "GPU copy y to host (pageable)", .target = Target::gpu, .work = d.bytes / 2, .setup = {*d.inputs},
              .run = [&](cudaStream_t) { d.d_y.copy_to_host(d.y); }, .timing = course::Timing::host, .repeat = copies});
  lesson.add({.name = "GPU end-to-end: copy in, " + name + ", copy out", .target = Target::gpu,
              .role = course::Role::gpu_end_to_end, .work = d.bytes, .setup = {*d.inputs},
              .run = [&d, run_headline](cudaStream_t s) {
                d.d_x.copy_from_host_async(d.x, s);
                run_headline(s);
                d.d_y.copy_to_host_async(d.y, s);  // the harness synchronizes before y is read
              },
              .check = d.host_check(2), .timing = course::Timing::host, .repeat = copies});
}

void report_after_table(course::Lesson& lesson, RowData& d, int show) {
  if (lesson.has_gpu()) {
    print_first_values(d.x, d.d_x.data(), d.d_y.data(), d.launch, lesson.stream(), show);
    const auto& setups = lesson.report().setups();
    const auto first = std::find_if(setups.begin(), setups.end(), [](const auto& step) { return step.name == kFirstLaunchStep; });
    const double first_ms = first != setups.end() ? first->ms : 0, context_ms = lesson.gpu().context_creation_ms;
    std::printf("\nCUDA start-up (driver and context): %.1f ms; first launch of a kernel: %.3f ms\n", context_ms, first_ms);
    lesson.record("first_launch_ms", first_ms);
    lesson.record("context_creation_ms", context_ms);
  }
  lesson.record("launch", {{"block", d.launch.block_size}, {"grid", d.launch.grid_size}, {"ilp", d.launch.ilp}, {"tile", d.launch.tile}});
}

}  // namespace vector_exp
