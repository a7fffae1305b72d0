// Files the course reads and writes: checked before the work, read with a bound, written atomically.
//
// Teaches three habits of a program that takes paths from a user:
//  - check an output path BEFORE the work of minutes starts, without opening it: a FIFO would
//    block the open, /dev/full would swallow the results, a missing folder would only show at the end;
//  - read an input only if it is a regular file, and only up to a bound: a FIFO never ends a read,
//    /dev/zero never runs out;
//  - write an output so that nobody ever sees half of it: everything goes to a temporary file in
//    the same folder, which is flushed to disk (fsync) and then renamed over the destination. A
//    rename within one file system is atomic: the path holds the old file or the complete new one.
//    On any failure the temporary file is removed and one line says what failed.
//
//   course::check_output_path("--json", path);                 // throws UsageError (exit 2)
//   const std::string text = course::read_file(path, 1 << 20);  // throws Error (exit 3)
//   course::write_file_atomically(path, text, "the JSON results");
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace course {

// Throws UsageError "<flag>: <problem>" when `path` cannot become an output file: an empty
// name, a folder, an existing path that is not a regular file (a FIFO, a device), a folder that
// does not exist or in which no file can be created (read-only, /proc, a name too long). The
// path itself is never opened; a temporary file is created in its folder and removed again.
void check_output_path(const std::string& flag, const std::string& path);

// Throws UsageError when two outputs of one run name the same file (the second would overwrite
// the first): "--json same.png: the same file as --image same.png; give each its own name".
// Each item is {flag, path}; empty paths (an output not asked for) are skipped.
void check_distinct_outputs(const std::vector<std::pair<std::string, std::string>>& outputs);

// The whole content of the regular file `path`, at most `max_bytes` of it. Throws course::Error
// with one line starting with the path: it does not exist, is a folder, is not a regular file
// (FIFO, device, socket: never opened for a blocking read), is larger than the bound, or
// cannot be read.
std::string read_file(const std::string& path, std::size_t max_bytes);

// A file written under a temporary name in the destination's folder and renamed into place by
// commit(). Destroyed without commit() (an exception on the way), it removes the temporary.
// Errors throw course::Error: "cannot write <what> to <path>: <reason>".
class AtomicFile {
 public:
  AtomicFile(std::string path, std::string what);
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  void write(const void* data, std::size_t bytes);
  void write(std::string_view text) { write(text.data(), text.size()); }
  void commit();  // fsync, close, rename over the destination

  const std::string& path() const { return path_; }

 private:
  [[noreturn]] void fail(const std::string& reason, int error);

  std::string path_, what_, temporary_;
  int fd_ = -1;
  bool committed_ = false;
};

// `contents` as the file `path`, atomically (AtomicFile). `what` names it in errors.
void write_file_atomically(const std::string& path, std::string_view contents, const std::string& what);

}  // namespace course
