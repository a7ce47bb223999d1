// Sweep files: strict loading of the grid and explicit points of `mapwright sweep`, with the
// same ranges as an architecture file (core/src/arch.cpp), so a point that loads here loads
// as an architecture too.
#include <algorithm>
#include <filesystem>
#include <iomanip>
#include <map>
#include <sstream>
#include <tuple>

#include "common/files.hpp"
#include "mapwright/core/arch.hpp"
#include "mapwright/support/error.hpp"
#include "mapwright/support/yaml_util.hpp"
#include "mapwright/flows/objective.hpp"
#include "mapwright/flows/sweep.hpp"

namespace fs = std::filesystem;
using namespace mapwright::core;

namespace mapwright::flows {

namespace {

constexpr size_t kMaxPoints = 10000;
constexpr double kMaxSeed = 4.6e18;  // < 2^62, exact in int64

/// The varying parameters of one point: a SweepPoint before it is named.
using Params = SweepPoint;

/// Orders points by their parameters (the name left out), to find two alike.
struct ByParams {
  static auto key(const Params& p) {
    return std::tie(p.rows, p.cols, p.input_kib, p.weight_kib, p.accum_kib, p.dram_bytes_per_cycle,
                    p.dataflows);
  }
  bool operator()(const Params& a, const Params& b) const { return key(a) < key(b); }
};

/// "RxC" -> (R, C), each 2..64.
std::pair<int, int> parse_array(const YAML::Node& n, const std::string& where,
                                const std::string& key) {
  const std::string text = scalar_of(n, where, key);
  const size_t x = text.find('x');
  auto num = [&](const std::string& s) {
    if (s.empty() || s.size() > 2 || !std::all_of(s.begin(), s.end(), ::isdigit))
      throw SpecError(where, key, text, "expected ROWSxCOLS, e.g. 16x16, each 2..64");
    const int v = std::stoi(s);
    if (v < 2 || v > 64) throw SpecError(where, key, text, "rows and cols must be 2..64");
    return v;
  };
  if (x == std::string::npos)
    throw SpecError(where, key, text, "expected ROWSxCOLS, e.g. 16x16, each 2..64");
  return {num(text.substr(0, x)), num(text.substr(x + 1))};
}

/// A dataflow list of ws, os, is (each once, at least one), in that order.
std::vector<std::string> parse_dataflows(const YAML::Node& n, const std::string& where,
                                         const std::string& key) {
  if (!n.IsSequence() || n.size() == 0)
    throw SpecError(where, key, node_text(n), "expected a non-empty list of ws, os and is");
  std::vector<std::string> out;
  for (size_t i = 0; i < n.size(); ++i) {
    const std::string d = scalar_of(n[i], where, key + "[" + std::to_string(i) + "]");
    Dataflow df;
    if (!parse_dataflow(d, df))
      throw SpecError(where, key + "[" + std::to_string(i) + "]", d,
                      std::string("must be one of ") + known_dataflows());
    if (std::find(out.begin(), out.end(), d) != out.end())
      throw SpecError(where, key, node_text(n), "names " + d + " twice");
    out.push_back(d);
  }
  auto rank = [](const std::string& d) {
    Dataflow df = Dataflow::WS;
    parse_dataflow(d, df);
    return static_cast<int>(df);  // ws, os, is
  };
  std::sort(out.begin(), out.end(),
            [&](const std::string& a, const std::string& b) { return rank(a) < rank(b); });
  return out;
}

/// The values of one grid key: a non-empty list (or one scalar).
std::vector<YAML::Node> values_of(const YAML::Node& grid, const std::string& key,
                                  const std::string& where) {
  std::vector<YAML::Node> v;
  const YAML::Node n = grid[key];
  if (!n) return v;
  if (key == "dataflows") {  // a list of lists, or one list
    if (n.IsSequence() && n.size() > 0 && n[0].IsSequence())
      for (const auto& e : n) v.push_back(e);
    else
      v.push_back(n);
    return v;
  }
  if (n.IsSequence()) {
    if (n.size() == 0) throw SpecError(where, "grid." + key, "[]", "expected a non-empty list");
    for (const auto& e : n) v.push_back(e);
  } else {
    v.push_back(n);
  }
  return v;
}

/// Applies one key's value to `p` (grid or point); `key` is the dotted name for errors.
void apply(Params& p, const Params& base, const std::string& k, const YAML::Node& v,
           const std::string& where, const std::string& key) {
  if (k == "array") {
    std::tie(p.rows, p.cols) = parse_array(v, where, key);
  } else if (k == "rows") {
    p.rows = static_cast<int>(int_of(v, where, key, 2, 64));
  } else if (k == "cols") {
    p.cols = static_cast<int>(int_of(v, where, key, 2, 64));
  } else if (k == "input_kib") {
    p.input_kib = int_of(v, where, key, 1, 65536);
  } else if (k == "weight_kib") {
    p.weight_kib = int_of(v, where, key, 1, 65536);
  } else if (k == "accum_kib") {
    p.accum_kib = int_of(v, where, key, 1, 65536);
  } else if (k == "buffer_scale") {
    const double s = double_of(v, where, key, 1.0 / 64, 64);
    auto scaled = [&](long long kib) {
      const double x = static_cast<double>(kib) * s;
      if (x < 1 || x > 65536 || x != static_cast<double>(static_cast<long long>(x)))
        throw SpecError(where, key, node_text(v),
                        "scales a base buffer of " + std::to_string(kib) +
                            " KiB to a size that is not a whole number of KiB in 1..65536");
      return static_cast<long long>(x);
    };
    p.input_kib = scaled(base.input_kib);
    p.weight_kib = scaled(base.weight_kib);
    p.accum_kib = scaled(base.accum_kib);
  } else if (k == "dram_bytes_per_cycle") {
    p.dram_bytes_per_cycle = static_cast<int>(int_of(v, where, key, 1, 1024));
  } else if (k == "dataflows") {
    p.dataflows = parse_dataflows(v, where, key);
  }
}

const char* const kParamKeys[] = {"array",      "rows",      "cols",         "input_kib",
                                  "weight_kib", "accum_kib", "buffer_scale", "dram_bytes_per_cycle",
                                  "dataflows"};

std::string point_name(size_t index, const Params& p) {
  std::ostringstream s;
  s << "p" << std::setw(3) << std::setfill('0') << index << "-" << p.rows << "x" << p.cols << "-i"
    << p.input_kib << "-w" << p.weight_kib << "-a" << p.accum_kib << "-bw" << p.dram_bytes_per_cycle
    << "-";
  for (size_t i = 0; i < p.dataflows.size(); ++i) s << (i ? "." : "") << p.dataflows[i];
  return s.str();
}

/// mapper:, constraints:, area: and verify: (all | none | {sample: N}) of the sweep file.
void read_checks(const YAML::Node& root, const std::string& path, SweepFile& s) {
  if (const YAML::Node m = root["mapper"]) {
    require_map(m, path, "mapper");
    check_keys(m, path, "mapper", {"time_limit_s", "gap"});
    s.exact.time_limit_s = get_double_in(m, "time_limit_s", path, "mapper", 60, 0.001, 1e6);
    // Every layer of every point is proved optimal (the co-design's point evaluator): a gap
    // other than 0 is refused, not quietly ignored.
    s.exact.gap = get_double_in(m, "gap", path, "mapper", 0, 0, 0.5);
    if (s.exact.gap != 0)
      throw SpecError(path, "mapper.gap", node_text(m["gap"]),
                      "a sweep proves every layer optimal (gap 0); give 0 or leave it out");
  }
  read_design_constraints(root, path, s.max_area_mm2, s.max_latency_ms, s.max_energy_uj);
  if (const YAML::Node a = root["area"]) s.area = model::area_constants_from_yaml(a, path);
  if (const YAML::Node v = root["verify"]) {
    if (v.IsMap()) {
      check_keys(v, path, "verify", {"sample"});
      s.verify = "sample";
      s.verify_sample =
          static_cast<int>(get_int_in(v, "sample", path, "verify", 1, 1, 10000, true));
    } else {
      s.verify = scalar_of(v, path, "verify");
      if (s.verify != "all" && s.verify != "none")
        throw SpecError(path, "verify", s.verify, "must be all, none or {sample: N}");
    }
  }
}

/// The base architecture's parameters, which fill every key a point does not set; refused when
/// the base has banked buffers or (verify: all or sample) a DRAM port the RTL lacks.
Params base_params(const SweepFile& s, const std::string& path) {
  Arch base;
  try {
    base = load_arch(s.base_arch);
  } catch (const SpecError& e) {
    throw SpecError(path, "base_arch", s.base_arch, e.what());
  }
  if (base.buffer_banks > 0)
    // A point's array and DRAM beat need their own bank count (at least their widest lane
    // row); the points are generated without one.
    throw SpecError(path, "base_arch", s.base_arch,
                    "has buffers.banks " + std::to_string(base.buffer_banks) +
                        "; a sweep varies the array and DRAM beat and starts from an "
                        "architecture with multi-ported buffers (no buffers.banks)");
  if (s.verify != "none") {
    try {
      require_rtl_dram_port(base, s.base_arch);
    } catch (const SpecError& e) {
      throw SpecError(path, "verify", s.verify, std::string(e.what()) + "; use verify: none");
    }
  }
  Params b;
  b.rows = base.rows;
  b.cols = base.cols;
  b.input_kib = base.input_buf_bytes / 1024;
  b.weight_kib = base.weight_buf_bytes / 1024;
  b.accum_kib = base.accum_buf_bytes / 1024;
  b.dram_bytes_per_cycle = static_cast<int>(base.dram_bytes_per_cycle);
  for (Dataflow d : base.dataflows) b.dataflows.push_back(dataflow_name(d));
  for (auto& d : b.dataflows) std::transform(d.begin(), d.end(), d.begin(), ::tolower);
  return b;
}

/// The points of grid: `g`, the cross product of its keys' values over the base `b`, each
/// with where it came from.
void add_grid_points(const YAML::Node& g, const Params& b, const std::string& path,
                     std::vector<std::pair<Params, std::string>>& all) {
  require_map(g, path, "grid");
  check_keys(g, path, "grid",
             std::vector<std::string>(std::begin(kParamKeys), std::end(kParamKeys)));
  if (g["array"] && (g["rows"] || g["cols"]))
    throw SpecError(path, "grid.array", node_text(g["array"]),
                    "give either array (RxC pairs) or rows/cols, not both");
  if (g["buffer_scale"] && (g["input_kib"] || g["weight_kib"] || g["accum_kib"]))
    throw SpecError(path, "grid.buffer_scale", node_text(g["buffer_scale"]),
                    "scales the base buffers; give either it or input_kib/weight_kib/accum_kib");
  std::vector<Params> cur{b};
  for (const char* key : kParamKeys) {
    const auto vals = values_of(g, key, path);
    if (vals.empty()) continue;
    std::vector<Params> next;
    for (const auto& p : cur)
      for (size_t i = 0; i < vals.size(); ++i) {
        Params q = p;
        apply(q, b, key, vals[i], path, "grid." + std::string(key) + "[" + std::to_string(i) + "]");
        next.push_back(q);
      }
    if (next.size() > kMaxPoints)
      throw SpecError(path, "grid", std::to_string(next.size()) + "+ points",
                      "a sweep holds at most " + std::to_string(kMaxPoints) + " points");
    cur = std::move(next);
  }
  for (const Params& p : cur) all.push_back({p, "grid"});
}

/// The points listed in points: `pts`, each over the base `b`.
void add_listed_points(const YAML::Node& pts, const Params& b, const std::string& path,
                       std::vector<std::pair<Params, std::string>>& all) {
  if (!pts.IsSequence() || pts.size() == 0)
    throw SpecError(path, "points", node_text(pts), "expected a non-empty list of maps");
  for (size_t i = 0; i < pts.size(); ++i) {
    const std::string at = "points[" + std::to_string(i) + "]";
    require_map(pts[i], path, at);
    check_keys(pts[i], path, at,
               std::vector<std::string>(std::begin(kParamKeys), std::end(kParamKeys)));
    Params q = b;
    for (const char* key : kParamKeys)
      if (pts[i][key]) apply(q, b, key, pts[i][key], path, at + "." + key);
    all.push_back({q, at});
  }
}

/// The sweep's points, named in order; two with the same parameters are refused.
std::vector<SweepPoint> named_points(const std::vector<std::pair<Params, std::string>>& all,
                                     const std::string& path) {
  std::vector<SweepPoint> points;
  std::map<Params, size_t, ByParams> seen;
  for (size_t i = 0; i < all.size(); ++i) {
    const auto [it, fresh] = seen.emplace(all[i].first, i);
    if (!fresh)
      throw SpecError(path, all[i].second, point_name(i, all[i].first),
                      "has the same parameters as point " + std::to_string(it->second) + " (" +
                          all[it->second].second + ")");
    SweepPoint sp = all[i].first;
    sp.name = point_name(i, sp);
    points.push_back(sp);
  }
  return points;
}

}  // namespace

void read_design_constraints(const YAML::Node& root, const std::string& where, double& max_area_mm2,
                             double& max_latency_ms, double& max_energy_uj) {
  const YAML::Node c = root["constraints"];
  if (!c) return;
  require_map(c, where, "constraints");
  check_keys(c, where, "constraints", {"max_area_mm2", "max_latency_ms", "max_energy_uj"});
  max_area_mm2 = get_double_in(c, "max_area_mm2", where, "constraints", 0, 0, 1e6);
  max_latency_ms = get_double_in(c, "max_latency_ms", where, "constraints", 0, 0, 1e9);
  max_energy_uj = get_double_in(c, "max_energy_uj", where, "constraints", 0, 0, 1e12);
}

SweepFile load_sweep_file(const std::string& path) {
  const YAML::Node root = load_yaml_file(path);
  check_keys(root, path, "",
             {"name", "description", "network", "base_arch", "objective", "seed", "grid", "points",
              "verify", "top_k", "mapper", "constraints", "area"});
  SweepFile s;
  s.path = path;
  s.name = get_string(root, "name", path, "", fs::path(path).stem().string());
  s.description = get_string(root, "description", path, "", "");
  s.network = file_beside(path, get_string(root, "network", path, "", s.network));
  s.base_arch = get_string(root, "base_arch", path, "", s.base_arch);
  s.objective = get_string(root, "objective", path, "", s.objective);
  parse_objective(s.objective, path);
  s.seed = static_cast<uint64_t>(
      get_int_in(root, "seed", path, "", 1, 0, static_cast<int64_t>(kMaxSeed)));
  // The RTL runs each layer's proven-optimal mapping; several candidates per layer are `run`'s.
  s.top_k = static_cast<int>(get_int_in(root, "top_k", path, "", 1, 1, 16));
  if (s.top_k != 1)
    throw SpecError(path, "top_k", std::to_string(s.top_k),
                    "a sweep verifies each layer's proven-optimal mapping (top_k 1); more "
                    "candidates per layer are `mapwright run --top-k`'s");
  read_checks(root, path, s);

  const Params b = base_params(s, path);
  std::vector<std::pair<Params, std::string>> all;  // parameters and where they came from
  if (const YAML::Node g = root["grid"]) add_grid_points(g, b, path, all);
  if (const YAML::Node pts = root["points"]) add_listed_points(pts, b, path, all);
  if (all.empty()) throw SpecError(path, "grid", "", "a sweep needs a grid: or points:");
  if (all.size() > kMaxPoints)
    throw SpecError(path, "points", std::to_string(all.size()),
                    "a sweep holds at most " + std::to_string(kMaxPoints) + " points");
  s.points = named_points(all, path);
  if (s.verify == "sample" && s.verify_sample > static_cast<int>(s.points.size()))
    throw SpecError(path, "verify.sample", std::to_string(s.verify_sample),
                    "is more than the sweep's " + std::to_string(s.points.size()) + " points");
  return s;
}

}  // namespace mapwright::flows
