// The image module's public side: Image and GrayImage to and from the formats, chosen by the
// path's extension when writing and by the file's first bytes when reading.
#include "course/image.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <iterator>

#include "course/errors.hpp"
#include "image_codec.hpp"

namespace course {

namespace {

using image_detail::fail;
using image_detail::Raster;

std::string extension_of(const std::string& path) {
  std::string extension = std::filesystem::path(path).extension().string();
  std::transform(extension.begin(), extension.end(), extension.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return extension;
}

Raster decode_file(const std::string& path) {
  const std::vector<unsigned char> bytes = image_detail::read_whole_file(path);
  return image_detail::looks_like_png(bytes) ? image_detail::decode_png(path, bytes)
                                             : image_detail::decode_pnm(path, bytes);
}

void write_raster(const std::string& path, const Raster& raster, const std::string& comment) {
  const std::string extension = extension_of(path);
  if (extension == ".png") {
    image_detail::write_file_atomically(path, image_detail::encode_png(path, raster, comment));
  } else {
    image_detail::write_file_atomically(path, image_detail::encode_pnm(raster, comment));
  }
}

// The extension must name a format that holds `channels` channels.
void check_extension(const std::string& path, int channels) {
  const std::string extension = extension_of(path);
  if (extension == ".png") return;
  if (extension == ".pgm" && channels == 1) return;
  if (extension == ".ppm" && channels == 3) return;
  if (extension == ".pgm" || extension == ".ppm") {
    fail(path, "a " + extension + " file holds " + (extension == ".pgm" ? "1 channel" : "3 channels") +
                   ", this image has " + std::to_string(channels) + " (name it .png, or " +
                   (channels == 1 ? ".pgm" : ".ppm") + ")");
  }
  fail(path, "unknown image type '" + extension + "': the name must end in .png, .pgm or .ppm");
}

std::uint16_t luma(std::uint16_t r, std::uint16_t g, std::uint16_t b, std::uint32_t maxval) {
  const long value = std::lround(0.299 * r + 0.587 * g + 0.114 * b);
  return static_cast<std::uint16_t>(std::clamp<long>(value, 0, static_cast<long>(maxval)));
}

}  // namespace

Image::Image(int image_width, int image_height, int image_channels)
    : width(image_width), height(image_height), channels(image_channels) {
  if (width < 0 || height < 0 || (channels != 1 && channels != 3)) {
    throw Error("course::Image: bad shape " + std::to_string(width) + " x " + std::to_string(height) + " x " +
                std::to_string(channels));
  }
  pixels.assign(static_cast<std::size_t>(width) * static_cast<std::size_t>(height) *
                    static_cast<std::size_t>(channels),
                0);
}

void write_image(const std::string& path, const Image& image, const std::string& comment) {
  if (image.channels != 1 && image.channels != 3) {
    fail(path, "cannot write " + std::to_string(image.channels) + " channels (grey has 1, RGB 3)");
  }
  image_detail::check_dimensions(path, image.width, image.height);
  const std::size_t expected = static_cast<std::size_t>(image.width) * static_cast<std::size_t>(image.height) *
                               static_cast<std::size_t>(image.channels);
  if (image.pixels.size() != expected) {
    fail(path, "holds " + std::to_string(image.pixels.size()) + " bytes of pixels, expected " +
                   std::to_string(expected));
  }
  check_extension(path, image.channels);
  Raster raster;
  raster.width = image.width;
  raster.height = image.height;
  raster.channels = image.channels;
  raster.maxval = 255;
  raster.samples.assign(image.pixels.begin(), image.pixels.end());
  write_raster(path, raster, comment);
}

Image read_image(const std::string& path) {
  Raster raster = decode_file(path);
  if (raster.maxval != 255) {
    fail(path, "maxval " + std::to_string(raster.maxval) + " (" + (raster.maxval > 255 ? "16" : "8") +
                   "-bit): read_image reads 8-bit images with maxval 255; read_gray_image reads this one");
  }
  Image image;
  image.width = raster.width;
  image.height = raster.height;
  image.channels = raster.channels;
  image.pixels.assign(raster.samples.begin(), raster.samples.end());
  image.comments = std::move(raster.comments);
  return image;
}

GrayImage read_gray_image(const std::string& path) {
  Raster raster = decode_file(path);
  GrayImage image;
  image.width = raster.width;
  image.height = raster.height;
  image.maxval = raster.maxval;
  image.comments = std::move(raster.comments);
  const std::size_t count = static_cast<std::size_t>(raster.width) * static_cast<std::size_t>(raster.height);
  if (raster.channels == 3) {
    image.raw.resize(count);
    for (std::size_t i = 0; i < count; ++i) {
      image.raw[i] = luma(raster.samples[3 * i], raster.samples[3 * i + 1], raster.samples[3 * i + 2], raster.maxval);
    }
  } else {
    image.raw = std::move(raster.samples);
  }
  image.values.resize(count);
  const float scale = 1.0f / static_cast<float>(image.maxval);
  for (std::size_t i = 0; i < count; ++i) image.values[i] = static_cast<float>(image.raw[i]) * scale;
  return image;
}

GrayImage gray_from_values(std::span<const float> values, int width, int height, int bit_depth) {
  const std::string what = "gray_from_values";
  if (bit_depth != 8 && bit_depth != 16) throw Error(what + ": bit depth " + std::to_string(bit_depth) + " (8 or 16)");
  image_detail::check_dimensions(what, width, height);
  const std::size_t count = static_cast<std::size_t>(width) * static_cast<std::size_t>(height);
  if (values.size() != count) {
    throw Error(what + ": " + std::to_string(values.size()) + " values for a " + std::to_string(width) + " x " +
                std::to_string(height) + " image");
  }
  GrayImage image;
  image.width = width;
  image.height = height;
  image.maxval = bit_depth == 16 ? 65535 : 255;
  image.raw.resize(count);
  image.values.resize(count);
  for (std::size_t i = 0; i < count; ++i) {
    if (!std::isfinite(values[i])) {
      const std::size_t w = static_cast<std::size_t>(width);
      throw Error(what + ": value " + std::to_string(values[i]) + " at pixel (" + std::to_string(i % w) + ", " +
                  std::to_string(i / w) + ") is not a finite number");
    }
    const float clamped = std::clamp(values[i], 0.0f, 1.0f);
    image.raw[i] = static_cast<std::uint16_t>(std::lround(clamped * static_cast<float>(image.maxval)));
    image.values[i] = static_cast<float>(image.raw[i]) / static_cast<float>(image.maxval);
  }
  return image;
}

void write_gray_image(const std::string& path, const GrayImage& image, const std::string& comment) {
  image_detail::check_dimensions(path, image.width, image.height);
  const std::size_t count = static_cast<std::size_t>(image.width) * static_cast<std::size_t>(image.height);
  if (image.raw.size() != count) {
    fail(path, "holds " + std::to_string(image.raw.size()) + " samples, expected " + std::to_string(count));
  }
  if (image.maxval < 1 || image.maxval > 65535) fail(path, "maxval " + std::to_string(image.maxval) + " (1..65535)");
  const std::string extension = extension_of(path);
  if (extension != ".png" && extension != ".pgm") {
    fail(path, "unknown grey image type '" + extension + "': the name must end in .png or .pgm");
  }
  Raster raster;
  raster.width = image.width;
  raster.height = image.height;
  raster.maxval = image.maxval;
  raster.samples = image.raw;
  for (std::size_t i = 0; i < count; ++i) {
    if (raster.samples[i] > image.maxval) {
      fail(path, "sample " + std::to_string(i) + " is " + std::to_string(raster.samples[i]) + ", above maxval " +
                     std::to_string(image.maxval));
    }
  }
  // PNG has 8 or 16 bits per sample; another maxval is stretched to the full range.
  if (extension == ".png" && raster.maxval != 255 && raster.maxval != 65535) {
    const std::uint32_t target = raster.maxval > 255 ? 65535 : 255;
    for (std::uint16_t& sample : raster.samples) {
      sample = static_cast<std::uint16_t>((std::uint64_t{sample} * target * 2 + raster.maxval) / (2 * raster.maxval));
    }
    raster.maxval = target;
  }
  write_raster(path, raster, comment);
}

std::array<std::uint8_t, 3> colormap(std::uint8_t level) {
  // Control points of the ramp (level, R, G, B), linearly interpolated between them.
  struct Stop {
    double at, r, g, b;
  };
  static constexpr Stop kStops[] = {
      {0, 0, 0, 4},       {40, 40, 11, 84},    {85, 101, 21, 110}, {130, 159, 42, 99},
      {170, 212, 72, 66}, {210, 245, 125, 21}, {235, 250, 193, 39}, {255, 252, 255, 164},
  };
  const double x = level;
  for (std::size_t i = 1; i < std::size(kStops); ++i) {
    if (x <= kStops[i].at) {
      const Stop& a = kStops[i - 1];
      const Stop& b = kStops[i];
      const double t = (x - a.at) / (b.at - a.at);
      auto mix = [t](double from, double to) { return static_cast<std::uint8_t>(std::lround(from + t * (to - from))); };
      return {mix(a.r, b.r), mix(a.g, b.g), mix(a.b, b.b)};
    }
  }
  return {252, 255, 164};
}

Image apply_colormap(const Image& gray) {
  if (gray.channels != 1) throw Error("apply_colormap: the image has " + std::to_string(gray.channels) + " channels, not 1");
  Image rgb(gray.width, gray.height, 3);
  rgb.comments = gray.comments;
  for (std::size_t i = 0; i < gray.pixels.size(); ++i) {
    const auto colour = colormap(gray.pixels[i]);
    for (int c = 0; c < 3; ++c) rgb.pixels[3 * i + static_cast<std::size_t>(c)] = colour[static_cast<std::size_t>(c)];
  }
  return rgb;
}

}  // namespace course
