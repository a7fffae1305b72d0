// PGM/PPM writing (atomic, through course/files.hpp) and reading.
#include "course/image.hpp"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <sstream>

#include "course/errors.hpp"
#include "course/files.hpp"

namespace course {

namespace {

constexpr int kMaxDimension = 1 << 20;  // far beyond any image the course writes; guards the header

std::string describe_errno(int error) { return std::strerror(error); }

[[noreturn]] void fail(const std::string& path, const std::string& what) {
  throw Error("image " + path + ": " + what);
}

void check_shape(const std::string& path, const Image& image) {
  if (image.channels != 1 && image.channels != 3) {
    fail(path, "cannot write " + std::to_string(image.channels) + " channels (PGM has 1, PPM 3)");
  }
  if (image.width <= 0 || image.height <= 0 || image.width > kMaxDimension || image.height > kMaxDimension) {
    fail(path, "cannot write a " + std::to_string(image.width) + " x " + std::to_string(image.height) + " image");
  }
  const std::size_t expected = static_cast<std::size_t>(image.width) * static_cast<std::size_t>(image.height) *
                               static_cast<std::size_t>(image.channels);
  if (image.pixels.size() != expected) {
    fail(path, "holds " + std::to_string(image.pixels.size()) + " bytes of pixels, expected " +
                   std::to_string(expected));
  }
}

// Reads the next header token (magic, width, height, maxval), skipping whitespace and comments.
bool next_token(std::istream& in, std::string& token, std::vector<std::string>& comments) {
  token.clear();
  int c = in.get();
  while (c != EOF) {
    if (c == '#') {
      std::string line;
      std::getline(in, line);
      if (!line.empty() && line.front() == ' ') line.erase(0, 1);
      comments.push_back(line);
    } else if (!std::isspace(c)) {
      break;
    }
    c = in.get();
  }
  while (c != EOF && !std::isspace(c) && c != '#') {
    token.push_back(static_cast<char>(c));
    c = in.get();
  }
  if (c == '#') in.unget();
  // Exactly one whitespace byte ends the header's last token (the pixels follow at once):
  // the character consumed above is that byte.
  return !token.empty();
}

int parse_dimension(const std::string& path, const std::string& token, const char* what, long long max) {
  long long value = 0;
  for (char c : token) {
    if (c < '0' || c > '9' || value > max) fail(path, std::string("bad ") + what + " '" + token + "' in the header");
    value = value * 10 + (c - '0');
  }
  if (value < 1 || value > max) fail(path, std::string("bad ") + what + " '" + token + "' in the header");
  return static_cast<int>(value);
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
  check_shape(path, image);
  const std::filesystem::path destination(path);
  if (destination.filename().empty()) fail(path, "the path names a folder, not a file");

  std::ostringstream header;
  header << (image.channels == 1 ? "P5" : "P6") << '\n';
  std::istringstream lines(comment);
  for (std::string line; std::getline(lines, line);) header << "# " << line << '\n';
  header << image.width << ' ' << image.height << '\n' << 255 << '\n';
  const std::string head = header.str();

  AtomicFile file(path, "the image");  // course/files.hpp: temporary file, fsync, rename
  file.write(head);
  file.write(image.pixels.data(), image.pixels.size());
  file.commit();
}

Image read_image(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) fail(path, std::string("cannot open: ") + describe_errno(errno));

  Image image;
  std::string magic, width, height, maxval;
  if (!next_token(in, magic, image.comments) || (magic != "P5" && magic != "P6")) {
    fail(path, "not a binary PGM (P5) or PPM (P6) file");
  }
  if (!next_token(in, width, image.comments) || !next_token(in, height, image.comments) ||
      !next_token(in, maxval, image.comments)) {
    fail(path, "truncated header");
  }
  image.channels = magic == "P5" ? 1 : 3;
  image.width = parse_dimension(path, width, "width", kMaxDimension);
  image.height = parse_dimension(path, height, "height", kMaxDimension);
  if (parse_dimension(path, maxval, "maxval", 65535) != 255) {
    fail(path, "maxval " + maxval + " is not supported (only 8-bit images, maxval 255)");
  }

  image.pixels.resize(static_cast<std::size_t>(image.width) * static_cast<std::size_t>(image.height) *
                      static_cast<std::size_t>(image.channels));
  in.read(reinterpret_cast<char*>(image.pixels.data()), static_cast<std::streamsize>(image.pixels.size()));
  const auto got = static_cast<std::size_t>(in.gcount());
  if (got != image.pixels.size()) {
    fail(path, "truncated: " + std::to_string(got) + " of " + std::to_string(image.pixels.size()) +
                   " pixel bytes present");
  }
  return image;
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
