// The settings of a run (run_settings.hpp) and their one JSON mapping: the keys results.json
// keeps them under, read back by --resume and sent to the MPI ranks; and the comparison with a
// stored run that refuses a --resume whose explicit flags differ.
#include "mapwright/flows/run_settings.hpp"

#include <functional>

#include "mapwright/support/error.hpp"

namespace mapwright::flows {

using json = nlohmann::json;

json settings_to_json(const RunSettings& s) {
  json j = {{"network_arg", s.network},
            {"layer_arg", s.layer},
            {"arch_arg", s.arch},
            {"searcher", s.searcher},
            {"budget_per_layer", s.budget},
            {"seed", s.seed},
            {"objective", s.objective},
            {"top_k", s.top_k},
            {"options_arg", s.options_file},
            {"rtl", s.rtl()}};
  if (!s.input_shapes.empty() || s.strict)
    j["import"] = {{"input_shapes", s.input_shapes}, {"strict", s.strict}};
  if (s.searcher == "exact")
    j["exact"] = {
        {"time_limit_s", s.exact.time_limit_s}, {"gap", s.exact.gap}, {"threads", s.exact.threads}};
  if (s.reward == "rtl")
    j["reward"] = {{"source", "rtl"}, {"surrogate_warmup", s.surrogate_warmup}};
  return j;
}

RunSettings settings_from_json(const json& j, const std::string& file) {
  RunSettings s;
  try {
    s.network = j.at("network_arg").get<std::string>();
    s.layer = j.at("layer_arg").get<std::string>();
    s.arch = j.at("arch_arg").get<std::string>();
    s.searcher = j.at("searcher").get<std::string>();
    s.budget = j.at("budget_per_layer").get<int64_t>();
    s.seed = j.at("seed").get<uint64_t>();
    s.objective = j.at("objective").get<std::string>();
    s.top_k = j.at("top_k").get<int>();
    s.options_file = j.at("options_arg").get<std::string>();
    s.no_rtl = !j.at("rtl").get<bool>();
    if (j.contains("import")) {
      s.input_shapes = j["import"].value("input_shapes", std::vector<std::string>{});
      s.strict = j["import"].value("strict", false);
    }
    if (j.contains("exact")) {
      s.exact.time_limit_s = j["exact"].at("time_limit_s").get<double>();
      s.exact.gap = j["exact"].at("gap").get<double>();
      s.exact.threads = j["exact"].value("threads", 0);
    }
    if (j.contains("reward") && j["reward"].value("source", std::string()) == "rtl") {
      s.reward = "rtl";
      s.surrogate_warmup = j["reward"].value("surrogate_warmup", int64_t{0});
    }
  } catch (const json::exception& e) {
    throw core::SpecError(file, "(settings)", "",
                          std::string("malformed run settings: ") + e.what());
  }
  return s;
}

namespace {

/// A setting a flag gives, as its value for comparison and messages.
struct Flag {
  const char* name;                               ///< The flag, without dashes.
  std::function<json(const RunSettings&)> value;  ///< Its value in a RunSettings.
  bool exact_only = false;                        ///< Compared only when the run is exact.
};

/// The flags of the settings, in the order of `mapwright run --help`.
const std::vector<Flag>& flags() {
  static const std::vector<Flag> all = {
      {"network", [](const RunSettings& s) { return json(s.network); }},
      {"input-shape", [](const RunSettings& s) { return json(s.input_shapes); }},
      {"strict", [](const RunSettings& s) { return json(s.strict); }},
      {"layer", [](const RunSettings& s) { return json(s.layer); }},
      {"arch", [](const RunSettings& s) { return json(s.arch); }},
      {"searcher", [](const RunSettings& s) { return json(s.searcher); }},
      {"budget", [](const RunSettings& s) { return json(s.budget); }},
      {"seed", [](const RunSettings& s) { return json(s.seed); }},
      {"objective", [](const RunSettings& s) { return json(s.objective); }},
      {"top-k", [](const RunSettings& s) { return json(s.top_k); }},
      {"options", [](const RunSettings& s) { return json(s.options_file); }},
      {"time-limit", [](const RunSettings& s) { return json(s.exact.time_limit_s); }, true},
      {"gap", [](const RunSettings& s) { return json(s.exact.gap); }, true},
      {"no-rtl", [](const RunSettings& s) { return json(s.no_rtl); }},
      {"reward", [](const RunSettings& s) { return json(s.reward); }},
      {"surrogate-warmup", [](const RunSettings& s) { return json(s.surrogate_warmup); }}};
  return all;
}

std::string text_of(const json& v) {
  return v.is_string() ? v.get<std::string>() : v.dump();
}

}  // namespace

std::vector<SettingChange> changed_flags(const RunSettings& stored, const RunSettings& given,
                                         const std::set<std::string>& flags_given) {
  std::vector<SettingChange> changes;
  for (const Flag& f : flags()) {
    if (!flags_given.count(f.name) || (f.exact_only && stored.searcher != "exact")) continue;
    const json a = f.value(stored), b = f.value(given);
    if (a != b) changes.push_back({f.name, text_of(a), text_of(b)});
  }
  return changes;
}

}  // namespace mapwright::flows
