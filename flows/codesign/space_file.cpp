// Codesign space files: strict loading of the hardware parameters (sets, ranges with a step,
// powers of two), the base architecture whose keys stay fixed, the constraints, the weighted
// workload and the objective. Parameter values are checked against the ranges of an
// architecture file (core/src/arch.cpp), which are what the RTL generates.
#include "mapwright/flows/codesign.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "common/files.hpp"
#include "mapwright/flows/sweep.hpp"
#include "mapwright/frontend/layer_spec.hpp"
#include "mapwright/support/error.hpp"
#include "mapwright/support/yaml_util.hpp"

namespace fs = std::filesystem;
using namespace mapwright::core;

namespace mapwright::flows {

const char* hw_param_key(HwParam p) {
  static const char* const keys[kNumHwParams] = {
      "dataflows", "rows",      "cols",       "dram_bytes_per_cycle",
      "banks",     "accum_kib", "weight_kib", "input_kib"};
  return keys[static_cast<int>(p)];
}

double CodesignSpace::size() const {
  double n = 1;
  for (const auto& v : values) n *= static_cast<double>(v.size());
  return n;
}

namespace {

/// The most values one parameter may take (a range of 1 KiB steps over 64 MiB has 65536).
constexpr size_t kMaxValues = 65536;
constexpr double kMaxSeed = 4.6e18;  // < 2^62, exact in int64

/// What the RTL supports for each numeric parameter (as an architecture file allows).
struct Limits {
  long long lo, hi;
};
Limits limits_of(HwParam p) {
  switch (p) {
    case HwParam::Rows:
    case HwParam::Cols:
      return {2, 64};
    case HwParam::DramBw:
      return {1, 1024};
    case HwParam::Banks:
      return {0, 128};
    default:
      return {1, 64 * 1024};  // buffers, KiB
  }
}

/// The values of `{from, to, step}` at key `key`.
std::vector<long long> range_values(const YAML::Node& n, const std::string& where,
                                    const std::string& key, Limits lim) {
  check_keys(n, where, key, {"from", "to", "step"});
  const long long from = get_int_in(n, "from", where, key, 0, lim.lo, lim.hi, true);
  const long long to = get_int_in(n, "to", where, key, 0, lim.lo, lim.hi, true);
  const long long step = get_int_in(n, "step", where, key, 1, 1, lim.hi);
  if (to < from)
    throw SpecError(where, key + ".to", std::to_string(to),
                    "is below from (" + std::to_string(from) + "): an empty range");
  if ((to - from) % step != 0)
    throw SpecError(where, key + ".step", std::to_string(step),
                    "does not divide to - from (" + std::to_string(to - from) + ")");
  std::vector<long long> v;
  for (long long x = from; x <= to; x += step) v.push_back(x);
  if (v.size() > kMaxValues)
    throw SpecError(where, key, node_text(n),
                    "more than " + std::to_string(kMaxValues) + " values for one parameter");
  return v;
}

/// The values of `{pow2: [lo, hi]}` at key `key`: the powers of two from lo to hi.
std::vector<long long> pow2_values(const YAML::Node& n, const std::string& where,
                                   const std::string& key, Limits lim) {
  check_keys(n, where, key, {"pow2"});
  const YAML::Node b = n["pow2"];
  if (!b.IsSequence() || b.size() != 2)
    throw SpecError(where, key + ".pow2", node_text(b), "expected [LO, HI], two powers of two");
  const long long lo = int_of(b[0], where, key + ".pow2[0]", std::max(1LL, lim.lo), lim.hi);
  const long long hi = int_of(b[1], where, key + ".pow2[1]", std::max(1LL, lim.lo), lim.hi);
  for (const long long x : {lo, hi})
    if ((x & (x - 1)) != 0)
      throw SpecError(where, key + ".pow2", node_text(b),
                      std::to_string(x) + " is not a power of two");
  if (hi < lo) throw SpecError(where, key + ".pow2", node_text(b), "HI is below LO: empty");
  std::vector<long long> v;
  for (long long x = lo; x <= hi; x *= 2) v.push_back(x);
  return v;
}

/// A dataflow set (a list of ws/os/is, each once) as a bit mask.
long long dataflow_mask(const YAML::Node& n, const std::string& where, const std::string& key) {
  if (!n.IsSequence() || n.size() == 0)
    throw SpecError(where, key, node_text(n), "expected a non-empty list of ws, os and is");
  long long mask = 0;
  for (size_t i = 0; i < n.size(); ++i) {
    const std::string at = key + "[" + std::to_string(i) + "]";
    const std::string t = scalar_of(n[i], where, at);
    Dataflow d;
    if (!parse_dataflow(t, d))
      throw SpecError(where, at, t, std::string("must be one of ") + known_dataflows());
    const long long bit = 1LL << static_cast<int>(d);
    if (mask & bit) throw SpecError(where, key, node_text(n), "names " + t + " twice");
    mask |= bit;
  }
  return mask;
}

/// The values of parameter `p` at key `key`: a list (a set), a range or pow2 (a scalar is a
/// set of one). Duplicates are refused; the result ascends.
std::vector<long long> param_values(HwParam p, const YAML::Node& n, const std::string& where,
                                    const std::string& key) {
  std::vector<long long> v;
  if (p == HwParam::Dataflows) {
    if (!n.IsSequence() || n.size() == 0)
      throw SpecError(where, key, node_text(n), "expected a list of dataflow sets ([[ws], ...])");
    if (!n[0].IsSequence()) {
      v.push_back(dataflow_mask(n, where, key));  // one set
    } else {
      for (size_t i = 0; i < n.size(); ++i)
        v.push_back(dataflow_mask(n[i], where, key + "[" + std::to_string(i) + "]"));
    }
  } else if (n.IsMap()) {
    v = n["pow2"] ? pow2_values(n, where, key, limits_of(p))
                  : range_values(n, where, key, limits_of(p));
  } else if (n.IsSequence()) {
    if (n.size() == 0) throw SpecError(where, key, "[]", "an empty set");
    const Limits lim = limits_of(p);
    for (size_t i = 0; i < n.size(); ++i)
      v.push_back(int_of(n[i], where, key + "[" + std::to_string(i) + "]", lim.lo, lim.hi));
  } else {
    const Limits lim = limits_of(p);
    v.push_back(int_of(n, where, key, lim.lo, lim.hi));
  }
  std::vector<long long> sorted = v;
  std::sort(sorted.begin(), sorted.end());
  if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end())
    throw SpecError(where, key, node_text(n), "names a value twice");
  return sorted;
}

/// The base architecture's value of `p`.
long long base_value(const Arch& a, HwParam p) {
  switch (p) {
    case HwParam::Dataflows: {
      long long m = 0;
      for (Dataflow d : a.dataflows) m |= 1LL << static_cast<int>(d);
      return m;
    }
    case HwParam::Rows:
      return a.rows;
    case HwParam::Cols:
      return a.cols;
    case HwParam::DramBw:
      return static_cast<long long>(a.dram_bytes_per_cycle);
    case HwParam::Banks:
      return a.buffer_banks;
    case HwParam::AccumKib:
      return a.accum_buf_bytes / 1024;
    case HwParam::WeightKib:
      return a.weight_buf_bytes / 1024;
    case HwParam::InputKib:
      return a.input_buf_bytes / 1024;
  }
  return 0;
}

/// workload: a network (text), or a list of {network, weight}.
void read_workload(const YAML::Node& root, const std::string& where, CodesignSpace& s) {
  const YAML::Node w = root["workload"];
  if (!w) throw SpecError(where, "workload", "", "required key is missing");
  if (!w.IsSequence()) {
    s.workload.push_back(
        load_workload_network(where, "workload", scalar_of(w, where, "workload"), 1));
    return;
  }
  if (w.size() == 0) throw SpecError(where, "workload", "[]", "an empty workload");
  for (size_t i = 0; i < w.size(); ++i) {
    const std::string at = "workload[" + std::to_string(i) + "]";
    require_map(w[i], where, at);
    check_keys(w[i], where, at, {"network", "weight"});
    const std::string net = get_string(w[i], "network", where, at, "", true);
    const double weight = get_double_in(w[i], "weight", where, at, 1, 0, 1e6);
    if (!(weight > 0))
      throw SpecError(where, at + ".weight", node_text(w[i]["weight"]), "must be > 0");
    s.workload.push_back(load_workload_network(where, at + ".network", net, weight));
  }
}

/// constraints:, mapper:, area:, clock: and clock_model:.
void read_limits(const YAML::Node& root, const std::string& where, CodesignSpace& s) {
  read_design_constraints(root, where, s.max_area_mm2, s.max_latency_ms, s.max_energy_uj);
  if (const YAML::Node m = root["mapper"]) {
    require_map(m, where, "mapper");
    check_keys(m, where, "mapper", {"time_limit_s"});
    s.mapper_time_limit_s = get_double_in(m, "time_limit_s", where, "mapper", 60, 0.001, 1e6);
  }
  if (const YAML::Node a = root["area"]) s.area = model::area_constants_from_yaml(a, where);
  const std::string clock = get_string(root, "clock", where, "", "stated");
  if (clock != "stated" && clock != "modeled")
    throw SpecError(where, "clock", clock,
                    "must be stated (every point at the base architecture's clock_mhz) or modeled "
                    "(each point at the clock model's maximum frequency for its array, "
                    "model/clock.hpp)");
  s.modeled_clock = clock == "modeled";
  if (const YAML::Node c = root["clock_model"]) {
    if (!s.modeled_clock)
      throw SpecError(where, "clock_model", node_text(c), "needs clock: modeled");
    s.clock = model::clock_constants_from_yaml(c, where, "clock_model");
  }
}

/// parameters: every key a HwParam; the others keep the base architecture's value.
void read_parameters(const YAML::Node& root, const std::string& where, CodesignSpace& s) {
  const YAML::Node ps = root["parameters"];
  std::vector<std::string> keys;
  for (int i = 0; i < kNumHwParams; ++i) keys.push_back(hw_param_key(static_cast<HwParam>(i)));
  if (ps) {
    require_map(ps, where, "parameters");
    check_keys(ps, where, "parameters", keys);
  }
  for (int i = 0; i < kNumHwParams; ++i) {
    const HwParam p = static_cast<HwParam>(i);
    s.given[i] = ps && ps[keys[i]];
    s.values[i] = s.given[i] ? param_values(p, ps[keys[i]], where, "parameters." + keys[i])
                             : std::vector<long long>{base_value(s.base, p)};
  }
  // A bank count below max(rows, cols, DRAM bytes per cycle) of every point can never be built
  // (the RTL's rule, core/src/arch.cpp): a mistake in the file, not a point to record.
  auto smallest = [&](HwParam p) {
    const auto& v = s.values[static_cast<int>(p)];
    return *std::min_element(v.begin(), v.end());
  };
  const long long need =
      std::max({smallest(HwParam::Rows), smallest(HwParam::Cols), smallest(HwParam::DramBw)});
  const int bk = static_cast<int>(HwParam::Banks);
  for (long long b : s.values[bk])
    if (b > 0 && b < need)
      throw SpecError(where, s.given[bk] ? "parameters.banks" : "base", std::to_string(b),
                      "banks " + std::to_string(b) +
                          " can never be built: every point of the space has max(rows, cols, "
                          "dram_bytes_per_cycle) >= " +
                          std::to_string(need) + " (the RTL needs at least that many banks)");
}

}  // namespace

WorkloadNetwork load_workload_network(const std::string& where, const std::string& key,
                                      const std::string& network, double weight) {
  WorkloadNetwork w;
  w.name = network;
  w.weight = weight;
  try {
    const Network net = parse_network_arg(file_beside(where, network), where + ": " + key);
    w.layers = net.unique_layers();
  } catch (const SpecError& e) {
    throw SpecError(where, key, network, e.what());
  }
  if (w.layers.empty()) throw SpecError(where, key, network, "has no layers to map");
  return w;
}

CodesignSpace parse_codesign_space(const std::string& text, const std::string& where) {
  const YAML::Node root = load_yaml_text(text, where);
  require_map(root, where, "");
  check_keys(root, where, "",
             {"name", "description", "base", "parameters", "constraints", "workload", "objective",
              "mapper", "area", "clock", "clock_model", "seed", "buffer_energy"});
  CodesignSpace s;
  s.path = where;
  s.name = get_string(root, "name", where, "", fs::path(where).stem().string());
  get_string(root, "description", where, "", "");  // free text, but text
  s.base_name = get_string(root, "base", where, "", s.base_name);
  try {
    s.base = load_arch(file_beside(where, s.base_name));
  } catch (const SpecError& e) {
    throw SpecError(where, "base", s.base_name, e.what());
  }
  const std::string be = get_string(root, "buffer_energy", where, "", "capacity");
  if (be != "capacity" && be != "fixed")
    throw SpecError(where, "buffer_energy", be,
                    "must be capacity (per-access energy scales with each buffer's size) or "
                    "fixed (the base architecture's energies whatever the size)");
  s.base.energy.capacity_scaling = be == "capacity";
  s.objective = parse_objective(get_string(root, "objective", where, "", "edp"), where);
  s.seed = static_cast<uint64_t>(
      get_int_in(root, "seed", where, "", 1, 0, static_cast<int64_t>(kMaxSeed)));
  read_parameters(root, where, s);
  read_limits(root, where, s);
  read_workload(root, where, s);
  return s;
}

CodesignSpace load_codesign_space(const std::string& path) {
  return parse_codesign_space(read_text(path), path);
}

}  // namespace mapwright::flows
