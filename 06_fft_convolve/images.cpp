// The lesson's pictures: the input read from a file, and the results written as PNG.
//
// Teaches: a convolution's output is not an image in [0, 1]: the classic's edge filter gives
// negative and positive values around 0. To look at it, every result is mapped to grey through
// ONE range, the reference's [min, max], so the pictures of the reference, the CPU and the GPU
// can be compared by eye; the range is written into each file's comment and the run's JSON. An
// error image |a - b| is mapped through its own maximum instead (also written down): correct
// results differ by rounding, 10^-6 of the signal, which one common range would show as black.
// Reading and writing go through course/image.hpp (PNG, PGM, PPM; atomic writes).
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "course/errors.hpp"
#include "course/image.hpp"
#include "fft_convolve.hpp"

namespace fft_convolve {

Image load_image(const std::string& path) {
  course::GrayImage gray;
  try {
    gray = course::read_gray_image(path);
  } catch (const course::Error& error) {
    throw course::UsageError("--image: " + std::string(error.what()));  // a file named on the command line
  }
  Image image(gray.width, gray.height);
  image.pixels = std::move(gray.values);
  return image;
}

namespace {

std::string number(double value) {
  std::ostringstream text;
  text.precision(9);
  text << value;
  return text.str();
}

// Writes values mapped from [low, high] to 16-bit grey; non-finite values (a failed result) as 0.
void write_mapped(const std::string& path, std::span<const double> values, int width, int height, double low,
                  double high, const std::string& comment) {
  const double span = high > low ? high - low : 1.0;
  std::vector<float> mapped(values.size());
  for (std::size_t i = 0; i < values.size(); ++i) {
    const double v = std::isfinite(values[i]) ? (values[i] - low) / span : 0.0;
    mapped[i] = static_cast<float>(std::clamp(v, 0.0, 1.0));
  }
  course::write_gray_image(path, course::gray_from_values(mapped, width, height, 16), comment);
}

template <class T>
std::vector<double> to_double(std::span<const T> values) {
  return std::vector<double>(values.begin(), values.end());
}

}  // namespace

ImageFiles write_result_images(const std::string& folder, const Image& input, std::span<const double> reference,
                               const std::vector<NamedResult>& results) {
  namespace fs = std::filesystem;
  ImageFiles files;
  files.folder = fs::absolute(folder).string();
  files.low = reference.empty() ? 0.0 : *std::min_element(reference.begin(), reference.end());
  files.high = reference.empty() ? 1.0 : *std::max_element(reference.begin(), reference.end());
  const std::string range = "fft_convolve range " + number(files.low) + " " + number(files.high);
  const int w = input.width, h = input.height;
  auto path = [&](const std::string& name) { return (fs::path(folder) / (name + ".png")).string(); };

  write_mapped(path("input"), to_double<float>(input.pixels), w, h, 0.0, 1.0, "fft_convolve range 0 1");
  files.images.push_back({"input", "input.png", 0.0, 1.0, ""});
  write_mapped(path("reference"), reference, w, h, files.low, files.high, range);
  files.images.push_back({"reference", "reference.png", files.low, files.high, ""});
  for (const NamedResult& result : results) {
    write_mapped(path(result.name), to_double<float>(result.values), w, h, files.low, files.high, range);
    files.images.push_back({result.name, result.name + ".png", files.low, files.high, ""});
    // |result - against| (the reference if `against` is empty), mapped through its own maximum.
    std::vector<double> difference(reference.size());
    double largest = 0;
    for (std::size_t i = 0; i < difference.size(); ++i) {
      const double other = result.against.empty() ? reference[i] : static_cast<double>(result.against[i]);
      difference[i] = std::abs(static_cast<double>(result.values[i]) - other);
      if (std::isfinite(difference[i])) largest = std::max(largest, difference[i]);
    }
    const std::string name = result.name + "_difference";
    write_mapped(path(name), difference, w, h, 0.0, largest, "fft_convolve range 0 " + number(largest));
    files.images.push_back({name, name + ".png", 0.0, largest, result.against.empty() ? "reference" : result.against_name});
  }
  return files;
}

}  // namespace fft_convolve
