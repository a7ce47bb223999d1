#pragma once
/// \file search_flow.hpp
/// `mapwright search`: search one layer or every unique layer of a network with any searcher
/// (the engine is layer_search.hpp), and write the best mappings, metrics and best-so-far
/// curves.

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "mapwright/flows/objective.hpp"
#include "mapwright/rtlpool/rtl_pool.hpp"

namespace mapwright::flows {

/// The flags of `mapwright search`.
struct SearchCliOptions {
  std::string arch = "default";           ///< Named arch or YAML file.
  std::string layer;                      ///< --layer (one of layer/network).
  std::string network;                    ///< --network.
  std::vector<std::string> input_shapes;  ///< ONNX: --input-shape NAME=D0xD1x... texts.
  bool strict = false;            ///< ONNX: an unsupported compute op is an error, not a warning.
  std::string searcher = "marl";  ///< exact, or a kind of search::searcher_kinds().
  int64_t budget = 1000;          ///< Samples per layer (sampling searchers).
  ExactOptions exact;             ///< Time limit, gap and threads of the exact mapper.
  uint64_t seed = 1;              ///< Seed (recorded).
  std::string objective = "edp";  ///< See parse_objective.
  std::string options_file;       ///< Search options YAML (default configs/search/default.yaml).
  std::string out_dir;            ///< Output folder (default runs/search-<searcher>-<seed>).
  bool json = false;              ///< One JSON object on stdout.
  bool progress = true;           ///< Progress on stderr when it is a terminal.
  std::string reward = "surrogate";  ///< --reward: surrogate | rtl.
  std::string encoding = "compact";  ///< --encoding: compact | raw | gamma (sampling searchers).
  int64_t surrogate_warmup = 0;      ///< --surrogate-warmup: surrogate-scored samples before RTL.
  int64_t surrogate_prior = 0;       ///< --surrogate-prior: surrogate-scored points given to the
                                     ///< searcher before an RTL-scored search (not samples).
  rtlpool::SimLimits sim_limits;     ///< --sim-max-*: per-simulation limits with --reward rtl.
  int jobs = 0;                      ///< --jobs: RTL worker processes (0 = number of cores).
  std::string worker_exe;            ///< RTL worker binary ("" = worker_executable()).
};
/// Runs the search. Returns 0 when every layer has a mapping, 3 when a layer has none, 130 when
/// interrupted (the finished layers are written).
int cmd_search(const SearchCliOptions& o, std::ostream& out);

}  // namespace mapwright::flows
