#pragma once
// The tiny `mapwright run` of the flows tests (tests/flows/data/tiny_net.yaml on small4, GA,
// RTL workers of this build) and a reader of its results.json.
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "mapwright/flows/run.hpp"

namespace mapwright::test_files {

/// Options of the tiny run writing to `out`.
inline flows::RunOptions tiny_run(const std::filesystem::path& out) {
  flows::RunOptions o;
  o.settings.network = std::string(MAPWRIGHT_SOURCE_DIR) + "/tests/flows/data/tiny_net.yaml";
  o.settings.arch = "small4";
  o.settings.searcher = "ga";
  o.settings.budget = 150;
  o.settings.seed = 3;
  o.settings.top_k = 2;
  o.jobs = 2;
  o.out_dir = out.string();
  o.progress = false;
  o.worker_exe = MAPWRIGHT_WORKER_EXE;
  return o;
}

/// A run folder's results.json.
inline nlohmann::json load(const std::filesystem::path& dir) {
  std::ifstream f(dir / "results.json");
  return nlohmann::json::parse(f);
}

}  // namespace mapwright::test_files
