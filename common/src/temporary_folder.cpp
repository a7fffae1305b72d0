// A temporary folder removed at the end, on SIGINT/SIGTERM/SIGHUP/SIGQUIT, or after SIGKILL by the next one.
#include "course/temporary_folder.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <climits>
#include <cstring>
#include <filesystem>
#include <iterator>
#include <stdexcept>

#include "course/errors.hpp"

namespace course {

namespace {

namespace fs = std::filesystem;

constexpr int kSignals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
constexpr int kMaxDepth = 32;

// What the signal handler reads: a fixed buffer (no std::string: the handler must not allocate).
char g_folder[PATH_MAX] = {};
struct sigaction g_previous[std::size(kSignals)];
bool g_installed[std::size(kSignals)] = {};
bool g_in_use = false;

// Empties and removes the folder `name` in the folder open as `parent`, with async-signal-safe
// calls only: it runs inside a signal handler. Entries are removed while the folder is read, so
// it is read again from the start until nothing is left (or nothing more can be removed).
void remove_tree_at(int parent, const char* name, int depth) {
  if (depth > kMaxDepth) return;
  const int fd = ::openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd >= 0) {
    alignas(dirent64) char buffer[2048];
    for (int pass = 0; pass < 64; ++pass) {
      bool found = false, removed = false;
      ::lseek(fd, 0, SEEK_SET);
      for (ssize_t got; (got = ::getdents64(fd, buffer, sizeof buffer)) > 0;) {
        for (ssize_t at = 0; at < got;) {
          const auto* entry = reinterpret_cast<const dirent64*>(buffer + at);
          at += entry->d_reclen;
          const char* child = entry->d_name;
          if (child[0] == '.' && (child[1] == '\0' || (child[1] == '.' && child[2] == '\0'))) continue;
          found = true;
          if (entry->d_type != DT_DIR && ::unlinkat(fd, child, 0) == 0) {
            removed = true;
          } else {
            remove_tree_at(fd, child, depth + 1);
            removed = true;
          }
        }
      }
      if (!found || !removed) break;
    }
    ::close(fd);
  }
  ::unlinkat(parent, name, AT_REMOVEDIR);
}

extern "C" void remove_folder_on_signal(int signal_number) {
  const int saved_errno = errno;
  if (g_folder[0] != '\0') remove_tree_at(AT_FDCWD, g_folder, 0);
  g_folder[0] = '\0';
  // The action the program had before (the default: end it), then the signal again.
  for (std::size_t i = 0; i < std::size(kSignals); ++i) {
    if (kSignals[i] == signal_number && g_installed[i]) ::sigaction(signal_number, &g_previous[i], nullptr);
  }
  errno = saved_errno;
  ::raise(signal_number);
}

void install_handlers() {
  for (std::size_t i = 0; i < std::size(kSignals); ++i) {
    struct sigaction current {};
    if (::sigaction(kSignals[i], nullptr, &current) != 0 || current.sa_handler == SIG_IGN) continue;  // nohup: keep
    struct sigaction action {};
    action.sa_handler = remove_folder_on_signal;
    sigemptyset(&action.sa_mask);
    for (const int other : kSignals) sigaddset(&action.sa_mask, other);  // one handler at a time
    g_installed[i] = ::sigaction(kSignals[i], &action, &g_previous[i]) == 0;
  }
}

void restore_handlers() {
  for (std::size_t i = 0; i < std::size(kSignals); ++i) {
    if (g_installed[i]) ::sigaction(kSignals[i], &g_previous[i], nullptr);
    g_installed[i] = false;
  }
}

// Folders <prefix>_<pid>_XXXXXX of this user whose process no longer runs (it was killed with
// SIGKILL, which no handler sees): removed. A folder of a running process is left alone.
void remove_stale_folders(const fs::path& base, const std::string& prefix) {
  const std::string head = prefix + "_";
  std::error_code error;
  for (fs::directory_iterator it(base, error), end; !error && it != end; it.increment(error)) {
    const std::string name = it->path().filename().string();
    if (name.rfind(head, 0) != 0) continue;
    const std::string rest = name.substr(head.size());
    const std::size_t split = rest.find('_');
    if (split == std::string::npos || split == 0 || rest.size() != split + 7) continue;
    pid_t pid = 0;
    const auto parsed = std::from_chars(rest.data(), rest.data() + split, pid);
    if (parsed.ec != std::errc() || parsed.ptr != rest.data() + split || pid <= 0) continue;
    struct stat info {};
    if (::lstat(it->path().c_str(), &info) != 0 || !S_ISDIR(info.st_mode) || info.st_uid != ::getuid()) continue;
    if (::kill(pid, 0) == 0 || errno != ESRCH) continue;  // still running
    std::error_code ignored;
    fs::remove_all(it->path(), ignored);
  }
}

}  // namespace

TemporaryFolder::TemporaryFolder(const std::string& prefix) {
  if (g_in_use) throw std::logic_error("TemporaryFolder: one at a time per program");
  std::error_code error;
  const fs::path base = fs::temp_directory_path(error);
  if (error) throw Error("no folder for temporary files: " + error.message());
  remove_stale_folders(base, prefix);
  std::string name = (base / (prefix + "_" + std::to_string(::getpid()) + "_XXXXXX")).string();
  if (name.size() >= sizeof g_folder) throw Error("the temporary folder's name is too long: " + name);
  if (::mkdtemp(name.data()) == nullptr) {
    throw Error("cannot create a temporary folder in " + base.string() + ": " + std::strerror(errno));
  }
  path_ = name;
  std::memcpy(g_folder, path_.c_str(), path_.size() + 1);
  g_in_use = true;
  install_handlers();
}

TemporaryFolder::~TemporaryFolder() {
  restore_handlers();
  g_folder[0] = '\0';
  g_in_use = false;
  std::error_code error;
  fs::remove_all(path_, error);  // best effort: a destructor must not throw
}

}  // namespace course
