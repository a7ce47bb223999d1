// The shape of a run folder's results.json, checked before `report` renders it or `run
// --resume` continues it, so that a hand-edited or damaged file is refused with the file, the
// key path and the value (exit 2) instead of failing deep inside with an untyped JSON error.
#include <cmath>
#include <nlohmann/json.hpp>
#include <string>

#include "mapwright/core/error.hpp"
#include "mapwright/flows/run.hpp"

namespace mapwright::flows {

namespace {

using json = nlohmann::json;

// The schema: an object maps each key to the schema of its value; a key ending in '?' may be
// missing; an array holds the schema of every element; a string names a type: string, int,
// uint (>= 0), count (>= 1), number (finite), bool, object, any, or enum:a|b|c; a leading '?'
// allows null. "@metrics" refers to the metrics record below. Keys not listed are allowed.
constexpr const char* kMetrics = R"({
  "valid": "bool", "cycles": "uint", "energy_pj": "number", "edp": "number",
  "utilization": "number", "macs?": "uint", "reason?": "string", "invalid_kind?": "string",
  "counts?": "object", "dram_bytes?": "object", "energy_breakdown_pj?": "object"
})";

constexpr const char* kRun = R"({
  "command": "enum:run", "format": "count", "run_id": "string", "target": "string",
  "network_arg": "string", "layer_arg": "string", "arch": "string", "arch_arg": "string",
  "arch_info": "object", "searcher": "string", "budget_per_layer": "count", "seed": "uint",
  "objective": "string", "top_k": "count", "options_arg": "string", "options_file?": "string",
  "rtl": "bool", "status": "enum:running|interrupted|complete", "run_dir?": "string",
  "db?": "string", "rtl_note?": "string", "jobs?": "uint", "created?": "string",
  "updated?": "string", "exact?": {"time_limit_s": "number", "gap": "number",
                                   "threads?": "uint"},
  "totals?": "object", "parity?": "object", "verification_summary?": "object",
  "layers": [{
    "index": "uint", "name": "string", "shape": "string", "kind": "string", "count": "count",
    "macs": "uint", "layer": "object", "seed": "uint",
    "status": "enum:pending|searched|done",
    "search?": "object", "curve_csv?": "string", "mapping_file?": "string",
    "candidates": [{
      "rank": "uint", "mapping": "string", "cost": "number", "sample?": "int",
      "surrogate": "@metrics",
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
  "metrics?": "@metrics"
})";

constexpr const char* kBest = R"({
  "rank": "uint", "mapping": "string", "cycles": "uint", "energy_pj": "number",
  "edp": "number", "utilization": "number", "cost?": "number",
  "chosen_by": "enum:rtl|surrogate", "note?": "string"
})";

class Checker {
 public:
  explicit Checker(std::string file) : file_(std::move(file)) { metrics_ = json::parse(kMetrics); }

  void check(const json& v, const json& schema, const std::string& path) const {
    if (schema.is_object()) {
      if (!v.is_object()) fail(path, v, "must be an object");
      for (const auto& [k, sub] : schema.items()) {
        const bool optional = !k.empty() && k.back() == '?';
        const std::string key = optional ? k.substr(0, k.size() - 1) : k;
        const std::string p = path.empty() ? key : path + "." + key;
        if (!v.contains(key)) {
          if (optional) continue;
          fail(p, json(), "is missing");
        }
        check(v.at(key), sub, p);
      }
      return;
    }
    if (schema.is_array()) {
      if (!v.is_array()) fail(path, v, "must be a list");
      for (size_t i = 0; i < v.size(); ++i)
        check(v[i], schema[0], path + "[" + std::to_string(i) + "]");
      return;
    }
    std::string type = schema.get<std::string>();
    if (type == "@metrics") return check(v, metrics_, path);
    if (!type.empty() && type[0] == '?') {
      if (v.is_null()) return;
      type = type.substr(1);
    }
    check_scalar(v, type, path);
  }

  [[noreturn]] void fail(const std::string& path, const json& v, const std::string& why) const {
    const std::string value = v.is_null()     ? std::string()
                              : v.is_string() ? v.get<std::string>()
                                              : v.dump();
    throw core::SpecError(file_, path, value,
                          why +
                              " (not as `mapwright run` writes it: undo the edit, or start "
                              "the run again in another --out)");
  }

 private:
  void check_scalar(const json& v, const std::string& type, const std::string& path) const {
    if (type == "any") return;
    if (type == "string" && !v.is_string()) fail(path, v, "must be a string");
    if (type == "bool" && !v.is_boolean()) fail(path, v, "must be true or false");
    if (type == "object" && !v.is_object()) fail(path, v, "must be an object");
    if (type == "number" && (!v.is_number() || !std::isfinite(v.get<double>())))
      fail(path, v, "must be a finite number");
    if (type == "int" || type == "uint" || type == "count") {
      if (!v.is_number_integer()) fail(path, v, "must be an integer");
      if (type != "int" && v.is_number_integer() && !v.is_number_unsigned() &&
          v.get<long long>() < (type == "count" ? 1 : 0))
        fail(path, v, type == "count" ? "must be >= 1" : "must be >= 0");
      if (type == "count" && v.is_number_unsigned() && v.get<unsigned long long>() < 1)
        fail(path, v, "must be >= 1");
    }
    if (type.rfind("enum:", 0) == 0) {
      if (!v.is_string()) fail(path, v, "must be one of " + type.substr(5));
      const std::string s = "|" + type.substr(5) + "|";
      if (s.find("|" + v.get<std::string>() + "|") == std::string::npos)
        fail(path, v, "must be one of " + type.substr(5));
    }
  }

  std::string file_;
  json metrics_;
};

}  // namespace

void check_run_record(const json& r, const std::string& file) {
  const Checker c(file);
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
