// Lesson 06, deep dive: the rows that time the summed-area table alone (--filter box), one per
// sat_* method that --kernel selects (all by default), beside the box-filter rows the registry gives (lesson_rows.cpp).
// Only main.cpp includes this header (it carries the harness).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "course/harness.hpp"
#include "fft_convolve.hpp"

namespace fft_convolve::sat {

struct TableRows {
  course::DeviceBuffer<float> d_input, d_output;
  std::vector<double> reference, host;  // the CPU's table, and each row's, copied back
  double allowed_error = 0;             // |GPU - CPU| per entry (sat.hpp's bound)
  std::vector<std::unique_ptr<GpuConvolver>> methods;
  std::vector<GpuProblem> problems;
};

// With a box filter: one GPU row per sat_* method among `selected` (--kernel's names; empty or
// "all": every one), its table build alone, held against the device copy counting 12 bytes a
// pixel (the image read, the double table written) and checked against the CPU's table entry by
// entry. Nothing for other filters, or when --kernel names no table method.
void add_table_rows(course::Lesson& lesson, const Image& image, const Filter& filter,
                    const std::vector<std::string>& selected, TableRows& rows);

}  // namespace fft_convolve::sat
