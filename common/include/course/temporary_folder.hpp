// A temporary folder that does not outlive its program, even one that is killed.
//
// Teaches: a destructor runs when a program ends normally or by an exception, not when it is
// killed. Ctrl-C (SIGINT), `kill` (SIGTERM) and a closed terminal (SIGHUP) are caught here: the
// handler removes the folder with async-signal-safe calls only (openat, getdents64, unlinkat;
// no malloc, no locks: the program may have been stopped inside either), then the signal's
// default action ends the program as it would have. SIGKILL cannot be caught: the folder's name
// carries the process id, and the next program that makes such a folder removes those whose
// process no longer runs.
//
//   course::TemporaryFolder cache("course_jit_cache");   // /tmp/course_jit_cache_<pid>_XXXXXX
//   setenv("CUDA_CACHE_PATH", cache.path().c_str(), 1);
#pragma once

#include <string>

namespace course {

class TemporaryFolder {
 public:
  // Creates <temp dir>/<prefix>_<pid>_XXXXXX (TMPDIR, else /tmp) after removing the folders of the
  // same prefix left by processes of this user that no longer run. Throws course::Error if it
  // cannot. One at a time per program (the signal handler knows one path).
  explicit TemporaryFolder(const std::string& prefix);
  ~TemporaryFolder();  // removes the folder and everything in it
  TemporaryFolder(const TemporaryFolder&) = delete;
  TemporaryFolder& operator=(const TemporaryFolder&) = delete;

  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace course
