// PNG through libpng, decoded from and encoded to memory.
//
// libpng reports errors by longjmp: its error callback must not return. A longjmp that skips a
// C++ object's destructor is undefined behaviour, so every libpng call that can fail runs in a
// small step function (read_header, read_layout, read_pixels, write_steps) whose only locals are plain values;
// the buffers they fill are owned by the caller, whose frame the longjmp never leaves. The error
// text lands in PngIo, and the caller turns it into a course::Error.
#include <png.h>

#include <csetjmp>
#include <cstdio>
#include <cstring>
#include <algorithm>
#include <string>

#include "course/image.hpp"
#include "image_codec.hpp"

namespace course::image_detail {

namespace {

// Plain data shared with libpng's callbacks (through its error and io pointers).
struct PngIo {
  const unsigned char* data = nullptr;  // reading: the whole file
  std::size_t size = 0;
  std::size_t offset = 0;
  std::vector<unsigned char>* out = nullptr;  // writing
  bool truncated = false;
  char message[256] = {};
};

void on_error(png_structp png, png_const_charp message) {
  auto* io = static_cast<PngIo*>(png_get_error_ptr(png));
  std::snprintf(io->message, sizeof io->message, "%s", message);
  png_longjmp(png, 1);
}

// Warnings (an ancillary chunk with a bad CRC, a known-incorrect colour profile) leave the pixels
// intact; they are not the reader's concern.
void on_warning(png_structp, png_const_charp) {}

void read_bytes(png_structp png, png_bytep destination, std::size_t count) {
  auto* io = static_cast<PngIo*>(png_get_io_ptr(png));
  if (count > io->size - io->offset) {
    io->truncated = true;
    png_error(png, "the file ends early");
  }
  std::memcpy(destination, io->data + io->offset, count);
  io->offset += count;
}

void write_bytes(png_structp png, png_bytep source, std::size_t count) {
  auto* io = static_cast<PngIo*>(png_get_io_ptr(png));
  try {
    io->out->insert(io->out->end(), source, source + count);
  } catch (...) {  // no exception may cross libpng's C frames
    png_error(png, "out of memory while encoding");
  }
}

void flush_nothing(png_structp) {}

class PngReadStruct {
 public:
  explicit PngReadStruct(PngIo* io)
      : png_(png_create_read_struct(PNG_LIBPNG_VER_STRING, io, on_error, on_warning)),
        info_(png_ != nullptr ? png_create_info_struct(png_) : nullptr) {}
  ~PngReadStruct() { png_destroy_read_struct(&png_, info_ != nullptr ? &info_ : nullptr, nullptr); }
  PngReadStruct(const PngReadStruct&) = delete;
  PngReadStruct& operator=(const PngReadStruct&) = delete;
  png_structp png() const { return png_; }
  png_infop info() const { return info_; }

 private:
  png_structp png_;
  png_infop info_;
};

class PngWriteStruct {
 public:
  explicit PngWriteStruct(PngIo* io)
      : png_(png_create_write_struct(PNG_LIBPNG_VER_STRING, io, on_error, on_warning)),
        info_(png_ != nullptr ? png_create_info_struct(png_) : nullptr) {}
  ~PngWriteStruct() { png_destroy_write_struct(&png_, info_ != nullptr ? &info_ : nullptr); }
  PngWriteStruct(const PngWriteStruct&) = delete;
  PngWriteStruct& operator=(const PngWriteStruct&) = delete;
  png_structp png() const { return png_; }
  png_infop info() const { return info_; }

 private:
  png_structp png_;
  png_infop info_;
};

struct PngLayout {
  png_uint_32 width = 0;
  png_uint_32 height = 0;
  int channels = 0;
  int bit_depth = 0;
  std::size_t row_bytes = 0;
};

// Step 1: the signature and the chunks before the pixels; the size as the file states it.
bool read_header(png_structp png, png_infop info, PngIo* io, PngLayout* layout) {
  if (setjmp(png_jmpbuf(png))) return false;
  png_set_read_fn(png, io, read_bytes);
  // The course's own limits decide (check_dimensions, with a message that names them).
  png_set_user_limits(png, 0x7fffffff, 0x7fffffff);
  png_read_info(png, info);
  layout->width = png_get_image_width(png, info);
  layout->height = png_get_image_height(png, info);
  return true;
}

// Step 2, once the size is known to be sane: ask for 8 or 16-bit grey or RGB samples.
bool read_layout(png_structp png, png_infop info, PngLayout* layout) {
  if (setjmp(png_jmpbuf(png))) return false;
  png_set_expand(png);       // palette -> RGB, grey of 1, 2 or 4 bits -> 8 bits, tRNS -> alpha
  png_set_strip_alpha(png);  // the course's images are opaque
  png_set_interlace_handling(png);
  png_read_update_info(png, info);
  layout->channels = png_get_channels(png, info);
  layout->bit_depth = png_get_bit_depth(png, info);
  layout->row_bytes = png_get_rowbytes(png, info);
  return true;
}

// Step 3: the samples, into rows the caller allocated, then the chunks after them (text may follow).
bool read_pixels(png_structp png, png_infop info, png_bytepp rows) {
  if (setjmp(png_jmpbuf(png))) return false;
  png_read_image(png, rows);
  png_read_end(png, info);
  return true;
}

std::string png_problem(const PngIo& io) {
  if (io.truncated) return "truncated PNG data (the file ends before the image does)";
  return std::string("corrupt PNG: ") + io.message;
}

std::vector<std::string> comments_of(png_structp png, png_infop info) {
  std::vector<std::string> comments;
  png_textp text = nullptr;
  const int count = png_get_text(png, info, &text, nullptr);
  for (int i = 0; i < count; ++i) {
    if (std::strcmp(text[i].key, "Comment") != 0) continue;
    for (std::string& line : split_lines(text[i].text != nullptr ? text[i].text : "")) comments.push_back(std::move(line));
  }
  return comments;
}

// Writing, in one step: header, text, rows, end.
bool write_steps(png_structp png, png_infop info, PngIo* io, const PngLayout* layout, png_bytepp rows,
                 png_textp text, int text_count) {
  if (setjmp(png_jmpbuf(png))) return false;
  png_set_write_fn(png, io, write_bytes, flush_nothing);
  png_set_IHDR(png, info, layout->width, layout->height, layout->bit_depth,
               layout->channels == 1 ? PNG_COLOR_TYPE_GRAY : PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE,
               PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  if (text_count > 0) png_set_text(png, info, text, text_count);
  png_write_info(png, info);
  png_write_image(png, rows);
  png_write_end(png, nullptr);
  return true;
}

}  // namespace

bool looks_like_png(std::span<const unsigned char> bytes) {
  static constexpr unsigned char kSignature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
  // Four bytes are enough to tell: a shorter-than-8 file that starts so is a truncated PNG.
  return bytes.size() >= 4 && std::memcmp(bytes.data(), kSignature, std::min<std::size_t>(bytes.size(), 8)) == 0;
}

Raster decode_png(const std::string& path, std::span<const unsigned char> bytes) {
  PngIo io;
  io.data = bytes.data();
  io.size = bytes.size();
  PngReadStruct reader(&io);
  if (reader.png() == nullptr || reader.info() == nullptr) fail(path, "libpng could not start (out of memory)");
  PngLayout layout;
  if (!read_header(reader.png(), reader.info(), &io, &layout)) fail(path, png_problem(io));
  check_dimensions(path, layout.width, layout.height);

  if (!read_layout(reader.png(), reader.info(), &layout)) fail(path, png_problem(io));
  if (layout.channels != 1 && layout.channels != 3) {
    fail(path, "unexpected PNG layout: " + std::to_string(layout.channels) + " channels after expansion");
  }
  std::vector<unsigned char> pixels(layout.row_bytes * layout.height);
  std::vector<png_bytep> rows(layout.height);
  for (std::size_t y = 0; y < layout.height; ++y) rows[y] = pixels.data() + y * layout.row_bytes;
  if (!read_pixels(reader.png(), reader.info(), rows.data())) fail(path, png_problem(io));

  Raster raster;
  raster.width = static_cast<int>(layout.width);
  raster.height = static_cast<int>(layout.height);
  raster.channels = layout.channels;
  raster.maxval = layout.bit_depth == 16 ? 65535 : 255;
  raster.comments = comments_of(reader.png(), reader.info());
  const std::size_t count = static_cast<std::size_t>(raster.width) * static_cast<std::size_t>(raster.height) *
                            static_cast<std::size_t>(raster.channels);
  raster.samples.resize(count);
  for (std::size_t y = 0; y < layout.height; ++y) {
    const unsigned char* row = pixels.data() + y * layout.row_bytes;
    const std::size_t per_row = static_cast<std::size_t>(raster.width) * static_cast<std::size_t>(raster.channels);
    for (std::size_t i = 0; i < per_row; ++i) {
      // PNG stores 16-bit samples big-endian.
      raster.samples[y * per_row + i] = layout.bit_depth == 16
                                            ? static_cast<std::uint16_t>((row[2 * i] << 8) | row[2 * i + 1])
                                            : row[i];
    }
  }
  return raster;
}

std::vector<unsigned char> encode_png(const std::string& path, const Raster& raster, const std::string& comment) {
  if (raster.maxval != 255 && raster.maxval != 65535) {
    fail(path, "PNG samples need maxval 255 or 65535, not " + std::to_string(raster.maxval));
  }
  PngLayout layout;
  layout.width = static_cast<png_uint_32>(raster.width);
  layout.height = static_cast<png_uint_32>(raster.height);
  layout.channels = raster.channels;
  layout.bit_depth = raster.maxval == 65535 ? 16 : 8;
  const std::size_t bytes_per_sample = layout.bit_depth / 8;
  const std::size_t per_row = static_cast<std::size_t>(raster.width) * static_cast<std::size_t>(raster.channels);
  layout.row_bytes = per_row * bytes_per_sample;

  std::vector<unsigned char> pixels(layout.row_bytes * layout.height);
  for (std::size_t i = 0; i < raster.samples.size(); ++i) {
    if (bytes_per_sample == 2) {
      pixels[2 * i] = static_cast<unsigned char>(raster.samples[i] >> 8);
      pixels[2 * i + 1] = static_cast<unsigned char>(raster.samples[i] & 0xFF);
    } else {
      pixels[i] = static_cast<unsigned char>(raster.samples[i]);
    }
  }
  std::vector<png_bytep> rows(layout.height);
  for (std::size_t y = 0; y < layout.height; ++y) rows[y] = pixels.data() + y * layout.row_bytes;

  std::string key = "Comment";  // libpng's text fields are not const
  std::string text = comment;
  png_text chunk{};
  chunk.compression = PNG_TEXT_COMPRESSION_NONE;
  chunk.key = key.data();
  chunk.text = text.data();
  chunk.text_length = text.size();

  std::vector<unsigned char> encoded;
  PngIo io;
  io.out = &encoded;
  PngWriteStruct writer(&io);
  if (writer.png() == nullptr || writer.info() == nullptr) fail(path, "libpng could not start (out of memory)");
  if (!write_steps(writer.png(), writer.info(), &io, &layout, rows.data(), &chunk, comment.empty() ? 0 : 1)) {
    fail(path, std::string("PNG encoding failed: ") + io.message);
  }
  return encoded;
}

}  // namespace course::image_detail
