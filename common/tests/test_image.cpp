// The image module: PNG (8 and 16 bits), PGM (8 and 16 bits) and PPM round trips, PPM and RGB PNG
// read as grey, atomic writes that leave nothing behind on failure, and reads of missing,
// truncated, corrupt or malformed files (and of folders, FIFOs, devices) that fail with one line
// naming the path and the problem.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <fstream>
#include <string>

#include "course/errors.hpp"
#include "course/image.hpp"

#include "scratch_folder.hpp"

namespace {

namespace fs = std::filesystem;
using namespace std::string_literals;  // "..."s keeps embedded zero bytes

// A fresh, empty folder per test, removed afterwards.
class ImageFiles : public course::testing::ScratchFolderTest {
 protected:
  void expect_grey_round_trip(const std::string& file);
};

course::Image pattern(int width, int height, int channels) {
  course::Image image(width, height, channels);
  for (std::size_t i = 0; i < image.pixels.size(); ++i) image.pixels[i] = static_cast<std::uint8_t>((i * 37 + 11) % 256);
  return image;
}

void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary);
  out << bytes;
}

// The message must be one line and name the file.
void expect_error_names(const std::string& path, const std::function<void()>& action, const std::string& what) {
  try {
    action();
    ADD_FAILURE() << "no error for " << path;
  } catch (const course::Error& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find(path), std::string::npos) << message;
    EXPECT_NE(message.find(what), std::string::npos) << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  }
}

// Writes a 7 x 5 grey image with two comment lines to `file` and reads it back: every byte and
// both comments survive, and no temporary file is left. Odd sizes, so a row-length or stride
// mistake shows.
void ImageFiles::expect_grey_round_trip(const std::string& file) {
  const course::Image image = pattern(7, 5, 1);
  course::write_image(file, image, "view -2 1 -1 1\niters 20");
  const course::Image back = course::read_image(file);
  EXPECT_EQ(back.width, 7);
  EXPECT_EQ(back.height, 5);
  EXPECT_EQ(back.channels, 1);
  EXPECT_EQ(back.pixels, image.pixels);
  ASSERT_EQ(back.comments.size(), 2u);
  EXPECT_EQ(back.comments[0], "view -2 1 -1 1");
  EXPECT_EQ(back.comments[1], "iters 20");
  EXPECT_EQ(files_in_folder(), 1u) << "the temporary file must be gone";
}

TEST_F(ImageFiles, PgmRoundTripKeepsEveryByteAndTheComments) {
  expect_grey_round_trip(path("a.pgm"));
  // The header is the plain-text one every viewer reads.
  std::ifstream in(path("a.pgm"), std::ios::binary);
  std::string magic;
  in >> magic;
  EXPECT_EQ(magic, "P5");
}

TEST_F(ImageFiles, PpmRoundTripAndColormap) {
  const course::Image gray = pattern(3, 11, 1);
  const course::Image rgb = course::apply_colormap(gray);
  ASSERT_EQ(rgb.channels, 3);
  course::write_image(path("a.ppm"), rgb);
  const course::Image back = course::read_image(path("a.ppm"));
  EXPECT_EQ(back.channels, 3);
  EXPECT_EQ(back.pixels, rgb.pixels);
  for (int y = 0; y < gray.height; ++y) {
    for (int x = 0; x < gray.width; ++x) {
      const auto colour = course::colormap(gray.at(x, y));
      for (int c = 0; c < 3; ++c) EXPECT_EQ(back.at(x, y, c), colour[static_cast<std::size_t>(c)]);
    }
  }
}

TEST(ImageColormap, EndsAreBlackAndBrightAndBrightnessRises) {
  EXPECT_EQ(course::colormap(0)[0], 0);
  EXPECT_EQ(course::colormap(0)[1], 0);
  double previous = -1;
  for (int level = 0; level < 256; ++level) {
    const auto c = course::colormap(static_cast<std::uint8_t>(level));
    const double luma = 0.299 * c[0] + 0.587 * c[1] + 0.114 * c[2];
    EXPECT_GE(luma, previous - 0.6) << "level " << level;  // monotone up to rounding of the stops
    previous = luma;
  }
  EXPECT_GT(previous, 200);
}

TEST_F(ImageFiles, OverwritingReplacesTheWholeFile) {
  course::write_image(path("a.pgm"), pattern(64, 64, 1));
  const course::Image small = pattern(2, 3, 1);
  course::write_image(path("a.pgm"), small);
  EXPECT_EQ(course::read_image(path("a.pgm")).pixels, small.pixels);
  EXPECT_EQ(files_in_folder(), 1u);
}

TEST_F(ImageFiles, AMissingFolderFailsAndWritesNothing) {
  const std::string target = path("no_such_folder/a.pgm");
  expect_error_names(target, [&] { course::write_image(target, pattern(4, 4, 1)); }, "cannot create");
  EXPECT_EQ(files_in_folder(), 0u);
}

TEST_F(ImageFiles, AFolderAtThePathIsRefusedWithNoTemporaryFileLeft) {
  // The destination is a non-empty folder: everything is written to the temporary file, then the
  // commit refuses to rename it over anything but a regular file (common/src/files.cpp).
  fs::create_directories(folder_ / "taken.pgm" / "inside");
  expect_error_names(path("taken.pgm"), [&] { course::write_image(path("taken.pgm"), pattern(4, 4, 1)); },
                     "a folder is there");
  EXPECT_EQ(files_in_folder(), 1u) << "only the folder that was already there";
  EXPECT_TRUE(fs::is_directory(folder_ / "taken.pgm" / "inside"));
}

TEST_F(ImageFiles, BadShapesAreRefusedBeforeAnythingIsWritten) {
  course::Image wrong = pattern(4, 4, 1);
  wrong.pixels.pop_back();
  expect_error_names(path("a.pgm"), [&] { course::write_image(path("a.pgm"), wrong); }, "bytes of pixels");
  course::Image empty;
  expect_error_names(path("b.pgm"), [&] { course::write_image(path("b.pgm"), empty); }, "0 x 0");
  EXPECT_EQ(files_in_folder(), 0u);
  EXPECT_THROW(course::Image(4, 4, 2), course::Error);
}

TEST_F(ImageFiles, ReadingAMissingFileFails) {
  expect_error_names(path("missing.pgm"), [&] { course::read_image(path("missing.pgm")); }, "cannot open");
}

TEST_F(ImageFiles, ReadingATruncatedFileFails) {
  course::write_image(path("a.pgm"), pattern(10, 10, 1));
  const auto size = fs::file_size(path("a.pgm"));
  fs::resize_file(path("a.pgm"), size - 7);
  expect_error_names(path("a.pgm"), [&] { course::read_image(path("a.pgm")); }, "truncated: 93 of 100");
  write_bytes(path("b.pgm"), "P5\n10 ");
  expect_error_names(path("b.pgm"), [&] { course::read_image(path("b.pgm")); }, "truncated header");
  write_bytes(path("c.pgm"), "");
  expect_error_names(path("c.pgm"), [&] { course::read_image(path("c.pgm")); }, "empty");
  // 16-bit data: two bytes a sample, so 3 bytes are not enough for 2 samples.
  write_bytes(path("d.pgm"), "P5\n2 1\n65535\n\x01\x02\x03"s);
  expect_error_names(path("d.pgm"), [&] { course::read_gray_image(path("d.pgm")); }, "truncated: 3 of 4");
}

TEST_F(ImageFiles, ReadingAMalformedHeaderFails) {
  write_bytes(path("text.pgm"), "P2\n2 2\n255\n0 0 0 0\n");
  expect_error_names(path("text.pgm"), [&] { course::read_image(path("text.pgm")); }, "not a PNG, binary PGM");
  write_bytes(path("jpeg.png"), "\xFF\xD8\xFF\xE0 not a png");
  expect_error_names(path("jpeg.png"), [&] { course::read_gray_image(path("jpeg.png")); }, "not a PNG, binary PGM");
  write_bytes(path("zero.pgm"), "P5\n0 2\n255\n");
  expect_error_names(path("zero.pgm"), [&] { course::read_image(path("zero.pgm")); }, "bad dimensions 0 x 2");
  write_bytes(path("neg.pgm"), "P5\n2 -2\n255\n");
  expect_error_names(path("neg.pgm"), [&] { course::read_image(path("neg.pgm")); }, "bad height");
  write_bytes(path("deep.pgm"), "P5\n1 1\n65535\n\x01\x02");
  expect_error_names(path("deep.pgm"), [&] { course::read_image(path("deep.pgm")); }, "maxval 65535");
  write_bytes(path("maxval0.pgm"), "P5\n1 1\n0\n\x00"s);
  expect_error_names(path("maxval0.pgm"), [&] { course::read_gray_image(path("maxval0.pgm")); }, "maxval 0");
  write_bytes(path("huge.pgm"), "P5\n2000000 2000000\n255\n");
  expect_error_names(path("huge.pgm"), [&] { course::read_gray_image(path("huge.pgm")); }, "absurd dimensions");
  write_bytes(path("many.pgm"), "P5\n1048576 1048576\n255\n");
  expect_error_names(path("many.pgm"), [&] { course::read_gray_image(path("many.pgm")); }, "absurd dimensions");
  write_bytes(path("overflow.pgm"), "P5\n99999999999999999999 2\n255\n");
  expect_error_names(path("overflow.pgm"), [&] { course::read_gray_image(path("overflow.pgm")); }, "absurd width");
  write_bytes(path("above.pgm"), "P5\n2 1\n100\n\x10\x65");
  expect_error_names(path("above.pgm"), [&] { course::read_gray_image(path("above.pgm")); }, "above maxval 100");
}

// ---- PNG and 16-bit samples -------------------------------------------------------------------

std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

bool starts_as_png(const std::string& path) { return read_bytes(path).rfind("\x89PNG\r\n\x1a\n", 0) == 0; }

TEST_F(ImageFiles, PngGreyRoundTripKeepsEveryByteAndTheComments) {
  expect_grey_round_trip(path("a.png"));
  EXPECT_TRUE(starts_as_png(path("a.png")));
}

TEST_F(ImageFiles, PngRgbRoundTripAndTheSameImageAsGrey) {
  const course::Image rgb = course::apply_colormap(pattern(13, 3, 1));
  course::write_image(path("a.PNG"), rgb);  // the extension in any case
  EXPECT_TRUE(starts_as_png(path("a.PNG")));
  const course::Image back = course::read_image(path("a.PNG"));
  EXPECT_EQ(back.channels, 3);
  EXPECT_EQ(back.pixels, rgb.pixels);
  const course::GrayImage gray = course::read_gray_image(path("a.PNG"));
  ASSERT_EQ(gray.raw.size(), 13u * 3u);
  EXPECT_EQ(gray.maxval, 255u);
  for (std::size_t i = 0; i < gray.raw.size(); ++i) {
    const double luma = 0.299 * rgb.pixels[3 * i] + 0.587 * rgb.pixels[3 * i + 1] + 0.114 * rgb.pixels[3 * i + 2];
    EXPECT_EQ(gray.raw[i], std::lround(luma)) << "pixel " << i;
    EXPECT_FLOAT_EQ(gray.values[i], static_cast<float>(gray.raw[i]) / 255.0f);
  }
}

TEST_F(ImageFiles, SixteenBitPngAndPgmRoundTripEverySample) {
  // Values that need both bytes, both ends of the range, and one each side of a byte boundary.
  std::vector<float> values = {0.0f, 1.0f, 255.0f / 65535, 256.0f / 65535, 0.5f, 0.123456f, 0.999f, 1.5f, -0.25f};
  const course::GrayImage image = course::gray_from_values(values, 3, 3, 16);
  EXPECT_EQ(image.maxval, 65535u);
  EXPECT_EQ(image.raw[2], 255);
  EXPECT_EQ(image.raw[3], 256);
  EXPECT_EQ(image.raw[7], 65535) << "above 1 is clamped";
  EXPECT_EQ(image.raw[8], 0) << "below 0 is clamped";
  for (const std::string name : {"a.png", "a.pgm"}) {
    course::write_gray_image(path(name), image, "sixteen bits");
    const course::GrayImage back = course::read_gray_image(path(name));
    EXPECT_EQ(back.width, 3);
    EXPECT_EQ(back.height, 3);
    EXPECT_EQ(back.maxval, 65535u) << name;
    EXPECT_EQ(back.bit_depth(), 16);
    EXPECT_EQ(back.raw, image.raw) << name;
    EXPECT_EQ(back.values, image.values) << name;
    ASSERT_EQ(back.comments.size(), 1u);
    EXPECT_EQ(back.comments[0], "sixteen bits");
  }
  EXPECT_TRUE(starts_as_png(path("a.png")));
  EXPECT_EQ(read_bytes(path("a.pgm")).rfind("P5\n# sixteen bits\n3 3\n65535\n", 0), 0u);
  // An 8-bit reader refuses 16 bits and names the reader that takes them.
  expect_error_names(path("a.png"), [&] { course::read_image(path("a.png")); }, "read_gray_image reads this one");
}

TEST_F(ImageFiles, EightBitPgmAndOddMaxvalReadAsFractions) {
  course::write_image(path("a.pgm"), pattern(5, 4, 1));
  const course::GrayImage eight = course::read_gray_image(path("a.pgm"));
  EXPECT_EQ(eight.bit_depth(), 8);
  for (std::size_t i = 0; i < eight.raw.size(); ++i) EXPECT_FLOAT_EQ(eight.values[i], eight.raw[i] / 255.0f);
  // maxval 1000 (two bytes a sample): 1000 is white, 250 a quarter.
  write_bytes(path("odd.pgm"), "P5\n2 1\n1000\n\x03\xE8\x00\xFA"s);
  const course::GrayImage odd = course::read_gray_image(path("odd.pgm"));
  EXPECT_EQ(odd.maxval, 1000u);
  EXPECT_EQ(odd.raw, (std::vector<std::uint16_t>{1000, 250}));
  EXPECT_FLOAT_EQ(odd.values[0], 1.0f);
  EXPECT_FLOAT_EQ(odd.values[1], 0.25f);
  // Written as PNG, that maxval is stretched to the full 16 bits.
  course::write_gray_image(path("odd.png"), odd);
  EXPECT_EQ(course::read_gray_image(path("odd.png")).raw, (std::vector<std::uint16_t>{65535, 16384}));
}

TEST_F(ImageFiles, PpmReadsAsGreyByLuma) {
  // 8 bits: pure red, green, blue and a grey; and the same from a 16-bit PPM.
  write_bytes(path("a.ppm"), "P6\n4 1\n255\n\xFF\x00\x00\x00\xFF\x00\x00\x00\xFF\x40\x40\x40"s);
  const course::GrayImage eight = course::read_gray_image(path("a.ppm"));
  EXPECT_EQ(eight.raw, (std::vector<std::uint16_t>{76, 150, 29, 64}));  // round(255 * 0.299, 0.587, 0.114), 64
  std::string wide = "P6\n2 1\n65535\n";
  wide += "\xFF\xFF\x00\x00\x00\x00"s;  // red
  wide += "\x10\x00\x10\x00\x10\x00"s;  // grey 4096
  write_bytes(path("b.ppm"), wide);
  const course::GrayImage sixteen = course::read_gray_image(path("b.ppm"));
  EXPECT_EQ(sixteen.maxval, 65535u);
  EXPECT_EQ(sixteen.raw, (std::vector<std::uint16_t>{19595, 4096}));  // round(65535 * 0.299)
}

TEST(ImageValues, NonFiniteValuesAndBadShapesAreRefused) {
  const std::vector<float> with_nan = {0.0f, std::nanf(""), 0.5f, 1.0f};
  try {
    course::gray_from_values(with_nan, 2, 2, 8);
    ADD_FAILURE() << "NaN accepted";
  } catch (const course::Error& error) {
    EXPECT_NE(std::string(error.what()).find("pixel (1, 0)"), std::string::npos) << error.what();
  }
  const std::vector<float> four(4, 0.5f);
  EXPECT_THROW(course::gray_from_values(four, 2, 2, 12), course::Error);
  EXPECT_THROW(course::gray_from_values(four, 3, 2, 8), course::Error);
  EXPECT_THROW(course::gray_from_values(four, 0, 4, 8), course::Error);
  EXPECT_EQ(course::gray_from_values(four, 2, 2, 8).raw, (std::vector<std::uint16_t>(4, 128)));
}

TEST_F(ImageFiles, WrongExtensionsAreRefusedBeforeAnythingIsWritten) {
  expect_error_names(path("a.jpg"), [&] { course::write_image(path("a.jpg"), pattern(2, 2, 1)); },
                     "unknown image type '.jpg'");
  expect_error_names(path("a.pgm"), [&] { course::write_image(path("a.pgm"), pattern(2, 2, 3)); },
                     "a .pgm file holds 1 channel");
  expect_error_names(path("a.ppm"), [&] { course::write_image(path("a.ppm"), pattern(2, 2, 1)); },
                     "a .ppm file holds 3 channels");
  const course::GrayImage gray = course::gray_from_values(std::vector<float>(4, 0.5f), 2, 2, 8);
  expect_error_names(path("a.ppm"), [&] { course::write_gray_image(path("a.ppm"), gray); }, "must end in .png or .pgm");
  EXPECT_EQ(files_in_folder(), 0u);
}

TEST_F(ImageFiles, FoldersFifosAndDevicesAreRefused) {
  fs::create_directories(folder_ / "folder.png");
  expect_error_names(path("folder.png"), [&] { course::read_gray_image(path("folder.png")); }, "is a folder");
  ASSERT_EQ(::mkfifo(path("pipe.pgm").c_str(), 0600), 0);
  // Must not hang waiting for a writer.
  expect_error_names(path("pipe.pgm"), [&] { course::read_gray_image(path("pipe.pgm")); }, "is a FIFO");
  expect_error_names("/dev/null", [&] { course::read_image("/dev/null"); }, "is a device");
  expect_error_names(path("missing.png"), [&] { course::read_gray_image(path("missing.png")); }, "cannot open");
}

// The CRC of a PNG chunk (type and data), to build valid chunks with bad contents.
std::uint32_t png_crc(const std::string& bytes) {
  std::uint32_t crc = 0xFFFFFFFFu;
  for (const unsigned char byte : bytes) {
    crc ^= byte;
    for (int bit = 0; bit < 8; ++bit) crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
  }
  return crc ^ 0xFFFFFFFFu;
}

void put_be32(std::string& bytes, std::size_t at, std::uint32_t value) {
  for (int i = 0; i < 4; ++i) bytes[at + static_cast<std::size_t>(i)] = static_cast<char>((value >> (24 - 8 * i)) & 0xFF);
}

TEST_F(ImageFiles, TruncatedCorruptAndAbsurdPngsAreRefused) {
  course::write_image(path("a.png"), pattern(40, 30, 1));
  const std::string good = read_bytes(path("a.png"));
  ASSERT_GT(good.size(), 60u);

  write_bytes(path("short.png"), good.substr(0, good.size() - 20));  // cut inside the image data
  expect_error_names(path("short.png"), [&] { course::read_gray_image(path("short.png")); }, "truncated PNG data");
  write_bytes(path("sig.png"), good.substr(0, 6));  // only part of the signature
  expect_error_names(path("sig.png"), [&] { course::read_gray_image(path("sig.png")); }, "truncated PNG data");

  std::string flipped = good;
  flipped[good.size() - 20] = static_cast<char>(flipped[good.size() - 20] ^ 0x5A);  // image data no longer matches its CRC
  write_bytes(path("crc.png"), flipped);
  expect_error_names(path("crc.png"), [&] { course::read_gray_image(path("crc.png")); }, "corrupt PNG");

  // The IHDR chunk (bytes 8..32) re-signed with other sizes: zero, and beyond the course's limits.
  const auto with_size = [&](std::uint32_t width, std::uint32_t height) {
    std::string bytes = good;
    put_be32(bytes, 16, width);
    put_be32(bytes, 20, height);
    put_be32(bytes, 29, png_crc(bytes.substr(12, 17)));
    return bytes;
  };
  write_bytes(path("wide.png"), with_size(2000000, 30));
  expect_error_names(path("wide.png"), [&] { course::read_gray_image(path("wide.png")); }, "absurd dimensions");
  write_bytes(path("many.png"), with_size(1 << 20, 1 << 20));
  expect_error_names(path("many.png"), [&] { course::read_gray_image(path("many.png")); }, "absurd dimensions");
  write_bytes(path("zero.png"), with_size(0, 30));  // libpng refuses it as an invalid header
  expect_error_names(path("zero.png"), [&] { course::read_gray_image(path("zero.png")); }, "corrupt PNG");
  write_bytes(path("same.png"), with_size(40, 30));  // the re-signing itself is right
  EXPECT_EQ(course::read_gray_image(path("same.png")).width, 40);
}

// A PNG built by hand, not by libpng's encoder: chunks with their CRCs, the pixels (each row
// after a filter byte 0) in one uncompressed ("stored") deflate block.
std::string chunk(const std::string& type, const std::string& data) {
  std::string bytes(4, '\0');
  put_be32(bytes, 0, static_cast<std::uint32_t>(data.size()));
  bytes += type + data + std::string(4, '\0');
  put_be32(bytes, bytes.size() - 4, png_crc(type + data));
  return bytes;
}

std::string hand_made_png(std::uint32_t width, std::uint32_t height, int bit_depth, int colour_type,
                          const std::vector<std::string>& rows, const std::string& extra_chunks = "") {
  std::string header(13, '\0');
  put_be32(header, 0, width);
  put_be32(header, 4, height);
  header[8] = static_cast<char>(bit_depth);
  header[9] = static_cast<char>(colour_type);
  std::string raw;
  for (const std::string& row : rows) raw += '\0' + row;
  std::uint32_t a = 1, b = 0;  // Adler-32 of the uncompressed data ends a zlib stream
  for (const unsigned char c : raw) {
    a = (a + c) % 65521;
    b = (b + a) % 65521;
  }
  const auto length = static_cast<std::uint16_t>(raw.size());
  std::string zlib = "\x78\x01\x01";  // zlib header, then a final stored block: LEN, ~LEN, the bytes
  zlib += static_cast<char>(length & 0xFF);
  zlib += static_cast<char>(length >> 8);
  zlib += static_cast<char>(~length & 0xFF);
  zlib += static_cast<char>((~length >> 8) & 0xFF);
  zlib += raw + std::string(4, '\0');
  put_be32(zlib, zlib.size() - 4, (b << 16) | a);
  return "\x89PNG\r\n\x1a\n"s + chunk("IHDR", header) + extra_chunks + chunk("IDAT", zlib) +
         chunk("IEND", "");
}

TEST_F(ImageFiles, PngsOfEveryColourTypeReadAsGrey) {
  // 1-bit grey: 1 is white (255 after expansion to 8 bits).
  write_bytes(path("bits.png"), hand_made_png(8, 1, 1, 0, {"\xA0"}));
  EXPECT_EQ(course::read_gray_image(path("bits.png")).raw, (std::vector<std::uint16_t>{255, 0, 255, 0, 0, 0, 0, 0}));
  // Palette: indices 0, 1, 2 into red, green, blue.
  write_bytes(path("palette.png"),
              hand_made_png(3, 1, 8, 3, {"\x00\x01\x02"s},
                            chunk("PLTE", "\xFF\x00\x00\x00\xFF\x00\x00\x00\xFF"s)));
  const course::GrayImage palette = course::read_gray_image(path("palette.png"));
  EXPECT_EQ(palette.raw, (std::vector<std::uint16_t>{76, 150, 29}));
  EXPECT_EQ(course::read_image(path("palette.png")).channels, 3);
  // Grey with alpha: the alpha is dropped, the grey kept.
  write_bytes(path("alpha.png"), hand_made_png(2, 1, 8, 4, {"\x20\x00\xC0\xFF"s}));
  EXPECT_EQ(course::read_gray_image(path("alpha.png")).raw, (std::vector<std::uint16_t>{0x20, 0xC0}));
  // 16-bit RGBA, two rows: a 16-bit grey of luma values.
  write_bytes(path("rgba16.png"), hand_made_png(1, 2, 16, 6,
                                                {"\xFF\xFF\x00\x00\x00\x00\xFF\xFF"s,
                                                 "\x12\x34\x12\x34\x12\x34\x00\x00"s}));
  const course::GrayImage rgba = course::read_gray_image(path("rgba16.png"));
  EXPECT_EQ(rgba.maxval, 65535u);
  EXPECT_EQ(rgba.raw, (std::vector<std::uint16_t>{19595, 0x1234}));
}

}  // namespace
