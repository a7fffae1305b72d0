// Files and threads as bad input: output paths refused before any work (FIFOs, devices, /proc, a
// name too long), bounded reads that refuse what is not a regular file, atomic writes that
// leave nothing half-written (a file-size limit stands in for a full disk), and a thread count
// beyond what the machine runs refused in one place, with the random fills capped.
#include <gtest/gtest.h>

#include <omp.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "course/errors.hpp"
#include "course/files.hpp"
#include "course/random.hpp"
#include "course/temporary_folder.hpp"
#include "course/threads.hpp"

#include "scratch_folder.hpp"

namespace {

namespace fs = std::filesystem;

// A fresh, empty folder per test, removed afterwards.
class Files : public course::testing::ScratchFolderTest {};

template <class E, class F>
void expect_one_line_error(F&& action, const std::string& expected) {
  try {
    action();
    ADD_FAILURE() << "no error; expected one containing: " << expected;
  } catch (const E& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find(expected), std::string::npos) << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  }
}

TEST_F(Files, OutputPathsAreCheckedWithoutOpeningThem) {
  const std::string fifo = path("pipe.json");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  // Opening a FIFO for writing would block until a reader comes: the check must not.
  expect_one_line_error<course::UsageError>([&] { course::check_output_path("--json", fifo); },
                                            "--json: " + fifo + " is a FIFO (named pipe), not a regular file");
  expect_one_line_error<course::UsageError>([] { course::check_output_path("--json", "/dev/full"); },
                                            "/dev/full is a character device");
  expect_one_line_error<course::UsageError>([] { course::check_output_path("--json", ""); }, "the file name is empty");
  expect_one_line_error<course::UsageError>([&] { course::check_output_path("--image", folder_.string()); },
                                            "is a folder");
  expect_one_line_error<course::UsageError>([&] { course::check_output_path("--json", path("x/")); }, "folder");
  expect_one_line_error<course::UsageError>([&] { course::check_output_path("--json", path("none/x.json")); },
                                            "does not exist");
  expect_one_line_error<course::UsageError>([] { course::check_output_path("--json", "/proc/course.json"); },
                                            "--json: cannot create a file in /proc");
  expect_one_line_error<course::UsageError>([&] { course::check_output_path("--json", path(std::string(4439, 'x'))); },
                                            "--json:");
  std::ofstream(path("plain")) << "x";
  expect_one_line_error<course::UsageError>([&] { course::check_output_path("--json", path("plain/x.json")); },
                                            "--json:");
  // A good path passes and nothing is left behind (the FIFO and the plain file were there before).
  EXPECT_NO_THROW(course::check_output_path("--json", path("out.json")));
  EXPECT_EQ(files_in_folder(), 2u);
}

TEST_F(Files, ReadsAreBoundedAndOnlyOfRegularFiles) {
  std::ofstream(path("small.txt")) << "hello";
  EXPECT_EQ(course::read_file(path("small.txt"), 5), "hello");
  expect_one_line_error<course::Error>([&] { course::read_file(path("small.txt"), 4); }, "is larger than");
  const std::string fifo = path("pipe.xml");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  expect_one_line_error<course::Error>([&] { course::read_file(fifo, 1 << 20); }, "is a FIFO (named pipe)");
  expect_one_line_error<course::Error>([] { course::read_file("/dev/zero", 1 << 20); }, "is a character device");
  expect_one_line_error<course::Error>([&] { course::read_file(folder_.string(), 1 << 20); }, "is a folder");
  expect_one_line_error<course::Error>([&] { course::read_file(path("none"), 1 << 20); }, "does not exist");
  // A file whose size the kernel does not know in advance (/proc) is read to its end, bounded.
  EXPECT_NE(course::read_file("/proc/self/status", 1 << 20).find("Name:"), std::string::npos);
  expect_one_line_error<course::Error>([] { course::read_file("/proc/self/status", 16); }, "is larger than");
}

TEST_F(Files, AtomicWritesReplaceWholeFiles) {
  const std::string target = path("out.json");
  std::ofstream(target) << "old";
  course::write_file_atomically(target, "new content\n", "the JSON results");
  std::ifstream in(target);
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(in), {}), "new content\n");
  EXPECT_EQ(files_in_folder(), 1u) << "the temporary file must be gone";
  struct stat info {};
  ASSERT_EQ(::stat(target.c_str(), &info), 0);
  EXPECT_NE(info.st_mode & S_IRGRP, 0u) << "a result is readable like any file the user writes (umask permitting)";
}

TEST_F(Files, AFailedWriteLeavesTheOldFileAndNoTemporary) {
  // A file-size limit of 4 KiB stands in for a full disk: write() fails with EFBIG (SIGXFSZ ignored).
  const std::string target = path("out.json");
  std::ofstream(target) << "old";
  rlimit saved{};
  ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &saved), 0);
  const auto previous = std::signal(SIGXFSZ, SIG_IGN);
  rlimit small = saved;
  small.rlim_cur = 4096;
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &small), 0);
  try {
    course::write_file_atomically(target, std::string(8192, 'x'), "the JSON results");
    ADD_FAILURE() << "the write did not fail";
  } catch (const course::Error& error) {
    EXPECT_NE(std::string(error.what()).find("cannot write the JSON results to " + target + ": write failed"),
              std::string::npos)
        << error.what();
  }
  ::setrlimit(RLIMIT_FSIZE, &saved);
  std::signal(SIGXFSZ, previous);
  std::ifstream in(target);
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(in), {}), "old") << "the old file is untouched";
  EXPECT_EQ(files_in_folder(), 1u) << "the temporary file must be gone";
}

TEST_F(Files, ACommitNeverReplacesAFifoOrADevice) {
  // The last guard behind check_output_path: run as root, a rename over /dev/full replaced the
  // device with a regular file (course_summary --json /dev/full did, before it checked the path).
  const std::string fifo = path("pipe.json");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  expect_one_line_error<course::Error>([&] { course::write_file_atomically(fifo, "{}\n", "the JSON results"); },
                                       "cannot write the JSON results to " + fifo + ": a FIFO (named pipe) is there");
  struct stat info {};
  ASSERT_EQ(::lstat(fifo.c_str(), &info), 0);
  EXPECT_TRUE(S_ISFIFO(info.st_mode)) << "the FIFO is still there";
  EXPECT_EQ(files_in_folder(), 1u) << "the temporary file must be gone";
}

TEST_F(Files, AnUncommittedFileLeavesNothing) {
  {
    course::AtomicFile file(path("never.txt"), "a test file");
    file.write("half");
    EXPECT_EQ(files_in_folder(), 1u);  // the temporary
  }
  EXPECT_EQ(files_in_folder(), 0u);
}

TEST_F(Files, ATemporaryFolderGoesAtTheEndWhenKilledAndAfterSigkill) {
  setenv("TMPDIR", folder_.c_str(), 1);
  // Left by a process that was killed with SIGKILL (no such process runs): removed by the next one.
  fs::create_directories(folder_ / "course_test_cache_999999999_abcdef" / "inside");
  fs::create_directories(folder_ / "course_test_cache_not_a_pid");  // not of this shape: left alone
  std::string made;
  {
    course::TemporaryFolder folder("course_test_cache");
    made = folder.path();
    EXPECT_TRUE(fs::is_directory(made));
    EXPECT_NE(made.find("course_test_cache_" + std::to_string(::getpid()) + "_"), std::string::npos) << made;
    EXPECT_FALSE(fs::exists(folder_ / "course_test_cache_999999999_abcdef"));
    EXPECT_TRUE(fs::exists(folder_ / "course_test_cache_not_a_pid"));
    fs::create_directories(fs::path(made) / "a" / "b");
    std::ofstream(fs::path(made) / "a" / "b" / "file") << "x";
  }
  EXPECT_FALSE(fs::exists(made)) << "removed at the end";

  // SIGTERM: a child makes the folder, fills it, and is killed; the handler removes the folder.
  int ready[2];
  ASSERT_EQ(::pipe(ready), 0);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    course::TemporaryFolder folder("course_test_cache");
    fs::create_directories(fs::path(folder.path()) / "a" / "b");
    std::ofstream(fs::path(folder.path()) / "a" / "b" / "file") << "x";
    const char byte = 1;
    if (::write(ready[1], &byte, 1) != 1) ::_exit(2);
    ::pause();
    ::_exit(1);
  }
  char byte = 0;
  ASSERT_EQ(::read(ready[0], &byte, 1), 1);
  const fs::path childs = folder_ / ("course_test_cache_" + std::to_string(child) + "_");
  std::size_t before = 0;
  for (const auto& entry : fs::directory_iterator(folder_)) before += entry.path().string().rfind(childs.string(), 0) == 0;
  EXPECT_EQ(before, 1u);
  ::kill(child, SIGTERM);
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM) << "the signal still ends the program";
  for (const auto& entry : fs::directory_iterator(folder_)) {
    EXPECT_NE(entry.path().string().rfind(childs.string(), 0), 0u) << "left behind: " << entry.path();
  }
  ::close(ready[0]);
  ::close(ready[1]);
  unsetenv("TMPDIR");
}

TEST(Threads, BeyondTheMachineIsRefusedInOnePlace) {
  const int saved = omp_get_max_threads();
  const int too_many = course::max_cpu_threads() + 1;
  expect_one_line_error<course::UsageError>([&] { course::apply_cpu_threads(too_many); },
                                            "--threads " + std::to_string(too_many) + ": more CPU threads");
  // What OMP_NUM_THREADS=100000 sets (libgomp read the variable at start-up; this sets the same value).
  omp_set_num_threads(100000);
  expect_one_line_error<course::UsageError>([] { course::apply_cpu_threads(0); }, "more CPU threads than this machine");
  EXPECT_NO_THROW(course::apply_cpu_threads(2)) << "--threads wins over OMP_NUM_THREADS";
  EXPECT_EQ(omp_get_max_threads(), 2);
  omp_set_num_threads(saved);
  EXPECT_NO_THROW(course::apply_cpu_threads(course::max_cpu_threads()));
  omp_set_num_threads(saved);
}

TEST(Threads, RandomFillsDoNotCrashWithAHugeThreadCount) {
  const int saved = omp_get_max_threads();
  omp_set_num_threads(100000);  // libgomp segfaulted here before the fills were capped
  std::vector<float> values(1 << 20);
  course::fill_normal(values, 7);
  omp_set_num_threads(saved);
  std::vector<float> again(values.size());
  course::fill_normal(again, 7);
  EXPECT_EQ(values, again) << "the same values with any thread count";
  EXPECT_LE(course::loop_threads(3), 3);
  EXPECT_GE(course::loop_threads(0), 1);
}

}  // namespace
