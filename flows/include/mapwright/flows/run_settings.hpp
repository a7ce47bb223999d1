#pragma once
/// \file run_settings.hpp
/// What a `mapwright run` is: the settings that decide its results, as given on the command line
/// or taken from a run folder by --resume. One struct with one JSON mapping (the keys of
/// results.json), which the run record, --resume and the MPI ranks all use.

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "mapwright/flows/objective.hpp"

namespace mapwright::flows {

/// The settings of a run.
struct RunSettings {
  std::string network = "resnet18";  ///< Zoo network, YAML or ONNX file (unless `layer` is set).
  std::vector<std::string> input_shapes;  ///< ONNX: --input-shape NAME=D0xD1x... texts.
  bool strict = false;             ///< ONNX: an unsupported compute op is an error, not a warning.
  std::string layer;               ///< One layer instead of a network.
  std::string arch = "default";    ///< Named architecture or YAML file.
  std::string searcher = "exact";  ///< exact, or a kind of search::searcher_kinds().
  int64_t budget = 1000;           ///< Surrogate samples per layer (sampling searchers).
  /// Time limit, gap and threads of the exact mapper (recorded with searcher "exact" only; the
  /// threads say how a process runs it, so --resume takes them from the command line).
  ExactOptions exact;
  uint64_t seed = 1;              ///< Run seed (layer and RTL seeds derive from it).
  std::string objective = "edp";  ///< See parse_objective.
  std::string options_file;       ///< Search options YAML ("" = configs/search/default.yaml).
  int top_k = 3;                  ///< Distinct candidates per layer verified on RTL.
  bool no_rtl = false;            ///< Surrogate only.
  /// --reward: "surrogate" (the default) or "rtl": the sampling searchers' samples after the
  /// first `surrogate_warmup` are scored by the Verilated RTL in the run's worker processes
  /// (see RewardOptions); the exact mapper refuses it.
  std::string reward = "surrogate";
  int64_t surrogate_warmup = 0;  ///< --surrogate-warmup: surrogate-scored samples before RTL.

  /// True when the run verifies on the RTL.
  bool rtl() const { return !no_rtl; }
};

/// The settings as results.json keeps them: network_arg, layer_arg, arch_arg, searcher,
/// budget_per_layer, seed, objective, top_k, options_arg, rtl; "exact" with searcher "exact";
/// "reward" with RTL reward; "import" (input_shapes, strict) when either is set.
nlohmann::json settings_to_json(const RunSettings& s);
/// The settings of a results.json (or of settings_to_json), which check_run_record accepted;
/// `file` names it in errors.
RunSettings settings_from_json(const nlohmann::json& j, const std::string& file);

/// A setting given on the command line that differs from the stored run's.
struct SettingChange {
  std::string flag;    ///< The flag, without dashes ("seed", "top-k", ...).
  std::string stored;  ///< The stored run's value, as text.
  std::string given;   ///< The value given, as text.
};
/// The settings whose flag is in `flags_given` and whose value in `given` differs from
/// `stored`'s, in the order of the flags' help. The exact mapper's time limit and gap count only
/// when the stored run uses it; its threads never do.
std::vector<SettingChange> changed_flags(const RunSettings& stored, const RunSettings& given,
                                         const std::set<std::string>& flags_given);

}  // namespace mapwright::flows
