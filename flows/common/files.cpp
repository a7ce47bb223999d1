#include "common/files.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <vector>

#include "mapwright/support/error.hpp"
#include "mapwright/support/posix_io.hpp"
#include "mapwright/support/test_hooks.hpp"

namespace fs = std::filesystem;
using namespace mapwright::core;

namespace mapwright::flows {

void make_dirs(const fs::path& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw SpecError(dir.string(), "(folder)", "", "cannot create: " + ec.message());
}

void make_output_dir(const fs::path& dir) {
  make_dirs(dir);
  const fs::path probe = dir / (".write-probe" + std::to_string(getpid()));
  write_atomic(probe, "");
  std::error_code ec;
  fs::remove(probe, ec);
}

namespace {
/// Removes the temporary files (`<name>.tmp<pid>`) a killed process left in `dir` and its
/// mappings/, curves/ and plots/ folders (the caller holds the folder's lock).
void remove_stale_temporaries(const fs::path& dir) {
  std::error_code ec;
  std::vector<fs::path> folders = {dir};
  for (const char* sub : {"mappings", "curves", "plots"}) folders.push_back(dir / sub);
  for (const auto& d : folders) {
    for (fs::directory_iterator it(d, ec), end; !ec && it != end; it.increment(ec)) {
      const std::string name = it->path().filename().string();
      const size_t t = name.rfind(".tmp");
      if (t == std::string::npos || t + 4 == name.size() ||
          name.find_first_not_of("0123456789", t + 4) != std::string::npos)
        continue;
      std::error_code rm;
      fs::remove(it->path(), rm);
    }
    ec.clear();
  }
}
}  // namespace

FolderLock::FolderLock(const fs::path& dir, const std::string& flag) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec)
    throw SpecError(flag, flag.substr(flag.find_first_not_of('-')), dir.string(),
                    "cannot create the folder: " + ec.message());
  const fs::path file = dir / ".lock";
  fd_ = ::open(file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0)
    throw SpecError(flag, flag.substr(flag.find_first_not_of('-')), dir.string(),
                    std::string("cannot create its lock file: ") + std::strerror(errno));
  if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    char buf[32] = {0};
    const ssize_t n = ::pread(fd_, buf, sizeof buf - 1, 0);
    ::close(fd_);
    fd_ = -1;
    const std::string holder = n > 0 ? std::string(buf, static_cast<size_t>(n)) : std::string("?");
    throw SpecError(flag, flag.substr(flag.find_first_not_of('-')), dir.string(),
                    "is in use by another mapwright process (pid " + holder +
                        "); wait for it to finish or choose another " + flag);
  }
  const std::string pid = std::to_string(getpid());
  if (::ftruncate(fd_, 0) != 0 || ::pwrite(fd_, pid.data(), pid.size(), 0) < 0) {
    // The lock holds without the pid; only the message of a refused second process is poorer.
  }
  remove_stale_temporaries(dir);
}

FolderLock::~FolderLock() {
  if (fd_ >= 0) ::close(fd_);
}

bool FolderLock::locked_by_live_process(const fs::path& dir) {
  const int fd = ::open((dir / ".lock").c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  const bool held = ::flock(fd, LOCK_SH | LOCK_NB) != 0 && errno == EWOULDBLOCK;
  ::close(fd);  // also drops the shared lock if we got it
  return held;
}

void write_atomic(const fs::path& path, const std::string& text) {
  if (path.has_parent_path()) make_dirs(path.parent_path());
  const fs::path tmp = path.string() + ".tmp" + std::to_string(getpid());
  // POSIX calls rather than a stream: every failure has its errno (a full disk says so), the
  // temporary file never outlives a failure, and the data is on disk before the rename makes
  // it visible (a crash leaves the old file or the new one, never a torn one).
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  auto fail = [&](bool opened) {
    const int e = errno;
    if (opened) ::close(fd);
    ::unlink(tmp.c_str());
    throw SpecError(path.string(), "(file)", "", std::string("cannot write: ") + std::strerror(e));
  };
  if (fd < 0) fail(false);
  // Test hook (core/test_hooks.hpp): die with half of the file written.
  const bool die_here = core::kill_point_reached("write");
  const size_t first = die_here ? text.size() / 2 : text.size();
  if (!write_all(fd, text.data(), first)) fail(true);
  if (die_here) core::kill_self();
  if (!write_all(fd, text.data() + first, text.size() - first)) fail(true);
  if (::fsync(fd) != 0 && errno != EINVAL && errno != EROFS) fail(true);
  if (::close(fd) != 0) fail(false);
  if (::rename(tmp.c_str(), path.c_str()) != 0) fail(false);
}

std::string file_beside(const std::string& path, const std::string& name) {
  std::error_code ec;
  const fs::path beside = fs::path(path).parent_path() / name;
  if (fs::path(name).is_relative() && fs::path(name).has_extension() &&
      fs::is_regular_file(beside, ec))
    return beside.lexically_normal().string();
  return name;
}

std::string read_text(const fs::path& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw SpecError(path.string(), "(file)", "", "cannot read (missing?)");
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

size_t read_journal(const fs::path& path,
                    const std::function<void(const std::string&, const std::string&)>& line) {
  std::error_code ec;
  if (!fs::exists(path, ec)) return 0;
  const std::string text = read_text(path);
  size_t pos = 0, n = 0;
  for (size_t nl; (nl = text.find('\n', pos)) != std::string::npos; pos = nl + 1)
    line(text.substr(pos, nl - pos), path.string() + ":" + std::to_string(++n));
  if (pos < text.size()) fs::resize_file(path, pos, ec);  // a torn last line
  return n;
}

}  // namespace mapwright::flows
