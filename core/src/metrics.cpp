// Metrics: the shared energy formula (counts x energy table) and the JSON form of a result.
#include "mapwright/core/metrics.hpp"

namespace mapwright::core {

EnergyBreakdown energy_from_counts(const Arch& a, const AccessCounts& c, long long cycles,
                                   int pe_rows, int pe_cols) {
  const EnergyTable& e = a.energy;
  EnergyBreakdown b;
  b.mac = e.mac_pj * static_cast<double>(c.macs);
  b.input_buf = e.input_buf_pj * static_cast<double>(c.input_buf_reads + c.input_buf_writes);
  b.weight_buf = e.weight_buf_pj * static_cast<double>(c.weight_buf_reads + c.weight_buf_writes);
  b.accum_buf = e.accum_buf_pj * static_cast<double>(c.accum_reads + c.accum_writes);
  b.dram = e.dram_pj_per_byte * static_cast<double>(c.dram_bytes());
  b.pe_static = e.pe_static_pj * static_cast<double>(cycles) * pe_rows * pe_cols;
  return b;
}

void finish_metrics(Metrics& m, const Layer& l, const Arch& a, const Mapping& map) {
  m.energy = energy_from_counts(a, m.counts, m.cycles, map.pe_rows, map.pe_cols);
  m.energy_pj = m.energy.total();
  m.edp = m.energy_pj * static_cast<double>(m.cycles);
  m.utilization = m.cycles > 0 ? static_cast<double>(l.macs()) /
                                     (static_cast<double>(m.cycles) * a.rows * a.cols)
                               : 0.0;
}

nlohmann::json Metrics::to_json() const {
  nlohmann::json j;
  j["valid"] = valid;
  j["reason"] = reason;
  j["invalid_kind"] = invalid_kind_name(invalid);
  if (!valid) return j;
  j["cycles"] = cycles;
  j["compute_cycles"] = compute_cycles;
  j["dma_cycles"] = dma_cycles;
  j["energy_pj"] = energy_pj;
  j["edp"] = edp;
  j["utilization"] = utilization;
  j["macs"] = counts.macs;
  j["dram_bytes"] = {
      {"input", counts.dram_input_bytes},         {"weight", counts.dram_weight_bytes},
      {"output", counts.dram_output_bytes},       {"psum_write", counts.dram_psum_write_bytes},
      {"psum_read", counts.dram_psum_read_bytes}, {"total", counts.dram_bytes()}};
  j["energy_breakdown_pj"] = {{"mac", energy.mac},
                              {"input_buf", energy.input_buf},
                              {"weight_buf", energy.weight_buf},
                              {"accum_buf", energy.accum_buf},
                              {"dram", energy.dram},
                              {"pe_static", energy.pe_static}};
  nlohmann::json c;
  for (const auto& [k, v] : counts.fields())
    if (k) c[k] = v;
  j["counts"] = c;
  return j;
}

}  // namespace mapwright::core
