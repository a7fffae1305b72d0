// The filters: the classic 5 x 5, Gaussians and boxes of any odd size, and filters from a file.
//
// Teaches: a filter is a small matrix with a centre, so its size is odd. Some filters are the
// outer product of a column and a row (rank 1, "separable"): a Gaussian and a box are, the
// classic's edge filter is not. A separable K x K filter can be applied as a row pass and a column
// pass, 2K multiply-adds per pixel instead of K^2 (kernels/04_separable.cu). A filter read from
// a file is checked line by line, and every problem is reported in one line that says where.
#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "course/errors.hpp"
#include "course/files.hpp"
#include "fft_convolve.hpp"

namespace fft_convolve {

double Filter::sum() const {
  double total = 0;
  for (const float tap : taps) total += tap;
  return total;
}

double Filter::l1_norm() const {
  double total = 0;
  for (const float tap : taps) total += std::abs(static_cast<double>(tap));
  return total;
}

namespace {

std::string size_text(int size) { return std::to_string(size) + " x " + std::to_string(size); }

// A separable filter from its two factors: taps = column x row, rounded once to float.
Filter outer_product(std::string name, const std::vector<double>& column, const std::vector<double>& row) {
  Filter filter;
  filter.name = std::move(name);
  filter.size = static_cast<int>(column.size());
  filter.taps.resize(column.size() * row.size());
  for (std::size_t i = 0; i < column.size(); ++i) {
    for (std::size_t j = 0; j < row.size(); ++j) filter.taps[i * row.size() + j] = static_cast<float>(column[i] * row[j]);
  }
  filter.column.assign(column.begin(), column.end());
  filter.row.assign(row.begin(), row.end());
  return filter;
}

void require_odd_size(int size, const std::string& flag) {
  if (size < 1 || size > kMaxFilterSize) {
    throw course::UsageError(flag + " " + std::to_string(size) + ": the filter size must be 1 to " +
                             std::to_string(kMaxFilterSize));
  }
  if (size % 2 == 0) {
    throw course::UsageError(flag + " " + std::to_string(size) + ": the filter size must be odd (a filter needs a centre pixel)");
  }
}

}  // namespace

Filter classic_filter() {
  Filter filter;
  filter.name = "classic 5 x 5";
  filter.size = 5;
  filter.taps = {-4, -1, 0, -1, -4,  //
                 -1, 2,  3, 2,  -1,  //
                 0,  3,  4, 3,  0,   //
                 -1, 2,  3, 2,  -1,  //
                 -4, -1, 0, -1, -4};
  find_separable_factors(filter);  // it is not: rows 1 and 2 are not proportional
  return filter;
}

Filter gaussian_filter(int size) {
  require_odd_size(size, "--filter-size");
  const double sigma = size / 6.0;
  const int r = size / 2;
  std::vector<double> weights(static_cast<std::size_t>(size));
  double total = 0;
  for (int i = 0; i < size; ++i) {
    weights[static_cast<std::size_t>(i)] = std::exp(-0.5 * (i - r) * (i - r) / (sigma * sigma));
    total += weights[static_cast<std::size_t>(i)];
  }
  for (double& w : weights) w /= total;
  std::ostringstream name;
  name << "gaussian " << size_text(size) << " (sigma " << sigma << ")";
  return outer_product(name.str(), weights, weights);
}

Filter box_filter(int size) {
  require_odd_size(size, "--filter-size");
  const std::vector<double> weights(static_cast<std::size_t>(size), 1.0 / size);
  return outer_product("box " + size_text(size), weights, weights);
}

void find_separable_factors(Filter& filter) {
  filter.column.clear();
  filter.row.clear();
  const int k = filter.size;
  // The largest tap (p, q) is the pivot: column = f(:, q), row = f(p, :) / f(p, q).
  std::size_t pivot = 0;
  for (std::size_t t = 0; t < filter.taps.size(); ++t) {
    if (std::abs(filter.taps[t]) > std::abs(filter.taps[pivot])) pivot = t;
  }
  const double largest = std::abs(static_cast<double>(filter.taps[pivot]));
  if (largest == 0) return;  // all zero: nothing to gain from two passes
  const int p = static_cast<int>(pivot) / k, q = static_cast<int>(pivot) % k;
  std::vector<double> column(static_cast<std::size_t>(k)), row(static_cast<std::size_t>(k));
  for (int i = 0; i < k; ++i) column[static_cast<std::size_t>(i)] = filter.at(i, q);
  for (int j = 0; j < k; ++j) row[static_cast<std::size_t>(j)] = static_cast<double>(filter.at(p, j)) / filter.at(p, q);
  // Rank 1 within float rounding of the taps?
  for (int i = 0; i < k; ++i) {
    for (int j = 0; j < k; ++j) {
      const double product = column[static_cast<std::size_t>(i)] * row[static_cast<std::size_t>(j)];
      if (std::abs(product - filter.at(i, j)) > 4e-7 * largest) return;
    }
  }
  filter.column.assign(column.begin(), column.end());
  filter.row.assign(row.begin(), row.end());
}

Filter parse_filter(std::string_view text, const std::string& origin) {
  std::vector<std::vector<float>> rows;
  std::size_t line_number = 0, first_line = 0;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(start, end - start);
    start = end + 1;
    ++line_number;
    line = line.substr(0, line.find('#'));
    std::vector<float> values;
    std::size_t pos = 0;
    while (pos < line.size()) {
      const char c = line[pos];
      if (c == ' ' || c == '\t' || c == ',' || c == '\r') {
        ++pos;
        continue;
      }
      std::size_t token_end = pos;
      while (token_end < line.size() && std::string_view(" \t,\r").find(line[token_end]) == std::string_view::npos) ++token_end;
      const std::string_view token = line.substr(pos, token_end - pos);
      double value = 0;
      const auto [ptr, error] = std::from_chars(token.data(), token.data() + token.size(), value);
      if (error != std::errc() || ptr != token.data() + token.size()) {
        throw course::UsageError(origin + ": line " + std::to_string(line_number) + ": '" + std::string(token) +
                                 "' is not a number");
      }
      if (!std::isfinite(value) || std::abs(value) > 3.4e38) {
        throw course::UsageError(origin + ": line " + std::to_string(line_number) + ": '" + std::string(token) +
                                 "' is not a finite float");
      }
      values.push_back(static_cast<float>(value));
      pos = token_end;
    }
    if (values.empty()) continue;
    if (!rows.empty() && values.size() != rows.front().size()) {
      throw course::UsageError(origin + ": line " + std::to_string(line_number) + " has " + std::to_string(values.size()) +
                               " numbers, line " + std::to_string(first_line) + " has " +
                               std::to_string(rows.front().size()) + " (every row needs the same count)");
    }
    if (rows.empty()) first_line = line_number;
    rows.push_back(std::move(values));
    if (rows.size() > static_cast<std::size_t>(kMaxFilterSize)) {
      throw course::UsageError(origin + ": more than " + std::to_string(kMaxFilterSize) + " rows (the largest filter is " +
                               size_text(kMaxFilterSize) + ")");
    }
  }
  if (rows.empty()) throw course::UsageError(origin + ": no numbers (write one row of the filter per line)");
  const std::size_t k = rows.size();
  if (rows.front().size() != k) {
    throw course::UsageError(origin + ": " + std::to_string(k) + " rows of " + std::to_string(rows.front().size()) +
                             " numbers: the filter must be square");
  }
  if (k % 2 == 0) {
    throw course::UsageError(origin + ": " + size_text(static_cast<int>(k)) +
                             ": the filter size must be odd (a filter needs a centre pixel)");
  }
  Filter filter;
  filter.name = "file " + size_text(static_cast<int>(k));
  filter.size = static_cast<int>(k);
  for (const auto& row : rows) filter.taps.insert(filter.taps.end(), row.begin(), row.end());
  find_separable_factors(filter);
  return filter;
}

Filter read_filter_file(const std::string& path) {
  const std::string origin = "--filter-file " + path;
  constexpr std::size_t kMaxBytes = 4u << 20;  // a 255 x 255 filter of long numbers fits easily
  std::string text;
  try {
    // course::read_file never opens a FIFO or a device (no blocking read), nor a folder.
    text = course::read_file(path, kMaxBytes);
  } catch (const course::Error& error) {
    throw course::UsageError("--filter-file " + std::string(error.what()));
  }
  if (text.find('\0') != std::string::npos) throw course::UsageError(origin + ": a binary file, not a text matrix");
  Filter filter = parse_filter(text, origin);
  // Taps that parse but cannot be computed with in float: the result would fail verification as
  // if the code were wrong. All zero, a nonzero tap below 1e-6 or one above 1e6 is refused.
  double largest = 0;
  for (const float tap : filter.taps) {
    const double magnitude = std::fabs(static_cast<double>(tap));
    largest = std::max(largest, magnitude);
    if (magnitude != 0 && (magnitude < 1e-6 || magnitude > 1e6)) {
      throw course::UsageError(origin + ": a tap of " + std::to_string(tap) +
                               " is outside 1e-6 to 1e6 in size: float sums of it cannot be verified");
    }
  }
  if (largest == 0) throw course::UsageError(origin + ": every tap is 0 (the output would be all zero)");
  filter.name = "file " + path + " (" + size_text(filter.size) + ")";
  return filter;
}

Filter make_filter(const std::string& name, int size) {
  if (name == "classic") {
    if (size != 0 && size != 5) {
      throw course::UsageError("--filter-size " + std::to_string(size) +
                               ": the classic filter is 5 x 5 (omit --filter-size, or choose gaussian or box)");
    }
    return classic_filter();
  }
  const int k = size == 0 ? 5 : size;
  if (name == "gaussian") return gaussian_filter(k);
  if (name == "box") return box_filter(k);
  throw course::UsageError("--filter " + name + ": choose classic, gaussian or box (or --filter-file PATH)");
}

}  // namespace fft_convolve
