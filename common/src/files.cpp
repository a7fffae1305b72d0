// Output paths checked up front, bounded reads of regular files, atomic writes.
#include "course/files.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <utility>

#include "course/errors.hpp"
#include "course/format.hpp"

namespace course {

namespace {

namespace fs = std::filesystem;

std::string describe_errno(int error) { return std::strerror(error); }

// What a path that is not a regular file is, in words.
std::string file_kind(mode_t mode) {
  if (S_ISDIR(mode)) return "a folder";
  if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

// The folder a file named `path` lives in ("." for a bare name).
fs::path folder_of(const std::string& path) {
  const fs::path parent = fs::path(path).parent_path();
  return parent.empty() ? fs::path(".") : parent;
}

// The template of a temporary file beside `path`: hidden, and short enough that a long but
// valid destination name still leaves room for it (a file name has at most 255 bytes).
std::string temporary_template(const std::string& path) {
  std::string name = fs::path(path).filename().string();
  if (name.size() > 200) name.resize(200);
  std::string hidden = ".";  // built step by step: GCC 12 warns falsely (-Wrestrict) on "." + string
  hidden += name;
  hidden += ".tmp.XXXXXX";
  return (folder_of(path) / hidden).string();
}

}  // namespace

void check_distinct_outputs(const std::vector<std::pair<std::string, std::string>>& outputs) {
  std::vector<std::filesystem::path> seen;
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    if (outputs[i].second.empty()) continue;
    std::error_code error;
    std::filesystem::path resolved = std::filesystem::weakly_canonical(outputs[i].second, error);
    if (error) resolved = std::filesystem::absolute(outputs[i].second).lexically_normal();
    for (std::size_t j = 0; j < i; ++j) {
      if (!outputs[j].second.empty() && seen[j] == resolved) {
        throw UsageError(outputs[i].first + " " + outputs[i].second + ": the same file as " + outputs[j].first + " " +
                         outputs[j].second + "; give each its own name");
      }
    }
    seen.resize(i);
    seen.push_back(resolved);
  }
}

void check_output_path(const std::string& flag, const std::string& path) {
  if (path.empty()) throw UsageError(flag + ": the file name is empty");
  struct stat info {};
  if (::stat(path.c_str(), &info) == 0) {
    if (S_ISDIR(info.st_mode)) throw UsageError(flag + ": " + path + " is a folder; give a file name");
    if (!S_ISREG(info.st_mode)) {
      throw UsageError(flag + ": " + path + " is " + file_kind(info.st_mode) + ", not a regular file; give a file name");
    }
  } else if (errno == ENAMETOOLONG) {
    throw UsageError(flag + ": the name is too long (" + std::to_string(path.size()) + " characters)");
  }
  if (path.back() == '/') throw UsageError(flag + ": " + path + " names a folder; give a file name");
  const fs::path folder = folder_of(path);
  if (::stat(folder.c_str(), &info) != 0) {
    const int error = errno;
    throw UsageError(flag + ": the folder " + folder.string() +
                     (error == ENOENT ? " does not exist" : ": " + describe_errno(error)));
  }
  if (!S_ISDIR(info.st_mode)) throw UsageError(flag + ": " + folder.string() + " is not a folder");
  // The write will create a temporary file here and rename it: try exactly that now.
  std::string probe = temporary_template(path);
  const int fd = ::mkstemp(probe.data());
  if (fd < 0) {
    const int error = errno;
    throw UsageError(flag + ": cannot create a file in " + folder.string() + ": " + describe_errno(error));
  }
  ::close(fd);
  ::unlink(probe.c_str());
}

std::string read_file(const std::string& path, std::size_t max_bytes) {
  // O_NONBLOCK: opening a FIFO must not wait for a writer; fstat then tells what was opened.
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    const int error = errno;
    if (error == ENOENT) throw Error(path + " does not exist");
    throw Error("cannot open " + path + ": " + describe_errno(error));
  }
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  struct stat info {};
  if (::fstat(fd, &info) != 0) throw Error("cannot read " + path + ": " + describe_errno(errno));
  if (S_ISDIR(info.st_mode)) throw Error(path + " is a folder, not a file");
  if (!S_ISREG(info.st_mode)) throw Error(path + " is " + file_kind(info.st_mode) + ", not a regular file");
  const std::string bound = format_bytes(static_cast<double>(max_bytes));
  if (static_cast<std::uintmax_t>(info.st_size) > max_bytes) {
    throw Error(path + " is larger than " + bound + " (" + format_bytes(static_cast<double>(info.st_size)) + ")");
  }
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  std::string content;
  content.resize(static_cast<std::size_t>(info.st_size));
  std::size_t used = 0;
  while (true) {  // the size may change under us (or be 0, as in /proc): read until the end, bounded
    if (used == content.size()) {
      if (content.size() > max_bytes) throw Error(path + " is larger than " + bound);
      content.resize(std::min(max_bytes + 1, std::max<std::size_t>(4096, 2 * content.size())));
    }
    const ssize_t got = ::read(fd, content.data() + used, content.size() - used);
    if (got < 0) {
      if (errno == EINTR) continue;
      throw Error("cannot read " + path + ": " + describe_errno(errno));
    }
    if (got == 0) break;
    used += static_cast<std::size_t>(got);
  }
  if (used > max_bytes) throw Error(path + " is larger than " + bound);
  content.resize(used);
  return content;
}

AtomicFile::AtomicFile(std::string path, std::string what)
    : path_(std::move(path)), what_(std::move(what)), temporary_(temporary_template(path_)) {
  if (path_.empty() || fs::path(path_).filename().empty()) fail("the path names a folder, not a file", 0);
  fd_ = ::mkstemp(temporary_.data());
  if (fd_ < 0) {
    const int error = errno;
    temporary_.clear();  // nothing to remove
    fail("cannot create a file in " + folder_of(path_).string(), error);
  }
}

AtomicFile::~AtomicFile() {
  if (fd_ >= 0) ::close(fd_);
  if (!committed_ && !temporary_.empty()) ::unlink(temporary_.c_str());
}

void AtomicFile::fail(const std::string& reason, int error) {
  throw Error("cannot write " + what_ + " to " + path_ + ": " + reason + (error ? ": " + describe_errno(error) : ""));
}

void AtomicFile::write(const void* data, std::size_t bytes) {
  if (fd_ < 0) throw std::logic_error("AtomicFile::write after commit");
  const auto* cursor = static_cast<const unsigned char*>(data);
  while (bytes > 0) {
    const ssize_t written = ::write(fd_, cursor, bytes);
    if (written < 0) {
      if (errno == EINTR) continue;
      fail("write failed", errno);
    }
    cursor += written;
    bytes -= static_cast<std::size_t>(written);
  }
}

void AtomicFile::commit() {
  if (fd_ < 0) throw std::logic_error("AtomicFile::commit twice");
  // mkstemp creates the file 0600; a result is for everyone to read, like any file the user writes.
  const mode_t mask = ::umask(0);
  ::umask(mask);
  if (::fchmod(fd_, 0666 & ~mask) != 0) fail("cannot set its permissions", errno);
  if (::fsync(fd_) != 0) fail("cannot flush it to disk", errno);  // the data on disk before the rename
  const int fd = std::exchange(fd_, -1);
  if (::close(fd) != 0) fail("close failed", errno);  // close reports delayed write errors
  // Never renamed over a FIFO, a device or a socket: run as root, that would replace /dev/full
  // itself. check_output_path refuses them before the work; this guards every caller at the end.
  struct stat existing {};
  if (::lstat(path_.c_str(), &existing) == 0 && !S_ISREG(existing.st_mode) && !S_ISLNK(existing.st_mode)) {
    fail(file_kind(existing.st_mode) + " is there, not a regular file", 0);
  }
  if (std::rename(temporary_.c_str(), path_.c_str()) != 0) fail("cannot rename the finished file into place", errno);
  committed_ = true;
}

void write_file_atomically(const std::string& path, std::string_view contents, const std::string& what) {
  AtomicFile file(path, what);
  file.write(contents);
  file.commit();
}

}  // namespace course
