#pragma once
/// \file files.hpp
/// Output folders and files of the flows: folder creation, the folder lock, atomic writes, reads.

#include <filesystem>
#include <functional>
#include <string>

namespace mapwright::flows {

/// Creates `dir` and its parents; a failure (unwritable, a file in the way, a full disk) is a
/// core::SpecError naming the folder and the reason.
void make_dirs(const std::filesystem::path& dir);
/// make_dirs, then proves that a file can be written there (and removes it): a flow calls it
/// before its work so that an unwritable output folder costs nothing computed.
void make_output_dir(const std::filesystem::path& dir);

/// An exclusive lock on an output folder (flock on <dir>/.lock, which holds the owner's pid),
/// created with the folder: a second process on the same folder is refused (a SpecError on
/// `flag` naming the holder's pid) instead of doing all the work twice. The kernel drops the
/// lock when the process ends, however it ends. Once the lock is held, the temporary files
/// (`<name>.tmp<pid>`) an earlier, killed holder left in the folder and its mappings/, curves/
/// and plots/ are removed. `locked_by_live_process` tells a reader
/// whether a folder's writer is still running.
class FolderLock {
 public:
  FolderLock(const std::filesystem::path& dir, const std::string& flag);
  ~FolderLock();
  FolderLock(const FolderLock&) = delete;
  FolderLock& operator=(const FolderLock&) = delete;
  static bool locked_by_live_process(const std::filesystem::path& dir);

 private:
  int fd_ = -1;  ///< The open lock file (the flock lives as long as it is open).
};
/// Writes `text` to `path` through a temporary file, fsync and a rename (never half a file).
/// Any failure (full disk, unwritable folder) is a core::SpecError naming the path and the
/// system's reason, and leaves no temporary file; the old `path`, if any, is untouched.
void write_atomic(const std::filesystem::path& path, const std::string& text);
/// Reads a whole file; throws core::SpecError naming it when missing.
std::string read_text(const std::filesystem::path& path);
/// Reads the journal `path` (one JSON text per line, appended and flushed as work finishes):
/// calls `line(text, at)` for every complete line in order (`at`: "<path>:<line number>", for
/// errors), then cuts a torn last line (the write a kill interrupted) from the file. Returns
/// the number of complete lines (0 when the file does not exist).
size_t read_journal(
    const std::filesystem::path& path,
    const std::function<void(const std::string& text, const std::string& at)>& line);
/// The relative file `name` beside the file `path` (a sweep or space file) when it is there,
/// else `name` as given (found from the working folder; names without an extension, such as
/// zoo networks and named architectures, are taken as they are).
std::string file_beside(const std::string& path, const std::string& name);

}  // namespace mapwright::flows
