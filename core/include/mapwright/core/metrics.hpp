#pragma once
/// \file metrics.hpp
/// What an evaluation returns: the metrics that the analytical surrogate (model/) and the RTL
/// (systemc/) both produce, their JSON form and the one energy formula.

#include <nlohmann/json.hpp>
#include <string>

#include "mapwright/core/arch.hpp"
#include "mapwright/core/layer.hpp"
#include "mapwright/core/mapping.hpp"
#include "mapwright/core/tile_program.hpp"

namespace mapwright::core {

/// Energy by component, picojoules.
struct EnergyBreakdown {
  double mac = 0;         ///< Multiply-accumulates.
  double input_buf = 0;   ///< Input buffer reads and writes.
  double weight_buf = 0;  ///< Weight buffer reads and writes.
  double accum_buf = 0;   ///< Accumulator reads and writes.
  double dram = 0;        ///< DRAM bytes moved.
  double pe_static = 0;   ///< Enabled PEs over the layer's cycles.
  double total() const { return mac + input_buf + weight_buf + accum_buf + dram + pe_static; }
};

/// Result of evaluating one mapping. Invalid mappings are results, not exceptions.
struct Metrics {
  bool valid = false;                       ///< False: see `invalid` and `reason`.
  InvalidKind invalid = InvalidKind::None;  ///< Typed reason.
  std::string reason;                       ///< Human-readable reason.
  long long cycles = 0;                     ///< End-to-end latency in cycles.
  long long compute_cycles = 0;             ///< Sum of fold times (array busy).
  long long dma_cycles = 0;                 ///< Sum of DMA transfer times.
  double energy_pj = 0;                     ///< Total energy.
  EnergyBreakdown energy;                   ///< Energy by component.
  double edp = 0;                           ///< energy_pj * cycles (pJ x cycles).
  double utilization = 0;                   ///< MACs / (cycles * rows * cols).
  AccessCounts counts;                      ///< Exact access counts.

  /// JSON with at least valid, reason, cycles, energy_pj, edp, utilization, macs, dram_bytes
  /// (per tensor), and the full counts and energy breakdown.
  nlohmann::json to_json() const;
};

/// Rebuilds Metrics from Metrics::to_json (valid, reason, invalid kind, cycles, energy, EDP,
/// utilization, counts, breakdown); missing fields are 0.
Metrics metrics_from_json(const nlohmann::json& j);
/// Counts from a {name: value} object (names as AccessCounts::fields()); missing names are 0.
AccessCounts counts_from_json(const nlohmann::json& j);
/// Counts as a {name: value} object.
nlohmann::json counts_to_json(const AccessCounts& c);

/// Energy from counts: the one formula used by the surrogate and the RTL evaluator.
EnergyBreakdown energy_from_counts(const Arch& arch, const AccessCounts& c, long long cycles,
                                   int pe_rows, int pe_cols);
/// Fills energy, energy_pj, edp and utilization from counts and cycles.
void finish_metrics(Metrics& m, const Layer& layer, const Arch& arch, const Mapping& mapping);

}  // namespace mapwright::core
