#pragma once
/// \file objective.hpp
/// What every search minimizes: a product of powers of a mapping's latency and energy. One type
/// for the exact mapper, the sampling searchers and the flows, with one parser for the
/// `--objective` grammar (and the `objective` key of suite and sweep files).

#include <string>

#include "mapwright/core/metrics.hpp"

namespace mapwright::core {

/// The objective as exponents of a product: cost = cycles^latency * energy_pj^energy.
/// edp = {1, 1}; latency = {1, 0}; energy = {0, 1}; a weighted mix sets both.
struct Objective {
  double latency = 1;        ///< Exponent of cycles (>= 0).
  double energy = 1;         ///< Exponent of energy in pJ (>= 0).
  std::string name = "edp";  ///< As given by the user (recorded and reported).
  /// The cost of metrics (meaningful for valid metrics only).
  double cost(const Metrics& m) const;
  /// The cost of a (cycles, energy) pair; monotone in both, so it also maps bounds to bounds.
  double cost(double cycles, double energy_pj) const;
};

/// Parses "edp", "latency" (or "cycles"), "energy" or "mix:latency=W,energy=W" (each weight a
/// number in [0, 16], at least one positive; a term left out weighs 0). Anything else throws a
/// SpecError naming `where` (the flag or file), the key and the value.
Objective parse_objective(const std::string& text, const std::string& where = "--objective");

}  // namespace mapwright::core
