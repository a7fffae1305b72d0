// Images on disk: PNG (through libpng), PGM and PPM; written atomically, read back with checks.
//
// Teaches: an image file is a small header (size, channels, bits per sample) and a grid of
// integers, row 0 at the top. PGM/PPM are the simplest such formats (a text header, then the raw
// samples); PNG adds compression and opens in every browser and viewer, so the course writes PNG
// for people and reads all three. And how to write a file so that nobody ever sees half of it:
// write everything to a temporary file in the same folder, flush it, then rename it over the
// destination. A rename within one file system is atomic, so the path holds either the old file
// or the complete new one; on any failure the temporary file is removed and nothing is left behind.
//
//   course::Image gray(width, height, 1);            // 8 bits per sample, 1 (grey) or 3 (RGB) channels
//   gray.at(x, y) = 255;
//   course::write_image("out.png", gray, "a comment for the file");   // .png, .pgm (grey) or .ppm (RGB)
//   course::write_image("out.png", course::apply_colormap(gray));
//   course::Image back = course::read_image("out.png");                // 8-bit files
//
//   course::GrayImage input = course::read_gray_image("photo.png");    // any PNG, PGM or PPM, as grey
//   float v = input.at(x, y);                                          // in [0, 1]
//   course::write_gray_image("result.png", course::gray_from_values(values, w, h, 16));
//
// Failures (a missing file, a folder, a FIFO or device, a wrong magic number, truncated or corrupt
// data, maxval 0, zero or absurd dimensions, an unknown extension) throw course::Error with one
// line naming the path and the problem. A lesson that reads a file named on its command line may
// rethrow it as course::UsageError.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace course {

// Largest width or height, and largest pixel count, that reading or writing accepts: far beyond
// any image the course handles, small enough that a corrupt header cannot ask for terabytes.
inline constexpr int kMaxImageDimension = 1 << 20;
inline constexpr std::size_t kMaxImagePixels = std::size_t{1} << 28;

// An 8-bit image: 1 channel (grey) or 3 (RGB).
struct Image {
  Image() = default;
  Image(int image_width, int image_height, int image_channels);  // all pixels 0

  int width = 0;
  int height = 0;
  int channels = 1;                   // 1 = grey, 3 = RGB
  std::vector<std::uint8_t> pixels;   // row-major, row 0 at the top, channels interleaved
  std::vector<std::string> comments;  // comment lines read back (PGM/PPM "# ..." lines, PNG Comment text)

  std::size_t index(int x, int y, int channel = 0) const {
    return (static_cast<std::size_t>(y) * static_cast<std::size_t>(width) + static_cast<std::size_t>(x)) *
               static_cast<std::size_t>(channels) +
           static_cast<std::size_t>(channel);
  }
  std::uint8_t& at(int x, int y, int channel = 0) { return pixels[index(x, y, channel)]; }
  std::uint8_t at(int x, int y, int channel = 0) const { return pixels[index(x, y, channel)]; }
};

// Writes `image` by the path's extension: ".png" (8-bit grey or RGB PNG), ".pgm" (1 channel,
// binary P5) or ".ppm" (3 channels, binary P6), maxval 255. `comment` goes into the file: "# ..."
// header lines in PGM/PPM (one per '\n'-separated part), a PNG "Comment" text chunk.
// Atomic: temporary file in the same folder, then rename.
void write_image(const std::string& path, const Image& image, const std::string& comment = "");

// Reads an 8-bit PNG (grey or RGB; palette images are expanded, alpha is dropped) or a binary PGM
// (P5) / PPM (P6) with maxval 255; the format is told by the file's first bytes, not its name.
// A 16-bit file is refused (read_gray_image reads it).
Image read_image(const std::string& path);

// A grey image as numbers: the integers stored in the file and the same values scaled to [0, 1].
struct GrayImage {
  int width = 0;
  int height = 0;
  std::uint32_t maxval = 255;         // the value that means white: 255 for 8 bits, up to 65535 for 16
  std::vector<std::uint16_t> raw;     // row-major, row 0 at the top, each in 0..maxval
  std::vector<float> values;          // raw / maxval
  std::vector<std::string> comments;  // as in Image

  int bit_depth() const { return maxval > 255 ? 16 : 8; }
  float at(int x, int y) const {
    return values[static_cast<std::size_t>(y) * static_cast<std::size_t>(width) + static_cast<std::size_t>(x)];
  }
};

// Reads any PNG (grey, RGB, palette, with or without alpha, 1 to 16 bits; alpha is dropped), a PGM
// (P5, maxval 1..65535: one byte per sample up to 255, two big-endian bytes above) or a PPM (P6,
// the same maxvals), as grey. Colour becomes grey by the Rec. 601 luma weights,
// round(0.299 R + 0.587 G + 0.114 B), on the stored integers. PNG gamma chunks are ignored: the
// stored values are returned as they are.
GrayImage read_gray_image(const std::string& path);

// Quantizes `values` (row-major, width x height) to `bit_depth` 8 or 16 bits: raw =
// round(clamp(v, 0, 1) * maxval). A NaN or infinite value throws course::Error naming its pixel.
GrayImage gray_from_values(std::span<const float> values, int width, int height, int bit_depth);

// Writes a grey image by the path's extension: ".png" (8 or 16 bits by bit_depth(); a maxval other
// than 255 or 65535 is rescaled to the full range) or ".pgm" (its own maxval). Atomic, like
// write_image; `comment` as there.
void write_gray_image(const std::string& path, const GrayImage& image, const std::string& comment = "");

// The colour of grey level `level` in the course's colour map: black at 0, through deep blue,
// purple, orange and yellow, to near-white at 255 (an "inferno"-like ramp: brightness rises
// monotonically, so it prints readably in grey too).
std::array<std::uint8_t, 3> colormap(std::uint8_t level);

// A 3-channel copy of a 1-channel image, each grey level replaced by colormap(level).
Image apply_colormap(const Image& gray);

}  // namespace course
