// Regress suites: strict loading of explicit cases and generated sweeps over the zoo (every
// case checked against its architecture, layer and mapping before anything runs). Kept apart
// from regress.cpp so the fuzz target fuzz/regress_suite_fuzz.cpp can compile it with core alone.
#include <algorithm>
#include <filesystem>
#include <set>
#include <sstream>

#include "common/text.hpp"
#include "mapwright/core/dram_layout.hpp"
#include "mapwright/support/error.hpp"
#include "mapwright/frontend/layer_spec.hpp"
#include "mapwright/support/yaml_util.hpp"
#include "mapwright/frontend/zoo.hpp"
#include "mapwright/mapspace/mapspace.hpp"
#include "mapwright/flows/regress.hpp"

namespace fs = std::filesystem;
using namespace mapwright::core;

namespace mapwright::flows {

namespace {

bool valid_case_name(const std::string& s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '-' && c != '_' &&
        c != '/')
      return false;
  return true;
}

double tolerance_of(const YAML::Node& n, const std::string& where, const std::string& path,
                    double fallback) {
  if (!n) return fallback;
  check_keys(n, where, path, {"cycles_pct"});
  return get_double_in(n, "cycles_pct", where, path, fallback, 0, 100);
}

std::vector<std::string> string_list(const YAML::Node& n, const std::string& where,
                                     const std::string& key) {
  std::vector<std::string> out;
  if (!n || !n.IsSequence() || n.size() == 0)
    throw SpecError(where, key, n && n.IsNull() ? "null" : node_text(n),
                    "expected a non-empty list");
  for (size_t i = 0; i < n.size(); ++i)
    out.push_back(scalar_of(n[i], where, key + "[" + std::to_string(i) + "]"));
  return out;
}

/// A smaller layer of the same kind, filter, stride and padding (for RTL-sized sweeps).
Layer scaled(const Layer& l, int64_t max_c, int64_t max_hw, int64_t max_rows, int64_t max_g) {
  Layer s = l;
  const bool gemm_like = l.w == 1 && l.r == 1 && l.s == 1;
  if (l.kind == LayerKind::Depthwise) {
    s.g = std::min(l.g, max_c);
  } else {
    s.g = std::min(l.g, max_g);
    s.k = std::min(l.k, max_c);
    s.c = std::min(l.c, max_c);
  }
  if (gemm_like) {
    s.h = std::min(l.h, max_rows);
  } else {
    s.h = std::min(l.h, max_hw);
    s.w = std::min(l.w, max_hw);
    // Keep at least one output row/column with the same filter and stride.
    s.h = std::max(s.h, std::min(l.h, l.r));
    s.w = std::max(s.w, std::min(l.w, l.s));
  }
  return make_layer(s, "sweep");
}

std::string layer_inline(const Layer& l) {
  std::ostringstream s;
  s << l.describe();
  return s.str();
}

// Ranges: tolerance.cycles_pct 0 .. 100, seed 0 .. 2^62, scale.* 1 .. 2^24.
constexpr int64_t kMaxSeed = int64_t{1} << 62;

/// The suite's cases as they are added: refuses a bad or duplicate case name.
class CaseList {
 public:
  CaseList(RegressSuite& suite, const std::string& path) : suite_(suite), path_(path) {}
  /// Appends `c` (from the entry at `key`) to the suite's cases.
  void add(RegressCase c, const std::string& key) {
    if (!valid_case_name(c.name))
      throw SpecError(path_, key + ".name", c.name,
                      "case names use letters, digits and . - _ / only");
    if (!names_.insert(c.name).second)
      throw SpecError(path_, key + ".name", c.name, "duplicate case name");
    suite_.cases.push_back(std::move(c));
  }

 private:
  RegressSuite& suite_;          ///< Where the cases go.
  const std::string& path_;      ///< Suite file (for errors).
  std::set<std::string> names_;  ///< Names so far.
};

/// Architecture `name` of the entry at `key` (errors name the suite's key).
Arch arch_of(const std::string& name, const std::string& path, const std::string& key) {
  try {
    const Arch a = load_arch(name);
    require_rtl_dram_port(a, name);
    return a;
  } catch (const SpecError& e) {
    throw SpecError(path, key, name, e.why());
  }
}

/// The mapping of an explicit case: inline, a file beside the suite, or 'default' (greedy);
/// then its optional dataflow override.
Mapping case_mapping(const YAML::Node& n, const std::string& path, const std::string& key,
                     const Layer& layer, const Arch& arch) {
  const YAML::Node m = n["mapping"];
  const std::string where = path + ": " + key + ".mapping";
  if (!m) throw SpecError(path, key + ".mapping", "", "required key is missing");
  Mapping mapping;
  if (m.IsMap()) {
    YAML::Emitter em;
    em << m;
    mapping = mapping_from_yaml(em.c_str(), where);
  } else if (m.IsScalar() && m.Scalar() == "default") {
    mapping = default_mapping(layer, arch);
  } else if (m.IsScalar()) {
    mapping = load_mapping_file((fs::path(path).parent_path() / m.Scalar()).string());
  } else {
    throw SpecError(path, key + ".mapping", node_text(m),
                    "expected a mapping map, a file name or 'default'");
  }
  if (n["dataflow"]) {
    const std::string df = get_string(n, "dataflow", path, key, "");
    if (!parse_dataflow(df, mapping.dataflow))
      throw SpecError(path, key + ".dataflow", df,
                      std::string("expected one of ") + known_dataflows());
  }
  return mapping;
}

/// Explicit case `n` (at `key`), checked against its architecture, layer and buffers; `tol`
/// is the suite's default tolerance.
RegressCase explicit_case(const YAML::Node& n, const std::string& path, const std::string& key,
                          double tol) {
  require_map(n, path, key);
  check_keys(n, path, key,
             {"name", "arch", "layer", "mapping", "dataflow", "seed", "tolerance", "note"});
  RegressCase c;
  c.name = get_string(n, "name", path, key, "", true);
  c.arch = get_string(n, "arch", path, key, "", true);
  const Arch arch = arch_of(c.arch, path, key + ".arch");
  c.layer_text = get_string(n, "layer", path, key, "", true);
  c.layer = parse_layer_arg(c.layer_text, path + ": " + key + ".layer");
  get_string(n, "note", path, key, "");
  c.seed = static_cast<uint64_t>(get_int_in(n, "seed", path, key, 1, 0, kMaxSeed));
  c.cycles_tol_pct = tolerance_of(n["tolerance"], path, key + ".tolerance", tol);
  c.mapping = case_mapping(n, path, key, c.layer, arch);
  check_mapping(c.mapping, c.layer, arch, path + ": " + key + ".mapping");
  const Validity v = check_valid(c.layer, arch, c.mapping);
  if (!v.ok())
    throw SpecError(path, key + ".mapping", c.name,
                    (v.kind == InvalidKind::Descriptor || v.kind == InvalidKind::AccumBanks
                         ? "mapping cannot run: "
                         : "mapping does not fit: ") +
                        v.reason());
  return c;
}

/// A sweep as written: every distinct layer shape of `nets` (scaled when `scale`) on every
/// architecture and dataflow, with the greedy default mapping.
struct Sweep {
  std::string name;                ///< Prefix of its case names.
  std::vector<std::string> nets;   ///< Zoo networks.
  std::vector<std::string> archs;  ///< Architecture names or files.
  std::vector<std::string> dfs;    ///< "ws" / "os" / "is".
  bool scale = false;              ///< Layers are scaled down to the limits below.
  int64_t max_channels = 32;       ///< scale.max_channels.
  int64_t max_hw = 14;             ///< scale.max_hw.
  int64_t max_rows = 64;           ///< scale.max_rows (GEMM rows).
  int64_t max_groups = 4;          ///< scale.max_groups.
  uint64_t seed = 1;               ///< Seed of every case.
  double tol = 0;                  ///< Cycle tolerance of every case.
};

/// Sweep `n` (the i-th, at `key`); `tol` is the suite's default tolerance.
Sweep parse_sweep(const YAML::Node& n, const std::string& path, const std::string& key, size_t i,
                  double tol) {
  require_map(n, path, key);
  check_keys(n, path, key,
             {"name", "networks", "archs", "dataflows", "scale", "seed", "tolerance"});
  Sweep w;
  w.name = get_string(n, "name", path, key, "sweep" + std::to_string(i));
  if (n["networks"] && n["networks"].IsScalar() && n["networks"].Scalar() == "all")
    w.nets = zoo_names();
  else
    w.nets = string_list(n["networks"], path, key + ".networks");
  w.archs = string_list(n["archs"], path, key + ".archs");
  w.dfs = string_list(n["dataflows"], path, key + ".dataflows");
  for (const auto& d : w.dfs)
    if (Dataflow df; !parse_dataflow(d, df))
      throw SpecError(path, key + ".dataflows", d,
                      std::string("expected one of ") + known_dataflows());
  if (const YAML::Node s = n["scale"]) {
    check_keys(s, path, key + ".scale", {"max_channels", "max_hw", "max_rows", "max_groups"});
    const int64_t lim = int64_t{1} << 24;
    w.max_channels = get_int_in(s, "max_channels", path, key + ".scale", w.max_channels, 1, lim);
    w.max_hw = get_int_in(s, "max_hw", path, key + ".scale", w.max_hw, 1, lim);
    w.max_rows = get_int_in(s, "max_rows", path, key + ".scale", w.max_rows, 1, lim);
    w.max_groups = get_int_in(s, "max_groups", path, key + ".scale", w.max_groups, 1, lim);
    w.scale = true;
  }
  w.seed = static_cast<uint64_t>(get_int_in(n, "seed", path, key, 1, 0, kMaxSeed));
  w.tol = tolerance_of(n["tolerance"], path, key + ".tolerance", tol);
  return w;
}

/// Adds the cases of sweep `w` (at `key`) that fit their architecture's buffers; returns the
/// suite's note on what it generated.
std::string expand_sweep(const Sweep& w, const std::string& path, const std::string& key,
                         CaseList& cases) {
  size_t shapes = 0, generated = 0;
  for (const auto& arch_name : w.archs) {
    const Arch arch = arch_of(arch_name, path, key + ".archs");
    std::set<std::string> seen;
    for (const auto& net_name : w.nets) {
      const Network net = zoo_network(net_name, path + ": " + key + ".networks");
      for (const auto& [layer, count] : net.unique_layers()) {
        const Layer l =
            w.scale ? scaled(layer, w.max_channels, w.max_hw, w.max_rows, w.max_groups) : layer;
        if (!seen.insert(l.shape_key()).second) continue;
        ++shapes;
        for (const auto& df : w.dfs) {
          RegressCase c;
          c.name =
              w.name + "/" + arch.name + "/" + df + "/" + net.name + "/" + safe_name(layer.name);
          c.arch = arch_name;
          c.layer = l;
          c.layer.name = net.name + ":" + layer.name + (w.scale ? " (scaled)" : "");
          c.layer_text = layer_inline(c.layer);
          c.seed = w.seed;
          c.cycles_tol_pct = w.tol;
          c.mapping = default_mapping(c.layer, arch);
          parse_dataflow(df, c.mapping.dataflow);  // checked when the suite was read
          if (!check_valid(c.layer, arch, c.mapping).ok()) continue;
          ++generated;
          cases.add(std::move(c), key);
        }
      }
    }
  }
  std::ostringstream note;
  note << "sweep '" << w.name << "': " << shapes << " distinct layer shapes x dataflows -> "
       << generated << " cases";
  if (w.scale)
    note << "; layers scaled to at most " << w.max_channels << " channels, " << w.max_hw << "x"
         << w.max_hw << " inputs, " << w.max_rows << " GEMM rows, " << w.max_groups
         << " groups (kind, filter, stride and padding kept) so "
         << "the RTL runs in seconds";
  return note.str();
}

}  // namespace

RegressSuite load_regress_suite(const std::string& path) {
  const YAML::Node root = load_yaml_file(path);
  check_keys(root, path, "", {"name", "description", "tolerance", "cases", "sweeps"});
  RegressSuite suite;
  suite.path = path;
  suite.name = get_string(root, "name", path, "", fs::path(path).stem().string());
  get_string(root, "description", path, "", "");  // Free text, but it must be text.
  const fs::path p(path);
  suite.golden_path = (p.parent_path() / (p.stem().string() + ".golden.yaml")).string();
  const double tol = tolerance_of(root["tolerance"], path, "tolerance", 0);
  CaseList cases(suite, path);
  if (const YAML::Node list = root["cases"]) {
    if (!list.IsSequence())
      throw SpecError(path, "cases", node_text(list), "expected a list of cases");
    for (size_t i = 0; i < list.size(); ++i) {
      const std::string key = "cases[" + std::to_string(i) + "]";
      cases.add(explicit_case(list[i], path, key, tol), key);
    }
  }
  if (const YAML::Node sweeps = root["sweeps"]) {
    if (!sweeps.IsSequence())
      throw SpecError(path, "sweeps", node_text(sweeps), "expected a list of sweeps");
    for (size_t i = 0; i < sweeps.size(); ++i) {
      const std::string key = "sweeps[" + std::to_string(i) + "]";
      const Sweep w = parse_sweep(sweeps[i], path, key, i, tol);
      suite.notes.push_back(expand_sweep(w, path, key, cases));
    }
  }
  if (suite.cases.empty()) throw SpecError(path, "cases", "", "the suite has no cases");
  return suite;
}

}  // namespace mapwright::flows
