// Lesson 02: what main.cpp's rows share, and the plumbing around them (elementwise_add_rows.cpp):
// the data every row refers to, the launch flags, and the end-to-end row.
//
// Teaches: a kernel's time is not what a program waits for. End to end copies a and b in, runs
// the headline kernel and copies c out, from and to pageable memory, in order, overlapping
// nothing (lesson 03 does better); the device's c is poisoned too, so an element the kernel
// skipped cannot pass on an older row's result.
// Only main.cpp includes this header (it carries the harness); the tests use elementwise_add.hpp.
#pragma once

#include <memory>
#include <vector>

#include "course/harness.hpp"
#include "elementwise_add.hpp"

namespace elementwise_add {

// What every row refers to (main.cpp declares the rows on it), alive until the end.
struct RowData {
  std::vector<float> a, b, c;
  course::ReferenceBlock reference;  // a + b in double, rounded once: every correct add matches it exactly
  double bytes = 0;                  // a and b read once, c written once
  LaunchConfig launch;
  course::DeviceBuffer<float> d_a, d_b, d_c;  // allocated by the GPU rows' setup step, `inputs`
  course::SetupStep* inputs = nullptr;        // the step every GPU row names: a, b, c on the GPU, a and b copied in
  // The grid the headline's verified run chose, which its timed runs and the end-to-end row reuse.
  std::shared_ptr<LaunchConfig> headline = std::make_shared<LaunchConfig>();
  course::Check host_check() { return course::check_host<float>(c, reference, course::Tolerance::exact()); }
};

// The lesson's flags beside --kernel that shape the launches: --block, --grid, --ilp and --tile.
void add_launch_options(CLI::App& cli, LaunchConfig& launch);

// End to end: copy a and b in, the headline kernel on the grid its verified run chose, copy c out,
// timed with the host clock; checked on the host, with the device's c poisoned too.
void add_end_to_end(course::Lesson& lesson, RowData& d);

}  // namespace elementwise_add
