// 8-bit images on disk: PGM (grey) and PPM (colour), written atomically, read back with checks.
//
// Teaches: the simplest image formats there are (a short text header, then the raw bytes, row 0
// at the top), and how to write a file so that nobody ever sees half of it: write everything to
// a temporary file in the same folder, flush it, then rename it over the destination. A rename
// within one file system is atomic, so the path holds either the old file or the complete new
// one; on any failure the temporary file is removed and nothing is left behind.
//
//   course::Image gray(width, height, 1);            // channels 1: PGM (P5); 3: PPM (P6)
//   gray.at(x, y) = 255;
//   course::write_image("out.pgm", gray, "a comment for the header");
//   course::Image back = course::read_image("out.pgm");
//   course::write_image("out.ppm", course::apply_colormap(gray));
//
// Failures throw course::Error with one line naming the path and the reason.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace course {

struct Image {
  Image() = default;
  Image(int image_width, int image_height, int image_channels);  // all pixels 0

  int width = 0;
  int height = 0;
  int channels = 1;                   // 1 = grey (PGM), 3 = RGB (PPM)
  std::vector<std::uint8_t> pixels;   // row-major, row 0 at the top, channels interleaved
  std::vector<std::string> comments;  // header comment lines read back (without the '#')

  std::size_t index(int x, int y, int channel = 0) const {
    return (static_cast<std::size_t>(y) * static_cast<std::size_t>(width) + static_cast<std::size_t>(x)) *
               static_cast<std::size_t>(channels) +
           static_cast<std::size_t>(channel);
  }
  std::uint8_t& at(int x, int y, int channel = 0) { return pixels[index(x, y, channel)]; }
  std::uint8_t at(int x, int y, int channel = 0) const { return pixels[index(x, y, channel)]; }
};

// Writes a binary PGM (1 channel) or PPM (3 channels) with maxval 255. `comment` (one line per
// '\n'-separated part) goes into the header as "# ..." lines. Atomic: temporary file + rename.
void write_image(const std::string& path, const Image& image, const std::string& comment = "");

// Reads a binary PGM (P5) or PPM (P6) with maxval 255 (header comments kept in Image::comments).
// A missing, truncated or malformed file throws course::Error naming the path and the problem.
Image read_image(const std::string& path);

// The colour of grey level `level` in the course's colour map: black at 0, through deep blue,
// purple, orange and yellow, to near-white at 255 (an "inferno"-like ramp: brightness rises
// monotonically, so it prints readably in grey too).
std::array<std::uint8_t, 3> colormap(std::uint8_t level);

// A 3-channel copy of a 1-channel image, each grey level replaced by colormap(level).
Image apply_colormap(const Image& gray);

}  // namespace course
