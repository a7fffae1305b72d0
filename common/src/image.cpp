// PGM/PPM writing (atomic: temporary file in the same folder, then rename) and reading.
#include "course/image.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

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

// Removes the temporary file unless release() was called (after the rename succeeded).
class TemporaryFile {
 public:
  explicit TemporaryFile(const std::filesystem::path& destination) {
    const std::filesystem::path folder =
        destination.parent_path().empty() ? std::filesystem::path(".") : destination.parent_path();
    std::string hidden = ".";  // built step by step: GCC 12 warns falsely (-Wrestrict) on "." + string
    hidden += destination.filename().string();
    hidden += ".tmp.XXXXXX";
    name_ = (folder / hidden).string();
    fd_ = ::mkstemp(name_.data());
    if (fd_ < 0) {
      const int error = errno;
      fail(destination.string(), "cannot create a file in " + folder.string() + ": " + describe_errno(error));
    }
  }
  ~TemporaryFile() {
    if (fd_ >= 0) ::close(fd_);
    if (!released_) ::unlink(name_.c_str());
  }
  TemporaryFile(const TemporaryFile&) = delete;
  TemporaryFile& operator=(const TemporaryFile&) = delete;

  const std::string& name() const { return name_; }

  void write_all(const std::string& destination, const void* data, std::size_t bytes) {
    const auto* cursor = static_cast<const unsigned char*>(data);
    while (bytes > 0) {
      const ssize_t written = ::write(fd_, cursor, bytes);
      if (written < 0) {
        if (errno == EINTR) continue;
        const int error = errno;
        fail(destination, "write failed: " + describe_errno(error));
      }
      cursor += written;
      bytes -= static_cast<std::size_t>(written);
    }
  }

  // The data on disk before the rename makes it visible; close() reports delayed write errors.
  void finish(const std::string& destination) {
    // mkstemp creates the file 0600; an image is for everyone to read, like any file the user writes.
    const mode_t mask = ::umask(0);
    ::umask(mask);
    if (::fchmod(fd_, 0666 & ~mask) != 0 || ::fsync(fd_) != 0) {
      const int error = errno;
      fail(destination, "cannot finish the file: " + describe_errno(error));
    }
    const int fd = fd_;
    fd_ = -1;
    if (::close(fd) != 0) {
      const int error = errno;
      fail(destination, "close failed: " + describe_errno(error));
    }
  }

  void release() { released_ = true; }

 private:
  std::string name_;
  int fd_ = -1;
  bool released_ = false;
};

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

  TemporaryFile temporary(destination);
  temporary.write_all(path, head.data(), head.size());
  temporary.write_all(path, image.pixels.data(), image.pixels.size());
  temporary.finish(path);
  if (std::rename(temporary.name().c_str(), path.c_str()) != 0) {
    const int error = errno;
    fail(path, "cannot rename the finished file into place: " + describe_errno(error));
  }
  temporary.release();
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
