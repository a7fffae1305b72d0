// Inside the image module: one in-memory form of an image (a raster of integers) that every
// format decodes into and encodes from, and the file access they share. Not a public header.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace course::image_detail {

// width x height pixels of `channels` (1 or 3) integer samples each, 0..maxval (1..65535).
struct Raster {
  int width = 0;
  int height = 0;
  int channels = 1;
  std::uint32_t maxval = 255;
  std::vector<std::uint16_t> samples;  // row-major, row 0 at the top, channels interleaved
  std::vector<std::string> comments;   // one entry per line
};

[[noreturn]] void fail(const std::string& path, const std::string& what);

// Refuses zero, negative or absurd dimensions (kMaxImageDimension, kMaxImagePixels).
void check_dimensions(const std::string& path, long long width, long long height);

// The whole content of a regular file. A missing file, a folder, a FIFO, a device or socket, an
// empty file or one too large to be an image fails with one line naming the path.
std::vector<unsigned char> read_whole_file(const std::string& path);

// Writes `bytes` to `path` through a temporary file in the same folder and a rename.
void write_file_atomically(const std::string& path, std::span<const unsigned char> bytes);

bool looks_like_png(std::span<const unsigned char> bytes);
Raster decode_png(const std::string& path, std::span<const unsigned char> bytes);
Raster decode_pnm(const std::string& path, std::span<const unsigned char> bytes);

// Encodes a raster with maxval 255 (8 bits) or 65535 (16 bits); `comment` as a text chunk.
std::vector<unsigned char> encode_png(const std::string& path, const Raster& raster, const std::string& comment);
// P5 (1 channel) or P6 (3 channels) with the raster's maxval; `comment` as "# " lines.
std::vector<unsigned char> encode_pnm(const Raster& raster, const std::string& comment);

// Splits `text` at '\n' (a trailing newline adds no empty line).
std::vector<std::string> split_lines(const std::string& text);

}  // namespace course::image_detail
