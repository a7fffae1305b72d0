// Shared by tests that write files: a fresh, empty folder per test, named after the test and
// removed afterwards, so a test sees only what it wrote (and a leftover temporary file shows).
//
//   class ImageFiles : public course::testing::ScratchFolderTest {};
//   TEST_F(ImageFiles, RoundTrip) { write_image(path("a.png"), ...); EXPECT_EQ(files_in_folder(), 1u); }
#pragma once

#include <gtest/gtest.h>

#include <cstddef>
#include <filesystem>
#include <iterator>
#include <string>

namespace course::testing {

class ScratchFolderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const ::testing::TestInfo* test = ::testing::UnitTest::GetInstance()->current_test_info();
    folder_ = std::filesystem::temp_directory_path() /
              ("course_" + std::string(test->test_suite_name()) + "_" + std::string(test->name()));
    std::filesystem::remove_all(folder_);
    std::filesystem::create_directories(folder_);
  }
  void TearDown() override { std::filesystem::remove_all(folder_); }

  std::string path(const std::string& name) const { return (folder_ / name).string(); }
  std::size_t files_in_folder() const {
    return static_cast<std::size_t>(
        std::distance(std::filesystem::directory_iterator(folder_), std::filesystem::directory_iterator()));
  }

  std::filesystem::path folder_;
};

}  // namespace course::testing
