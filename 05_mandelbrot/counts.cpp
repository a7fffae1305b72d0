// Lesson 05: everything around the kernels that is plain host code: views and their precision
// limit, the launches, checking escape counts, their statistics, and the image.
//
// Teaches:
//  - integer results are compared for equality, and "how many differ" is the measure: an escape
//    count is either the same or off by at least one iteration, there is no "close enough";
//  - a floating-point format has a limited resolution: around a coordinate of magnitude m,
//    neighbouring FP32 values are m * 2^-23 apart (about 1.2e-7 m), FP64 values m * 2^-52 (about
//    2.2e-16 m). A zoom whose pixels are closer than a few of those steps cannot be drawn in that
//    precision: the lesson says so instead of drawing rounding noise.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <sstream>

#include "course/errors.hpp"
#include "course/files.hpp"
#include "course/format.hpp"
#include "course/image.hpp"
#include "histogram.hpp"
#include "mandelbrot.hpp"

namespace mandelbrot {

namespace {

std::string number(double value) {
  char text[40];
  std::snprintf(text, sizeof text, "%.17g", value);
  return text;
}

std::string short_number(double value) {
  char text[40];
  std::snprintf(text, sizeof text, "%.6g", value);
  return text;
}

// The spacing of T's values (one ULP) at magnitude m.
template <class T>
double ulp_at(double magnitude) {
  const T m = static_cast<T>(std::max(magnitude, static_cast<double>(std::numeric_limits<T>::min())));
  return static_cast<double>(std::nextafter(m, std::numeric_limits<T>::infinity()) - m);
}

template <class T>
std::string precision_problem_in(const View& view, int width, int height, const char* name) {
  const double x_extent = std::max(std::fabs(view.x_min), std::fabs(view.x_max));
  const double y_extent = std::max(std::fabs(view.y_min), std::fabs(view.y_max));
  const double dx = (view.x_max - view.x_min) / width;
  const double dy = (view.y_max - view.y_min) / height;
  const double need_x = kMinUlpsPerPixel * ulp_at<T>(x_extent);
  const double need_y = kMinUlpsPerPixel * ulp_at<T>(y_extent);
  if (dx >= need_x && dy >= need_y) return "";
  const bool x_fails = dx < need_x;
  return std::string("the view is too deep for ") + name + ": pixels " + short_number(x_fails ? dx : dy) +
         " apart in " + (x_fails ? "re" : "im") + ", but " + name + " values near " +
         short_number(x_fails ? x_extent : y_extent) + " are " + short_number(ulp_at<T>(x_fails ? x_extent : y_extent)) +
         " apart and the lesson needs " + short_number(kMinUlpsPerPixel) + " of those steps per pixel " +
         "(rounding noise, not the set, would be drawn)";
}

}  // namespace

std::string View::describe() const {
  return "re [" + short_number(x_min) + ", " + short_number(x_max) + "] x im [" + short_number(y_min) + ", " +
         short_number(y_max) + "]";
}

View view_from_centre(double re, double im, double zoom, int width, int height) {
  const double half_width = 1.5 / zoom;  // zoom 1: 3 units wide, the classic view's width
  const double half_height = half_width * height / width;  // square pixels
  return {re - half_width, re + half_width, im - half_height, im + half_height};
}

std::string precision_problem(const View& view, int width, int height, course::Precision precision) {
  return precision == course::Precision::fp32 ? precision_problem_in<float>(view, width, height, "FP32")
                                              : precision_problem_in<double>(view, width, height, "FP64");
}

std::string Extent::describe() const { return std::to_string(x) + "x" + std::to_string(y); }

Extent parse_extent(const std::string& text, const std::string& flag) {
  const std::size_t split = text.find_first_of("xX");
  auto parse = [&](const std::string& part) {
    if (part.empty() || part.size() > 9 || part.find_first_not_of("0123456789") != std::string::npos) {
      throw course::UsageError(flag + ": '" + text + "' is not WxH with two positive integers (e.g. 32x8)");
    }
    const int value = std::stoi(part);
    if (value < 1) throw course::UsageError(flag + ": '" + text + "' is not WxH with two positive integers (e.g. 32x8)");
    return value;
  };
  if (split == std::string::npos) parse("");
  return {parse(text.substr(0, split)), parse(text.substr(split + 1))};
}

course::LaunchShape launch_of(Extent block, Extent grid) {
  return {.blocks = grid.x, .threads = block.x, .blocks_y = grid.y, .threads_y = block.y};
}

course::LaunchShape plan_launch(const course::LaunchShape& asked, int width, int height) {
  const Extent block{asked.threads, asked.threads_y};
  if (block.x < 1 || block.y < 1 || static_cast<long long>(block.x) * block.y > 1024 || block.y > 1024) {
    throw course::UsageError("--block " + block.describe() + ": a block holds 1 to 1024 threads (x * y), " +
                             std::to_string(static_cast<long long>(block.x) * block.y) + " asked for");
  }
  long long grid_x = asked.blocks;
  int grid_y = asked.blocks_y;
  if (grid_x == 0 && grid_y == 0) {  // one thread per pixel; the y dimension is capped, the loop does the rest
    grid_x = (width + block.x - 1) / block.x;
    grid_y = std::min((height + block.y - 1) / block.y, 65535);
  }
  if (grid_x < 1 || grid_x > 2147483647 || grid_y < 1 || grid_y > 65535) {
    throw course::UsageError("--grid " + std::to_string(grid_x) + "x" + std::to_string(grid_y) +
                             ": a grid has 1 to 2147483647 blocks in x and 1 to 65535 in y");
  }
  return {.blocks = grid_x, .threads = block.x, .blocks_y = grid_y, .threads_y = block.y};
}

course::IntegerTolerance count_tolerance(double allowed_fraction, int max_iters) {
  return allowed_fraction > 0 ? course::IntegerTolerance::at_most(allowed_fraction, max_iters)
                              : course::IntegerTolerance::exact();
}

course::VerifyResult check_counts(std::span<const std::uint32_t> result, std::span<const std::uint32_t> reference,
                                  int max_iters, double allowed_fraction) {
  return course::verify_integers(result, reference, count_tolerance(allowed_fraction, max_iters));
}

double natural_mismatch_bound(course::Precision precision, int max_iters) {
  const bool fp32 = precision == course::Precision::fp32;
  if (max_iters <= 100) return fp32 ? 1e-3 : 1e-4;  // the classic view: 0.1% in FP32
  if (max_iters <= 1000) return fp32 ? 0.1 : 0.01;
  return 0.25;  // deep zooms with thousands of iterations: the orbits are chaotic, the pictures differ visibly
}

CountStats count_stats(std::span<const std::uint32_t> counts, int max_iters) {
  CountStats stats;
  stats.pixels = counts.size();
  const auto limit = static_cast<std::uint32_t>(max_iters);
  for (const std::uint32_t c : counts) {
    stats.iterations += c;
    if (c == limit) {
      ++stats.interior_pixels;
      stats.interior_iterations += c;
    }
  }
  return stats;
}

ShadeRange shade_range(std::span<const std::uint32_t> counts, int max_iters) {
  ShadeRange range{static_cast<std::uint32_t>(max_iters), 0};
  for (const std::uint32_t c : counts) {
    if (c >= static_cast<std::uint32_t>(max_iters)) continue;  // interior: drawn black, not part of the range
    range.low = std::min(range.low, c);
    range.high = std::max(range.high, c);
  }
  if (range.low > range.high) range = {0, 0};  // no pixel outside the set
  return range;
}

course::Image shade(std::span<const std::uint32_t> counts, int width, int height, int max_iters) {
  course::Image image(width, height, 1);
  const ShadeRange range = shade_range(counts, max_iters);
  const double low = std::log1p(static_cast<double>(range.low));
  const double span = std::log1p(static_cast<double>(range.high)) - low;
  const double scale = span > 0 ? 254.0 / span : 0.0;
  for (std::size_t i = 0; i < counts.size() && i < image.pixels.size(); ++i) {
    const std::uint32_t c = counts[i];
    image.pixels[i] = c >= static_cast<std::uint32_t>(max_iters)
                          ? 0
                          : static_cast<std::uint8_t>(1 + std::lround(scale * (std::log1p(static_cast<double>(c)) - low)));
  }
  return image;
}

std::string image_comment(const View& view, int max_iters, course::Precision precision, ShadeRange range,
                          const std::string& source) {
  return "mandelbrot view " + number(view.x_min) + " " + number(view.x_max) + " " + number(view.y_min) + " " +
         number(view.y_max) + " iters " + std::to_string(max_iters) + " precision " + std::string(course::precision_name(precision)) +
         " counts " + std::to_string(range.low) + " " + std::to_string(range.high) +
         "\nshade: 0 = interior (max_iters), else 1 + 254 (ln(1 + count) - ln(1 + low)) / (ln(1 + high) - ln(1 + low))" +
         "\nfrom " + source;
}

void check_image_path(const std::string& path, bool gray) {
  const std::string extension = std::filesystem::path(path).extension().string();
  if (extension != ".png" && extension != ".pgm" && extension != ".ppm") {
    throw course::UsageError("--image " + path + ": the name must end in .png (colour, or grey with --gray), "
                             ".pgm (grey) or .ppm (colour)");
  }
  if (gray && extension == ".ppm") {
    throw course::UsageError("--gray: a .ppm image is colour; name it .png or .pgm");
  }
  // Before the run, as for --json: a folder, a FIFO, /proc, a read-only folder or a name too long.
  course::check_output_path("--image", path);
}

void write_counts_image(const std::string& path, std::span<const std::uint32_t> counts, int width, int height,
                        int max_iters, const std::string& comment, bool gray) {
  const course::Image shades = shade(counts, width, height, max_iters);
  const bool colour = std::filesystem::path(path).extension() == ".ppm" ||
                      (std::filesystem::path(path).extension() == ".png" && !gray);
  course::write_image(path, colour ? course::apply_colormap(shades) : shades, comment);
}

void write_equalised_image(const std::string& path, std::span<const std::uint32_t> counts, int width, int height,
                           int max_iters, const std::string& comment, bool gray) {
  const std::vector<std::uint32_t> bins = histogram::histogram_of(counts, max_iters + 1);
  std::vector<std::uint32_t> cdf(bins.size());
  histogram::inclusive_sum_cpu(bins, cdf);
  const course::Image shades = histogram::equalise(counts, width, height, max_iters, cdf);
  std::string text = comment;
  const std::size_t shade_line = text.find("\nshade:");
  const std::size_t shade_end = shade_line == std::string::npos ? shade_line : text.find('\n', shade_line + 1);
  const std::string equalised =
      "\nshade: equalised: 0 = interior (max_iters), else 1 + floor(254 cdf[count] / cdf[max_iters - 1])";
  if (shade_line == std::string::npos) {
    text += equalised;
  } else {
    text.replace(shade_line, shade_end == std::string::npos ? std::string::npos : shade_end - shade_line, equalised);
  }
  const bool colour = std::filesystem::path(path).extension() == ".ppm" ||
                      (std::filesystem::path(path).extension() == ".png" && !gray);
  course::write_image(path, colour ? course::apply_colormap(shades) : shades, text);
}

}  // namespace mandelbrot
