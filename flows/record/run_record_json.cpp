// The typed run record and its JSON form (results.json): enumeration names, verifications,
// candidates, choices, layers (public, so one layer can travel alone between MPI ranks), the
// architecture's parameters and the whole record with its summary.
#include "mapwright/flows/run_record.hpp"

#include <string>

#include <nlohmann/json.hpp>

#include "mapwright/support/error.hpp"

namespace mapwright::flows {

namespace {

using json = nlohmann::json;

template <typename E, size_t N>
E enum_from_name(const std::string& name, const E (&all)[N], const char* (*name_of)(E),
                 const std::string& file, const std::string& key) {
  for (E e : all)
    if (name == name_of(e)) return e;
  throw core::SpecError(file, key, name, "unknown value");
}

constexpr LayerStatus kLayerStatuses[] = {LayerStatus::Pending, LayerStatus::Searched,
                                          LayerStatus::Done};
constexpr RunStatus kRunStatuses[] = {RunStatus::Running, RunStatus::Interrupted,
                                      RunStatus::Complete};
constexpr VerificationKind kVerificationKinds[] = {
    VerificationKind::Passed, VerificationKind::Design, VerificationKind::Limit,
    VerificationKind::Infrastructure};
constexpr ChosenBy kChosenBy[] = {ChosenBy::Rtl, ChosenBy::Surrogate};

/// The failure kind of a verification written before "failure_kind" existed, from its
/// message's prefix (records of earlier versions only; new records carry the kind).
core::RtlFailure legacy_failure_kind(const std::string& failure) {
  if (failure.empty()) return core::RtlFailure::None;
  static const std::pair<const char*, core::RtlFailure> prefixes[] = {
      {"invalid:", core::RtlFailure::Invalid},
      {"mapping:", core::RtlFailure::Mapping},
      {"arch:", core::RtlFailure::Arch},
      {"command format:", core::RtlFailure::CommandFormat},
      {"watchdog:", core::RtlFailure::Watchdog},
      {"rtl error:", core::RtlFailure::RtlError},
      {"dram:", core::RtlFailure::Dram},
      {"trace:", core::RtlFailure::Trace},
      {"limit:", core::RtlFailure::Limit},
      {"worker: the RTL process", core::RtlFailure::Worker}};
  for (const auto& [p, k] : prefixes)
    if (failure.rfind(p, 0) == 0) return k;
  return core::RtlFailure::Internal;
}

}  // namespace

json verification_to_json(const Verification& v) {
  json j;
  j["seed"] = v.seed;
  j["failure"] = v.failure;
  if (v.failure_kind != core::RtlFailure::None)
    j["failure_kind"] = core::rtl_failure_name(v.failure_kind);
  j["retries"] = v.retries;
  j["functional_ok"] = v.functional_ok;
  j["mismatches"] = v.mismatches;
  j["sim_seconds"] = v.sim_seconds;
  if (!v.harness.empty()) j["harness"] = v.harness;
  if (v.rtl) {
    j["cycles"] = v.rtl->cycles;
    j["energy_pj"] = v.rtl->energy_pj;
    j["edp"] = v.rtl->edp;
    j["utilization"] = v.rtl->utilization;
    j["cycle_error_pct"] = v.cycle_error_pct;
    j["metrics"] = v.rtl->to_json();
    json diffs = json::object();
    for (const auto& d : v.count_diffs)
      diffs[d.name] = {{"rtl", d.rtl}, {"surrogate", d.surrogate}};
    j["count_diffs"] = diffs;
  }
  j["counts_equal"] = v.counts_equal;
  j["passed"] = v.passed;
  if (v.failure_kind == core::RtlFailure::Limit) {
    j["over_limit"] = true;
    j["predicted_cycles"] = v.predicted_cycles;
    j["estimated_memory_mb"] = v.estimated_memory_mb;
  }
  j["kind"] = verification_kind_name(v.kind);
  return j;
}

namespace {

json candidate_to_json(const Candidate& c) {
  json j{{"rank", c.rank},
         {"sample", c.sample},
         {"cost", c.cost},
         {"mapping", core::mapping_to_yaml(c.mapping)},
         {"surrogate", c.surrogate.to_json()},
         {"verification", c.verification ? verification_to_json(*c.verification) : json()}};
  if (c.refined_cycles > 0) j["refined_cycles"] = c.refined_cycles;
  return j;
}

Candidate candidate_from_json(const json& j, const std::string& file) {
  Candidate c;
  c.rank = j.at("rank").get<int>();
  c.sample = j.value("sample", int64_t{-1});
  c.cost = j.at("cost").get<double>();
  c.mapping = core::mapping_from_yaml(j.at("mapping").get<std::string>(), file);
  c.surrogate = core::metrics_from_json(j.at("surrogate"));
  c.refined_cycles = j.value("refined_cycles", 0LL);
  if (j.contains("verification") && !j["verification"].is_null())
    c.verification = verification_from_json(j["verification"], file);
  return c;
}

json choice_to_json(const Choice& b, bool rtl) {
  json j = {{"rank", b.rank},
            {"chosen_by", chosen_by_name(b.chosen_by)},
            {"mapping", core::mapping_to_yaml(b.mapping)},
            {"cycles", b.cycles},
            {"energy_pj", b.energy_pj},
            {"edp", b.edp},
            {"utilization", b.utilization},
            {"cost", b.cost}};
  if (rtl && b.chosen_by == ChosenBy::Surrogate) j["note"] = b.note;
  return j;
}

Choice choice_from_json(const json& j, const std::string& file) {
  Choice b;
  b.rank = j.at("rank").get<int>();
  b.chosen_by = enum_from_name(j.at("chosen_by").get<std::string>(), kChosenBy, chosen_by_name,
                               file, "best.chosen_by");
  b.mapping = core::mapping_from_yaml(j.at("mapping").get<std::string>(), file);
  b.cycles = j.at("cycles").get<long long>();
  b.energy_pj = j.at("energy_pj").get<double>();
  b.edp = j.at("edp").get<double>();
  b.utilization = j.at("utilization").get<double>();
  b.cost = j.value("cost", 0.0);
  b.note = j.value("note", std::string());
  return b;
}

}  // namespace

Verification verification_from_json(const json& j, const std::string& file) {
  Verification v;
  v.seed = j.value("seed", uint64_t{0});
  v.failure = j.value("failure", std::string());
  v.failure_kind = j.contains("failure_kind")
                       ? core::rtl_failure_from_name(j["failure_kind"].get<std::string>())
                       : legacy_failure_kind(v.failure);
  v.retries = j.value("retries", 0);
  v.functional_ok = j.value("functional_ok", false);
  v.mismatches = j.value("mismatches", 0LL);
  v.sim_seconds = j.value("sim_seconds", 0.0);
  v.harness = j.value("harness", std::string());
  if (j.contains("metrics")) {
    v.rtl = core::metrics_from_json(j["metrics"]);
    v.cycle_error_pct = j.value("cycle_error_pct", 0.0);
    if (j.contains("count_diffs"))
      for (const auto& [name, d] : j["count_diffs"].items())
        v.count_diffs.push_back({name, d.value("rtl", 0LL), d.value("surrogate", 0LL)});
  }
  v.counts_equal = j.value("counts_equal", false);
  v.passed = j.value("passed", false);
  v.predicted_cycles = j.value("predicted_cycles", 0LL);
  v.estimated_memory_mb = j.value("estimated_memory_mb", 0.0);
  if (j.contains("kind"))
    v.kind = enum_from_name(j["kind"].get<std::string>(), kVerificationKinds,
                            verification_kind_name, file, "verification.kind");
  else  // written before "kind" existed
    v.kind = v.passed                                     ? VerificationKind::Passed
             : v.failure_kind == core::RtlFailure::Worker ? VerificationKind::Infrastructure
                                                          : VerificationKind::Design;
  return v;
}

json layer_record_to_json(const LayerRecord& L, bool rtl) {
  json j = {{"index", L.index},
            {"name", L.layer.name},
            {"shape", L.layer.describe()},
            {"kind", core::layer_kind_name(L.layer.kind)},
            {"count", L.count},
            {"macs", L.layer.macs()},
            {"layer", core::layer_to_json(L.layer)},
            {"seed", L.seed},
            {"status", layer_status_name(L.status)},
            {"candidates", json::array()},
            {"best", L.best ? choice_to_json(*L.best, rtl) : json()}};
  for (const auto& c : L.candidates) j["candidates"].push_back(candidate_to_json(c));
  if (!L.search.is_null()) j["search"] = L.search;
  if (!L.curve_csv.empty()) j["curve_csv"] = L.curve_csv;
  if (!L.mapping_file.empty()) j["mapping_file"] = L.mapping_file;
  return j;
}

LayerRecord layer_record_from_json(const json& j, const std::string& file) {
  LayerRecord L;
  L.index = j.at("index").get<size_t>();
  L.layer = core::layer_from_json(j.at("layer"), file);
  L.count = j.at("count").get<int>();
  L.seed = j.at("seed").get<uint64_t>();
  L.status = enum_from_name(j.at("status").get<std::string>(), kLayerStatuses, layer_status_name,
                            file, "layers.status");
  if (j.contains("search")) L.search = j["search"];
  L.curve_csv = j.value("curve_csv", std::string());
  L.mapping_file = j.value("mapping_file", std::string());
  for (const auto& c : j.at("candidates")) L.candidates.push_back(candidate_from_json(c, file));
  if (!j.at("best").is_null()) L.best = choice_from_json(j["best"], file);
  return L;
}

namespace {

json arch_info_to_json(const ArchInfo& a) {
  return {{"name", a.name},
          {"rows", a.rows},
          {"cols", a.cols},
          {"clock_mhz", a.clock_mhz},
          {"input_kib", a.input_kib},
          {"weight_kib", a.weight_kib},
          {"accum_kib", a.accum_kib},
          {"dram_bytes_per_cycle", a.dram_bytes_per_cycle},
          {"dram_latency_cycles", a.dram_latency_cycles},
          {"dram_port", a.dram_port}};
}

ArchInfo arch_info_from_json(const json& j) {
  ArchInfo a;
  a.name = j.at("name").get<std::string>();
  a.rows = j.at("rows").get<int>();
  a.cols = j.at("cols").get<int>();
  a.clock_mhz = j.at("clock_mhz").get<double>();
  a.input_kib = j.at("input_kib").get<long long>();
  a.weight_kib = j.at("weight_kib").get<long long>();
  a.accum_kib = j.at("accum_kib").get<long long>();
  a.dram_bytes_per_cycle = j.at("dram_bytes_per_cycle").get<double>();
  a.dram_latency_cycles = j.at("dram_latency_cycles").get<int>();
  a.dram_port = j.value("dram_port", std::string("packed"));  // absent in older records
  return a;
}

}  // namespace

const char* layer_status_name(LayerStatus s) {
  switch (s) {
    case LayerStatus::Pending:
      return "pending";
    case LayerStatus::Searched:
      return "searched";
    case LayerStatus::Done:
      return "done";
  }
  return "pending";
}

const char* run_status_name(RunStatus s) {
  switch (s) {
    case RunStatus::Running:
      return "running";
    case RunStatus::Interrupted:
      return "interrupted";
    case RunStatus::Complete:
      return "complete";
  }
  return "running";
}

const char* verification_kind_name(VerificationKind k) {
  switch (k) {
    case VerificationKind::Passed:
      return "passed";
    case VerificationKind::Design:
      return "design";
    case VerificationKind::Limit:
      return "limit";
    case VerificationKind::Infrastructure:
      return "infrastructure";
  }
  return "design";
}

const char* chosen_by_name(ChosenBy c) {
  return c == ChosenBy::Rtl ? "rtl" : "surrogate";
}

ArchInfo arch_info_of(const core::Arch& a) {
  ArchInfo i;
  i.name = a.name;
  i.rows = a.rows;
  i.cols = a.cols;
  i.clock_mhz = a.clock_mhz;
  i.input_kib = a.input_buf_bytes / 1024;
  i.weight_kib = a.weight_buf_bytes / 1024;
  i.accum_kib = a.accum_buf_bytes / 1024;
  i.dram_bytes_per_cycle = a.dram_bytes_per_cycle;
  i.dram_latency_cycles = a.dram_latency_cycles;
  i.dram_port = core::dram_port_name(a.dram_port);
  return i;
}

json run_record_to_json(const RunRecord& r) {
  return run_record_to_json(r, summarize(r));
}

json run_record_to_json(const RunRecord& r, const RunSummary& s) {
  json j = settings_to_json(r.settings);
  j["command"] = "run";
  j["format"] = r.format;
  j["run_id"] = r.run_id;
  j["created"] = r.created;
  if (!r.updated.empty()) j["updated"] = r.updated;
  j["mapwright"] = r.mapwright;
  j["target"] = r.target;
  if (!r.import_skipped.empty() || !r.import_warnings.empty())
    j["import"] = {{"input_shapes", r.settings.input_shapes}, {"strict", r.settings.strict}};
  if (j.contains("import")) {  // the settings' input shapes and strictness, and what came of them
    json skipped = json::object();
    for (const auto& [op, count] : r.import_skipped) skipped[op] = count;
    j["import"]["skipped"] = skipped;
    j["import"]["warnings"] = r.import_warnings;
  }
  j["arch"] = r.arch.name;
  j["arch_info"] = arch_info_to_json(r.arch);
  j["options_file"] = r.options_file;
  j["run_dir"] = r.run_dir;
  j["db"] = r.db;
  j["rtl_note"] = r.rtl_note;
  j["status"] = run_status_name(r.status);
  j["jobs"] = r.jobs;
  if (r.wall_seconds_last_session) j["wall_seconds_last_session"] = *r.wall_seconds_last_session;
  if (!r.synthesis.is_null()) j["synthesis"] = r.synthesis;
  if (!r.area.is_null()) j["area"] = r.area;
  j["layers"] = json::array();
  for (const auto& L : r.layers) j["layers"].push_back(layer_record_to_json(L, r.settings.rtl()));

  j["totals"] = {{"cycles", s.cycles},
                 {"seconds", s.seconds},
                 {"energy_pj", s.energy_pj},
                 {"edp", s.edp},
                 {"utilization", s.utilization},
                 {"macs", s.macs},
                 {"layers_done", s.layers_done},
                 {"layers_total", s.layers_total},
                 {"source", s.source}};
  json failures = json::array();
  for (const auto& [li, ci] : s.failures) {
    const auto& L = r.layers[li];
    const Verification& v = *L.candidates[ci].verification;
    failures.push_back({{"layer", L.layer.name},
                        {"rank", L.candidates[ci].rank},
                        {"failure", v.failure},
                        {"kind", verification_kind_name(v.kind)},
                        {"functional_ok", v.functional_ok},
                        {"counts_equal", v.counts_equal}});
  }
  j["verification_summary"] = {{"planned", s.planned},
                               {"done", s.done},
                               {"passed", s.passed},
                               {"failed", s.failed},
                               {"infrastructure_failed", s.infrastructure_failed},
                               {"pending", s.pending},
                               {"failures", failures}};
  json parity = {{"n", s.parity_n}};
  if (s.parity_n > 0) {
    parity["mape_pct"] = s.mape_pct;
    parity["max_error_pct"] = s.max_error_pct;
    parity["spearman"] = s.spearman ? json(*s.spearman) : json();
    if (s.refined_n > 0)
      parity["refined"] = {{"n", s.refined_n},
                           {"mape_pct", s.refined_mape_pct},
                           {"max_error_pct", s.refined_max_error_pct}};
  }
  j["parity"] = parity;
  return j;
}

RunRecord run_record_from_json(const json& j, const std::string& file) {
  RunRecord r;
  try {
    r.format = j.at("format").get<int>();
    r.run_id = j.at("run_id").get<std::string>();
    r.created = j.value("created", std::string());
    r.updated = j.value("updated", std::string());
    r.mapwright = j.value("mapwright", std::string());
    r.target = j.at("target").get<std::string>();
    r.settings = settings_from_json(j, file);
    if (j.contains("import")) {
      const json skipped = j["import"].value("skipped", json::object());
      for (const auto& [op, count] : skipped.items())
        r.import_skipped.emplace_back(op, count.get<int>());
      r.import_warnings = j["import"].value("warnings", std::vector<std::string>{});
    }
    r.arch = arch_info_from_json(j.at("arch_info"));
    r.arch.name = j.at("arch").get<std::string>();
    r.options_file = j.value("options_file", std::string());
    r.run_dir = j.value("run_dir", std::string());
    r.db = j.value("db", std::string());
    r.rtl_note = j.value("rtl_note", std::string());
    r.status = enum_from_name(j.at("status").get<std::string>(), kRunStatuses, run_status_name,
                              file, "status");
    r.jobs = j.value("jobs", 0);
    if (j.contains("wall_seconds_last_session"))
      r.wall_seconds_last_session = j["wall_seconds_last_session"].get<double>();
    if (j.contains("synthesis")) r.synthesis = j["synthesis"];
    if (j.contains("area")) r.area = j["area"];
    for (const auto& L : j.at("layers")) r.layers.push_back(layer_record_from_json(L, file));
  } catch (const json::exception& e) {
    throw core::SpecError(file, "(record)", "", std::string("malformed run record: ") + e.what());
  }
  return r;
}

}  // namespace mapwright::flows
