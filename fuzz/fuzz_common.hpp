#pragma once
/// \file fuzz_common.hpp
/// Shared helpers of the libFuzzer targets: a per-process scratch file for parsers that read
/// a path, and the rule that a documented rejection (core::SpecError) is a normal outcome.

#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace mapwright::fuzz {

/// The per-process scratch directory, under $MAPWRIGHT_FUZZ_TMP (scripts/fuzz-smoke.sh points
/// it at a directory on /dev/shm, because on a disk rewriting the file costs milliseconds per
/// input, and removes it afterwards) or else the system temp directory.
inline const std::filesystem::path& scratch_dir() {
  namespace fs = std::filesystem;
  static const fs::path dir = [] {
    const char* env = std::getenv("MAPWRIGHT_FUZZ_TMP");
    const fs::path base = env && *env ? fs::path(env) : fs::temp_directory_path();
    const fs::path d = base / ("mapwright-fuzz-" + std::to_string(getpid()));
    fs::create_directories(d);
    return d;
  }();
  return dir;
}

/// Writes the input to `<scratch_dir>/<name>` and returns that path. The parsers name the file
/// in their messages, so the path is stable within a run.
inline std::string scratch_file(const std::string& name, const uint8_t* data, size_t size) {
  const std::filesystem::path p = scratch_dir() / name;
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  return p.string();
}

/// Points core::configs_dir() at the source tree's configs (named architectures).
inline void use_source_configs() {
  setenv("MAPWRIGHT_CONFIGS", MAPWRIGHT_SOURCE_DIR "/configs", 1);
}

}  // namespace mapwright::fuzz
