// The image module's file access: read a whole regular file (and refuse anything else), write a
// file atomically (temporary file in the same folder, fsync, rename).
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <sstream>

#include "course/errors.hpp"
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

  void write_all(const std::string& destination, std::span<const unsigned char> bytes) {
    const unsigned char* cursor = bytes.data();
    std::size_t left = bytes.size();
    while (left > 0) {
      const ssize_t written = ::write(fd_, cursor, left);
      if (written < 0) {
        if (errno == EINTR) continue;
        const int error = errno;
        fail(destination, "write failed: " + describe_errno(error));
      }
      cursor += written;
      left -= static_cast<std::size_t>(written);
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
  const std::filesystem::path destination(path);
  if (destination.filename().empty()) fail(path, "the path names a folder, not a file");
  TemporaryFile temporary(destination);
  temporary.write_all(path, bytes);
  temporary.finish(path);
  if (std::rename(temporary.name().c_str(), path.c_str()) != 0) {
    const int error = errno;
    fail(path, "cannot rename the finished file into place: " + describe_errno(error));
  }
  temporary.release();
}

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

}  // namespace course::image_detail
