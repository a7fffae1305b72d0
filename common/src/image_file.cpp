// The image module's file access: read a whole regular file (and refuse anything else), write a
// file atomically (through course/files.hpp: temporary file in the same folder, fsync, rename).
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <sstream>

#include "course/errors.hpp"
#include "course/files.hpp"
#include "course/image.hpp"
#include "image_codec.hpp"

namespace course::image_detail {

namespace {

// Far beyond a 16-bit RGB image of kMaxImagePixels in PGM/PPM form; guards the allocation.
constexpr long long kMaxFileBytes = 1LL << 31;

std::string describe_errno(int error) { return std::strerror(error); }

// What a path that is not a regular file is, in words.
std::string file_kind(mode_t mode) {
  if (S_ISDIR(mode)) return "a folder";
  if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
  if (S_ISCHR(mode) || S_ISBLK(mode)) return "a device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

// Closes a file descriptor when it goes out of scope.
class FileDescriptor {
 public:
  explicit FileDescriptor(int fd) : fd_(fd) {}
  ~FileDescriptor() {
    if (fd_ >= 0) ::close(fd_);
  }
  FileDescriptor(const FileDescriptor&) = delete;
  FileDescriptor& operator=(const FileDescriptor&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

}  // namespace

void fail(const std::string& path, const std::string& what) { throw Error("image " + path + ": " + what); }

void check_dimensions(const std::string& path, long long width, long long height) {
  const std::string shape = std::to_string(width) + " x " + std::to_string(height);
  if (width < 1 || height < 1) fail(path, "bad dimensions " + shape + " (both must be at least 1)");
  if (width > kMaxImageDimension || height > kMaxImageDimension ||
      static_cast<unsigned long long>(width) * static_cast<unsigned long long>(height) > kMaxImagePixels) {
    fail(path, "absurd dimensions " + shape + " (at most " + std::to_string(kMaxImageDimension) +
                   " per side and " + std::to_string(kMaxImagePixels) + " pixels)");
  }
}

std::vector<unsigned char> read_whole_file(const std::string& path) {
  // O_NONBLOCK: opening a FIFO must not wait for a writer; it is refused just below.
  FileDescriptor fd(::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC));
  if (fd.get() < 0) {
    const int error = errno;
    fail(path, "cannot open: " + describe_errno(error));
  }
  struct stat status {};
  if (::fstat(fd.get(), &status) != 0) {
    const int error = errno;
    fail(path, "cannot inspect: " + describe_errno(error));
  }
  if (!S_ISREG(status.st_mode)) fail(path, "is " + file_kind(status.st_mode) + ", not an image file");
  if (status.st_size == 0) fail(path, "the file is empty");
  if (status.st_size > kMaxFileBytes) {
    fail(path, "the file has " + std::to_string(status.st_size) + " bytes, too many for an image");
  }
  std::vector<unsigned char> bytes(static_cast<std::size_t>(status.st_size));
  std::size_t got = 0;
  while (got < bytes.size()) {
    const ssize_t n = ::read(fd.get(), bytes.data() + got, bytes.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int error = errno;
      fail(path, "read failed: " + describe_errno(error));
    }
    if (n == 0) break;  // the file shrank while being read: decode what is there (and see it truncated)
    got += static_cast<std::size_t>(n);
  }
  bytes.resize(got);
  return bytes;
}

void write_file_atomically(const std::string& path, std::span<const unsigned char> bytes) {
  if (std::filesystem::path(path).filename().empty()) fail(path, "the path names a folder, not a file");
  // The course's one atomic writer (course/files.hpp): temporary file in the folder, fsync, rename.
  course::write_file_atomically(path, std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()),
                                "the image");
}

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

}  // namespace course::image_detail
