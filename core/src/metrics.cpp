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

namespace {

/// AccessCounts members in AccessCounts::fields() order.
constexpr long long AccessCounts::*kCountMembers[] = {&AccessCounts::macs,
                                                      &AccessCounts::steps,
                                                      &AccessCounts::folds,
                                                      &AccessCounts::input_buf_reads,
                                                      &AccessCounts::input_buf_writes,
                                                      &AccessCounts::weight_buf_reads,
                                                      &AccessCounts::weight_buf_writes,
                                                      &AccessCounts::accum_reads,
                                                      &AccessCounts::accum_writes,
                                                      &AccessCounts::dram_input_bytes,
                                                      &AccessCounts::dram_weight_bytes,
                                                      &AccessCounts::dram_output_bytes,
                                                      &AccessCounts::dram_psum_write_bytes,
                                                      &AccessCounts::dram_psum_read_bytes,
                                                      &AccessCounts::input_loads,
                                                      &AccessCounts::weight_loads,
                                                      &AccessCounts::psum_reloads,
                                                      &AccessCounts::psum_spills,
                                                      &AccessCounts::output_stores};
static_assert(sizeof(kCountMembers) / sizeof(kCountMembers[0]) == 19,
              "AccessCounts changed: update kCountMembers");

}  // namespace

AccessCounts counts_from_json(const nlohmann::json& j) {
  AccessCounts c;
  const auto names = c.fields();
  for (size_t i = 0; i < names.size(); ++i)
    if (j.contains(names[i].first)) c.*kCountMembers[i] = j[names[i].first].get<long long>();
  return c;
}

nlohmann::json counts_to_json(const AccessCounts& c) {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [k, v] : c.fields()) j[k] = v;
  return j;
}

Metrics metrics_from_json(const nlohmann::json& j) {
  Metrics m;
  m.valid = j.value("valid", false);
  m.reason = j.value("reason", std::string());
  m.invalid = invalid_kind_from_name(j.value("invalid_kind", std::string("none")));
  if (!m.valid) return m;
  m.cycles = j.value("cycles", 0LL);
  m.compute_cycles = j.value("compute_cycles", 0LL);
  m.dma_cycles = j.value("dma_cycles", 0LL);
  m.energy_pj = j.value("energy_pj", 0.0);
  m.edp = j.value("edp", 0.0);
  m.utilization = j.value("utilization", 0.0);
  if (j.contains("counts")) m.counts = counts_from_json(j["counts"]);
  if (j.contains("energy_breakdown_pj")) {
    const auto& e = j["energy_breakdown_pj"];
    m.energy.mac = e.value("mac", 0.0);
    m.energy.input_buf = e.value("input_buf", 0.0);
    m.energy.weight_buf = e.value("weight_buf", 0.0);
    m.energy.accum_buf = e.value("accum_buf", 0.0);
    m.energy.dram = e.value("dram", 0.0);
    m.energy.pe_static = e.value("pe_static", 0.0);
  }
  return m;
}

}  // namespace mapwright::core
