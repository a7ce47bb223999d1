// Stand-ins for the two search_flow.cpp functions load_study_suite calls, so the study suite
// target links without the search and model libraries (LibTorch). They accept what the real
// ones accept for the shipped suites (plain objective names, the five searcher kinds) and
// throw the same SpecError otherwise; the objective grammar itself is not fuzzed here.
#include <algorithm>

#include "mapwright/core/error.hpp"
#include "mapwright/flows/search_flow.hpp"

namespace mapwright::flows {

Objective parse_objective(const std::string& text, const std::string& where) {
  Objective o;
  o.name = text;
  if (text == "edp") return o;
  if (text == "latency") {
    o.energy = 0;
    return o;
  }
  if (text == "energy") {
    o.latency = 0;
    return o;
  }
  throw core::SpecError(where, "objective", text, "unknown objective (fuzz stand-in)");
}

void require_searcher_kind(const std::string& kind, const std::string& where) {
  static const char* kinds[] = {"random", "ga", "sa", "ppo", "marl"};
  if (std::find(std::begin(kinds), std::end(kinds), kind) != std::end(kinds)) return;
  throw core::SpecError(where, "searcher", kind, "unknown searcher (fuzz stand-in)");
}

}  // namespace mapwright::flows
