// The objective: the cost of a mapping's (cycles, energy) as a product of powers, and the parser
// of its names and weighted mixes.
#include "mapwright/core/objective.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>

#include "mapwright/support/error.hpp"

namespace mapwright::core {

double Objective::cost(const Metrics& m) const {
  return cost(static_cast<double>(m.cycles), m.energy_pj);
}

double Objective::cost(double cycles, double energy_pj) const {
  return std::pow(cycles, latency) * std::pow(energy_pj, energy);
}

namespace {

/// The weights of "mix:latency=W,energy=W" (the text after "mix:") into `o`.
void parse_mix(const std::string& rest, const std::string& where, Objective& o) {
  o.latency = o.energy = 0;
  size_t pos = 0;
  while (pos < rest.size()) {
    const size_t comma = rest.find(',', pos);
    const std::string item =
        rest.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    const size_t eq = item.find('=');
    if (eq == std::string::npos) throw SpecError(where, "objective", item, "expected NAME=WEIGHT");
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
}

}  // namespace

Objective parse_objective(const std::string& text, const std::string& where) {
  Objective o;
  o.name = text;
  if (text == "edp") return o;
  if (text == "latency" || text == "cycles") {
    o.energy = 0;
    return o;
  }
  if (text == "energy") {
    o.latency = 0;
    return o;
  }
  if (text.rfind("mix:", 0) == 0) {
    parse_mix(text.substr(4), where, o);
    if (o.latency == 0 && o.energy == 0)
      throw SpecError(where, "objective", text, "at least one weight must be positive");
    return o;
  }
  throw SpecError(where, "objective", text,
                  "unknown objective (known: edp, latency, energy, mix:latency=W,energy=W)");
}

}  // namespace mapwright::core
