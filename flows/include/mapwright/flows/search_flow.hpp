#pragma once
/// \file search_flow.hpp
/// `mapwright search`: search one layer or every unique layer of a network on the surrogate
/// with any searcher, and write the best mappings, metrics and best-so-far curves.

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "mapwright/core/metrics.hpp"

namespace mapwright::flows {

/// The objective as exponents of a product: cost = cycles^latency * energy^energy.
/// edp = {1, 1}; latency = {1, 0}; energy = {0, 1}; a weighted mix sets both.
struct Objective {
  double latency = 1;    ///< Exponent of cycles.
  double energy = 1;     ///< Exponent of energy (pJ).
  std::string name = "edp";  ///< As given by the user.
  double cost(const core::Metrics& m) const;
};
/// Parses "edp", "latency", "energy" or "mix:latency=W,energy=W"; `where` names the flag.
Objective parse_objective(const std::string& text, const std::string& where = "--objective");

struct SearchCliOptions {
  std::string arch = "default";   ///< Named arch or YAML file.
  std::string layer;              ///< --layer (one of layer/network).
  std::string network;            ///< --network.
  std::string searcher = "marl";  ///< random | ga | sa | ppo | marl.
  int64_t budget = 1000;          ///< Samples per layer.
  uint64_t seed = 1;              ///< Seed (recorded).
  std::string objective = "edp";  ///< See parse_objective.
  std::string options_file;       ///< Search options YAML (default configs/search/default.yaml).
  std::string out_dir;            ///< Output folder (default runs/search-<searcher>-<seed>).
  bool json = false;              ///< One JSON object on stdout.
  bool progress = true;           ///< Progress on stderr when it is a terminal.
};
int cmd_search(const SearchCliOptions& o, std::ostream& out);

}  // namespace mapwright::flows
