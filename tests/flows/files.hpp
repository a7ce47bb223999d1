#pragma once
// File helpers shared by the flows tests: a per-process scratch folder and whole-file reads.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace mapwright::test_files {

/// <tmp>/mapwright_<name>_<pid>, removed if it exists (not created).
inline std::filesystem::path fresh_path(const std::string& name) {
  const std::filesystem::path d = std::filesystem::temp_directory_path() /
                                  ("mapwright_" + name + "_" + std::to_string(getpid()));
  std::filesystem::remove_all(d);
  return d;
}

/// The whole file as text ("" if it cannot be opened).
inline std::string read_file(const std::filesystem::path& p) {
  std::ifstream f(p);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

/// A study's runs.csv text without its wall-time column (the 7th), which differs between two
/// runs of the same work.
inline std::string runs_without_seconds(const std::string& csv) {
  std::istringstream in(csv);
  std::string out;
  for (std::string line; std::getline(in, line);) {
    std::stringstream ls(line);
    int i = 0;
    for (std::string c; std::getline(ls, c, ','); ++i)
      if (i != 6) out += c + ",";
    out += "\n";
  }
  return out;
}

}  // namespace mapwright::test_files
