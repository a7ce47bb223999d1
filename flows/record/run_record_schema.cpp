// The shape of a run folder's results.json (record/json_schema.hpp's language), checked before
// `report` renders it or `run --resume` continues it, so that a hand-edited or damaged file is
// refused with the file, the key path and the value (exit 2).
#include "mapwright/flows/run_record.hpp"

#include <string>

#include <nlohmann/json.hpp>

#include "record/json_schema.hpp"

namespace mapwright::flows {

namespace {

using json = nlohmann::json;

// "@metrics" refers to the metrics record.
constexpr const char* kMetrics = R"({
  "valid": "bool", "cycles": "uint", "energy_pj": "number", "edp": "number",
  "utilization": "number", "macs?": "uint", "reason?": "string", "invalid_kind?": "string",
  "counts?": "object", "dram_bytes?": "object", "energy_breakdown_pj?": "object"
})";

constexpr const char* kRun = R"({
  "command": "enum:run", "format": "count", "run_id": "string", "target": "string",
  "network_arg": "string", "layer_arg": "string",
  "import?": {"input_shapes": ["string"], "strict": "bool", "skipped": "object",
              "warnings": ["string"]}, "arch": "string", "arch_arg": "string",
  "arch_info": "object", "searcher": "string", "budget_per_layer": "count", "seed": "uint",
  "objective": "string", "top_k": "count", "options_arg": "string", "options_file?": "string",
  "rtl": "bool", "status": "enum:running|interrupted|complete", "run_dir?": "string",
  "reward?": {"source": "enum:surrogate|rtl", "surrogate_warmup": "uint"},
  "db?": "string", "rtl_note?": "string", "jobs?": "uint", "created?": "string",
  "updated?": "string", "exact?": {"time_limit_s": "number", "gap": "number",
                                   "threads?": "uint"},
  "totals?": "object", "parity?": "object", "verification_summary?": "object",
  "synthesis?": "object", "area?": "object",
  "layers": [{
    "index": "uint", "name": "string", "shape": "string", "kind": "string", "count": "count",
    "macs": "uint", "layer": "object", "seed": "uint",
    "status": "enum:pending|searched|done",
    "search?": "object", "curve_csv?": "string", "mapping_file?": "string",
    "candidates": [{
      "rank": "uint", "mapping": "string", "cost": "number", "sample?": "int",
      "surrogate": "@metrics", "refined_cycles?": "uint",
      "verification?": "?object"
    }],
    "best": "?object"
  }]
})";

constexpr const char* kVerification = R"({
  "passed": "bool", "failure": "string", "kind?": "enum:passed|design|infrastructure|limit",
  "functional_ok?": "bool", "counts_equal?": "bool", "mismatches?": "uint", "retries?": "uint",
  "seed?": "uint", "cycles?": "uint", "energy_pj?": "number", "edp?": "number",
  "utilization?": "number", "cycle_error_pct?": "number", "sim_seconds?": "number",
  "harness?": "string",
  "metrics?": "@metrics"
})";

constexpr const char* kBest = R"({
  "rank": "uint", "mapping": "string", "cycles": "uint", "energy_pj": "number",
  "edp": "number", "utilization": "number", "cost?": "number",
  "chosen_by": "enum:rtl|surrogate", "note?": "string"
})";

}  // namespace

void check_run_record(const json& r, const std::string& file) {
  const JsonChecker c(file,
                      "not as `mapwright run` writes it: undo the edit, or start the run again in "
                      "another --out",
                      {{"metrics", json::parse(kMetrics)}});
  c.check(r, json::parse(kRun), "");
  const json verification = json::parse(kVerification), best = json::parse(kBest);
  const auto& layers = r.at("layers");
  for (size_t li = 0; li < layers.size(); ++li) {
    const json& L = layers[li];
    const std::string p = "layers[" + std::to_string(li) + "]";
    if (L.at("index").get<unsigned long long>() != li)
      c.fail(p + ".index", L.at("index"), "must be " + std::to_string(li) + " (its position)");
    if (L.at("candidates").size() > r.at("top_k").get<unsigned long long>())
      c.fail(p + ".candidates", json(std::to_string(L.at("candidates").size()) + " entries"),
             "holds more than top_k candidates");
    const auto& cands = L.at("candidates");
    for (size_t ci = 0; ci < cands.size(); ++ci) {
      if (!cands[ci].contains("verification") || cands[ci]["verification"].is_null()) continue;
      const json& v = cands[ci]["verification"];
      const std::string pv = p + ".candidates[" + std::to_string(ci) + "].verification";
      c.check(v, verification, pv);
      if (v["passed"].get<bool>())  // a passed verification carries the RTL figures
        for (const char* k : {"cycles", "energy_pj", "edp", "utilization"})
          if (!v.contains(k)) c.fail(pv + "." + k, json(), "is missing (passed is true)");
    }
    if (!L.at("best").is_null()) c.check(L["best"], best, p + ".best");
  }
}

}  // namespace mapwright::flows
