#include "mapwright/flows/objective.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>

#include "common/text.hpp"
#include "mapwright/support/error.hpp"
#include "mapwright/search/options.hpp"

using mapwright::core::Metrics;
using mapwright::core::SpecError;

namespace mapwright::flows {

double Objective::cost(const Metrics& m) const {
  return std::pow(static_cast<double>(m.cycles), latency) * std::pow(m.energy_pj, energy);
}

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
  if (text.rfind("mix:", 0) == 0) {
    o.latency = o.energy = 0;
    std::string rest = text.substr(4);
    size_t pos = 0;
    while (pos < rest.size()) {
      const size_t comma = rest.find(',', pos);
      const std::string item =
          rest.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
      const size_t eq = item.find('=');
      if (eq == std::string::npos)
        throw SpecError(where, "objective", item, "expected NAME=WEIGHT");
      const std::string k = item.substr(0, eq), v = item.substr(eq + 1);
      char* end = nullptr;
      errno = 0;
      const double w = std::strtod(v.c_str(), &end);
      if (v.empty() || *end || errno || !(w >= 0) || w > 16)
        throw SpecError(where, k, v, "weight must be a number between 0 and 16");
      if (k == "latency")
        o.latency = w;
      else if (k == "energy")
        o.energy = w;
      else
        throw SpecError(where, k, v, "unknown objective term (known: latency, energy)");
      if (comma == std::string::npos) break;
      pos = comma + 1;
    }
    if (o.latency == 0 && o.energy == 0)
      throw SpecError(where, "objective", text, "at least one weight must be positive");
    return o;
  }
  throw SpecError(where, "objective", text,
                  "unknown objective (known: edp, latency, energy, mix:latency=W,energy=W)");
}

std::vector<std::string> all_searcher_kinds() {
  std::vector<std::string> kinds{"exact"};
  for (const auto& k : search::searcher_kinds()) kinds.push_back(k);
  return kinds;
}

void check_exact_options(const ExactOptions& e) {
  if (!std::isfinite(e.time_limit_s) || e.time_limit_s <= 0 || e.time_limit_s > 1e7)
    throw SpecError("--time-limit", "time-limit", fmt_g(e.time_limit_s),
                    "must be a number of seconds > 0 (and at most 1e7)");
  if (!std::isfinite(e.gap) || e.gap < 0 || e.gap >= 1)
    throw SpecError("--gap", "gap", fmt_g(e.gap),
                    "must be a relative gap in [0, 1), e.g. 0.001 for 0.1 %");
  if (e.threads < 0 || e.threads > 1024)
    throw SpecError("--threads", "threads", std::to_string(e.threads),
                    "must be between 0 (all cores) and 1024");
}

void require_searcher_kind(const std::string& kind, const std::string& where) {
  const auto kinds = all_searcher_kinds();
  if (std::find(kinds.begin(), kinds.end(), kind) != kinds.end()) return;
  std::string known;
  for (const auto& k : kinds) known += (known.empty() ? "" : ", ") + k;
  throw SpecError(where, "searcher", kind, "unknown searcher (known: " + known + ")");
}

std::string budget_phrase(const std::string& searcher, int64_t budget, const ExactOptions& exact) {
  if (searcher == "exact")
    return (exact.gap == 0 ? std::string("proving each optimum")
                           : "proven gap <= " + fmt_g(100 * exact.gap) + " %") +
           " within at most " + fmt_g(exact.time_limit_s) + " s per layer";
  return std::to_string(budget) + " samples per layer";
}

}  // namespace mapwright::flows
