// Lesson 01: what main.cpp's rows share, and the plumbing around them (vector_exp_rows.cpp):
// the data every row refers to, the launch flags, the rows that time the copies and end to end,
// and what is printed after the table.
//
// Teaches: a kernel's time is not what a program waits for. The headline kernel is timed once
// more with the L2 cache left warm, the two copies alone, and end to end (copy x in, the
// kernel, copy y out), as a program that starts and ends with host data sees it. After the
// table: the first values side by side, and what CUDA's start-up and the first launch cost.
// Only main.cpp includes this header (it carries the harness); the tests use vector_exp.hpp.
#pragma once

#include <vector>

#include "course/harness.hpp"
#include "vector_exp.hpp"

namespace vector_exp {

// What every row refers to (main.cpp declares the rows on it), alive until the end.
struct RowData {
  std::vector<float> x, y;
  course::ReferenceBlock reference;      // exp(x) in double, computed while verifying
  double bytes = 0;                      // x read once, y written once
  LaunchConfig launch;                   // --block, --grid, --ilp
  course::DeviceBuffer<float> d_x, d_y;  // allocated by the GPU rows' setup step, `inputs`
  course::SetupStep* inputs = nullptr;   // the step every GPU row names: x and y on the GPU, x copied in
  course::Check host_check(double ulp) { return course::check_host<float>(y, reference, course::Tolerance::ulps(ulp)); }
};

// The lesson's own flags beside --kernel: --block, --grid and --ilp (into `launch`), and --show,
// the first values to print after the table.
void add_launch_options(CLI::App& cli, LaunchConfig& launch, int& show);

// The headline kernel with the L2 left warm (only when the other rows flush it), the copies of x
// in and y out alone, and end to end, each held to the same verdict as the kernels.
void add_transfer_rows(course::Lesson& lesson, RowData& d);

// The kernel rows' setup step, by name: report_after_table prints its time.
inline constexpr const char* kFirstLaunchStep = "first kernel launch (loads the kernels' code)";

// After the table, with a GPU: the first `show` values side by side (first_values.cpp), CUDA's
// start-up and the first launch's time (printed and in the JSON); with or without one, the launch
// configuration in the JSON.
void report_after_table(course::Lesson& lesson, RowData& d, int show);

}  // namespace vector_exp
