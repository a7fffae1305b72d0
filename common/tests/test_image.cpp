// The image module: PGM/PPM round trips, atomic writes that leave nothing behind on failure,
// and reads of missing, truncated or malformed files that fail with one line naming the path.
#include <gtest/gtest.h>

#include <filesystem>
#include <functional>
#include <fstream>
#include <string>

#include "course/errors.hpp"
#include "course/image.hpp"

namespace {

namespace fs = std::filesystem;

// A fresh, empty folder per test, removed afterwards.
class ImageFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    folder_ = fs::temp_directory_path() /
              ("course_image_test_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(folder_);
    fs::create_directories(folder_);
  }
  void TearDown() override { fs::remove_all(folder_); }

  std::string path(const std::string& name) const { return (folder_ / name).string(); }
  std::size_t files_in_folder() const {
    return static_cast<std::size_t>(std::distance(fs::directory_iterator(folder_), fs::directory_iterator()));
  }

  fs::path folder_;
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

TEST_F(ImageFiles, PgmRoundTripKeepsEveryByteAndTheComments) {
  // 7 x 5: odd sizes, so a row-length or stride mistake shows.
  const course::Image image = pattern(7, 5, 1);
  course::write_image(path("a.pgm"), image, "view -2 1 -1 1\niters 20");
  const course::Image back = course::read_image(path("a.pgm"));
  EXPECT_EQ(back.width, 7);
  EXPECT_EQ(back.height, 5);
  EXPECT_EQ(back.channels, 1);
  EXPECT_EQ(back.pixels, image.pixels);
  ASSERT_EQ(back.comments.size(), 2u);
  EXPECT_EQ(back.comments[0], "view -2 1 -1 1");
  EXPECT_EQ(back.comments[1], "iters 20");
  EXPECT_EQ(files_in_folder(), 1u) << "the temporary file must be gone";
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

TEST_F(ImageFiles, AFailedRenameLeavesNoTemporaryFileAndKeepsWhatWasThere) {
  // The destination is a non-empty folder: everything is written, then the rename fails.
  fs::create_directories(folder_ / "taken.pgm" / "inside");
  expect_error_names(path("taken.pgm"), [&] { course::write_image(path("taken.pgm"), pattern(4, 4, 1)); },
                     "rename");
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
  expect_error_names(path("c.pgm"), [&] { course::read_image(path("c.pgm")); }, "not a binary PGM");
}

TEST_F(ImageFiles, ReadingAMalformedHeaderFails) {
  write_bytes(path("text.pgm"), "P2\n2 2\n255\n0 0 0 0\n");
  expect_error_names(path("text.pgm"), [&] { course::read_image(path("text.pgm")); }, "not a binary PGM");
  write_bytes(path("zero.pgm"), "P5\n0 2\n255\n");
  expect_error_names(path("zero.pgm"), [&] { course::read_image(path("zero.pgm")); }, "bad width");
  write_bytes(path("neg.pgm"), "P5\n2 -2\n255\n");
  expect_error_names(path("neg.pgm"), [&] { course::read_image(path("neg.pgm")); }, "bad height");
  write_bytes(path("deep.pgm"), "P5\n1 1\n65535\n\x01\x02");
  expect_error_names(path("deep.pgm"), [&] { course::read_image(path("deep.pgm")); }, "maxval 65535");
}

}  // namespace
