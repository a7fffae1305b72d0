// Lesson 06, deep dive: the summed-area table (integral image), the third way to filter with a box.
//
//   T(r, c) = sum of x(i, j) over i <= r, j <= c
//
// built by an inclusive scan (prefix sum) of every row, then of every column. A K x K box sum
// around (r, c) is then four table reads, whatever K is:
//
//   S = T(r1, c1) - T(r0 - 1, c1) - T(r1, c0 - 1) + T(r0 - 1, c0 - 1)
//
// with r0 = r - R, r1 = r + R, c0 = c - R, c1 = c + R (R = K / 2) clipped to the image (zero
// padding: the window's part outside the image adds nothing), and y = S * tap.
//
// The table's type. T's largest entry is the whole image's sum: up to 2^28 pixels (kMaxPixels)
// of values up to max|x|. In float (24-bit significand) an entry near 2^20 is already rounded to
// 1/16, and the box sum is a small difference of such large numbers: the error is the table's
// rounding, not the box's (float_table_box shows it; docs/06_fft_convolve.md, section "The
// summed-area table"). The lesson's table is double (53 bits): building it by the row and column
// scans adds at most (W + H) u_d T_max to an entry (u_d = 2^-53, T_max <= 2^28 max|x|), so a box
// sum is off by at most 4 (W + H) 2^-53 2^28 max|x| <= 2^-7 max|x| at the largest image (32,768
// x 8,192), and at 4096 x 4096 by at most 2^-14 max|x|, worst case; a typical error is many
// orders of magnitude smaller (errors of opposite sign cancel), well inside the lesson's float
// tolerance (verify_convolution.cpp). The result y is then rounded once to float.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "fft_convolve.hpp"

namespace fft_convolve::sat {

// "" when `filter` is a box (every tap equal, not zero); else why the summed-area table cannot
// compute it.
std::string box_problem(const Filter& filter);

// Whether a registry method builds a summed-area table: the sat_* methods, by name.
inline bool is_table_method(std::string_view name) { return name.starts_with("sat_"); }

// The table on the CPU, in double, row by row then column by column (the reference).
std::vector<double> table_cpu(const Image& image);
// What the sat_* methods (kernels/sat_steps.cuh) offer besides GpuConvolver: the table alone,
// built in the stream, kept in device memory (height x width doubles), for the rows that time
// the table build on its own (sat_rows.cpp).
class TableBuilder {
 public:
  virtual ~TableBuilder() = default;
  virtual void build_table(cudaStream_t stream) = 0;  // after GpuConvolver::setup
  virtual const course::DeviceBuffer<double>& table() const = 0;
};

// The box filter from a table of T (double or float), four reads per output pixel.
template <class T>
void box_from_table(std::span<const T> table, int height, int width, int filter_size, double tap, std::span<float> output);
// The same with a float table (the table built in float): the error the page shows.
std::vector<float> float_table_box(const Image& image, int filter_size, double tap);

}  // namespace fft_convolve::sat
