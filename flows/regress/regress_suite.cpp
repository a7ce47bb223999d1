// Regress suites: strict loading of explicit cases and generated sweeps over the zoo (every
// case checked against its architecture, layer and mapping before anything runs). Kept apart
// from regress.cpp so the fuzz target fuzz/regress_suite_fuzz.cpp can compile it with core alone.
#include <algorithm>
#include <filesystem>
#include <set>
#include <sstream>

#include "common/text.hpp"
#include "mapwright/core/error.hpp"
#include "mapwright/core/layer_spec.hpp"
#include "mapwright/core/yaml_util.hpp"
#include "mapwright/core/zoo.hpp"
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

}  // namespace

RegressSuite load_regress_suite(const std::string& path) {
  const YAML::Node root = load_yaml_file(path);
  check_keys(root, path, "", {"name", "description", "tolerance", "cases", "sweeps"});
  RegressSuite suite;
  suite.path = path;
  suite.name = get_string(root, "name", path, "", fs::path(path).stem().string());
  get_string(root, "description", path, "", "");  // Free text, but it must be text.
  // Ranges: tolerance.cycles_pct 0 .. 100, seed 0 .. 2^62, scale.* 1 .. 2^24.
  constexpr int64_t kMaxSeed = int64_t{1} << 62;
  const fs::path p(path);
  suite.golden_path = (p.parent_path() / (p.stem().string() + ".golden.yaml")).string();
  const double tol = tolerance_of(root["tolerance"], path, "tolerance", 0);
  std::set<std::string> names;
  auto add = [&](RegressCase c, const std::string& key) {
    if (!valid_case_name(c.name))
      throw SpecError(path, key + ".name", c.name,
                      "case names use letters, digits and . - _ / only");
    if (!names.insert(c.name).second)
      throw SpecError(path, key + ".name", c.name, "duplicate case name");
    suite.cases.push_back(std::move(c));
  };
  if (const YAML::Node cases = root["cases"]) {
    if (!cases.IsSequence())
      throw SpecError(path, "cases", node_text(cases), "expected a list of cases");
    for (size_t i = 0; i < cases.size(); ++i) {
      const std::string key = "cases[" + std::to_string(i) + "]";
      const YAML::Node n = cases[i];
      require_map(n, path, key);
      check_keys(n, path, key,
                 {"name", "arch", "layer", "mapping", "dataflow", "seed", "tolerance", "note"});
      RegressCase c;
      c.name = get_string(n, "name", path, key, "", true);
      c.arch = get_string(n, "arch", path, key, "", true);
      Arch arch;
      try {
        arch = load_arch(c.arch);
      } catch (const SpecError& e) {
        throw SpecError(path, key + ".arch", c.arch, e.why());
      }
      c.layer_text = get_string(n, "layer", path, key, "", true);
      c.layer = parse_layer_arg(c.layer_text, path + ": " + key + ".layer");
      get_string(n, "note", path, key, "");
      c.seed = static_cast<uint64_t>(get_int_in(n, "seed", path, key, 1, 0, kMaxSeed));
      c.cycles_tol_pct = tolerance_of(n["tolerance"], path, key + ".tolerance", tol);
      const YAML::Node m = n["mapping"];
      const std::string where = path + ": " + key + ".mapping";
      if (!m) throw SpecError(path, key + ".mapping", "", "required key is missing");
      if (m.IsMap()) {
        YAML::Emitter em;
        em << m;
        c.mapping = mapping_from_yaml(em.c_str(), where);
      } else if (m.IsScalar() && m.Scalar() == "default") {
        c.mapping = default_mapping(c.layer, arch);
      } else if (m.IsScalar()) {
        c.mapping = load_mapping_file((p.parent_path() / m.Scalar()).string());
      } else {
        throw SpecError(path, key + ".mapping", node_text(m),
                        "expected a mapping map, a file name or 'default'");
      }
      if (n["dataflow"]) {
        const std::string df = get_string(n, "dataflow", path, key, "");
        if (df != "ws" && df != "os")
          throw SpecError(path, key + ".dataflow", df, "expected ws or os");
        c.mapping.dataflow = df == "ws" ? Dataflow::WS : Dataflow::OS;
      }
      check_mapping(c.mapping, c.layer, arch, where);
      const Validity v = check_capacity(c.layer, arch, c.mapping);
      if (!v.ok())
        throw SpecError(path, key + ".mapping", c.name, "mapping does not fit: " + v.reason());
      add(std::move(c), key);
    }
  }
  if (const YAML::Node sweeps = root["sweeps"]) {
    if (!sweeps.IsSequence())
      throw SpecError(path, "sweeps", node_text(sweeps), "expected a list of sweeps");
    for (size_t i = 0; i < sweeps.size(); ++i) {
      const std::string key = "sweeps[" + std::to_string(i) + "]";
      const YAML::Node n = sweeps[i];
      require_map(n, path, key);
      check_keys(n, path, key,
                 {"name", "networks", "archs", "dataflows", "scale", "seed", "tolerance"});
      const std::string sname = get_string(n, "name", path, key, "sweep" + std::to_string(i));
      std::vector<std::string> nets;
      if (n["networks"] && n["networks"].IsScalar() && n["networks"].Scalar() == "all")
        nets = zoo_names();
      else
        nets = string_list(n["networks"], path, key + ".networks");
      const auto archs = string_list(n["archs"], path, key + ".archs");
      const auto dfs = string_list(n["dataflows"], path, key + ".dataflows");
      for (const auto& d : dfs)
        if (d != "ws" && d != "os")
          throw SpecError(path, key + ".dataflows", d, "expected ws or os");
      int64_t mc = 32, mhw = 14, mrows = 64, mg = 4;
      bool scale = false;
      if (const YAML::Node s = n["scale"]) {
        check_keys(s, path, key + ".scale", {"max_channels", "max_hw", "max_rows", "max_groups"});
        const int64_t lim = int64_t{1} << 24;
        mc = get_int_in(s, "max_channels", path, key + ".scale", mc, 1, lim);
        mhw = get_int_in(s, "max_hw", path, key + ".scale", mhw, 1, lim);
        mrows = get_int_in(s, "max_rows", path, key + ".scale", mrows, 1, lim);
        mg = get_int_in(s, "max_groups", path, key + ".scale", mg, 1, lim);
        scale = true;
      }
      const uint64_t seed = static_cast<uint64_t>(get_int_in(n, "seed", path, key, 1, 0, kMaxSeed));
      const double stol = tolerance_of(n["tolerance"], path, key + ".tolerance", tol);
      size_t shapes = 0, generated = 0;
      for (const auto& arch_name : archs) {
        Arch arch;
        try {
          arch = load_arch(arch_name);
        } catch (const SpecError& e) {
          throw SpecError(path, key + ".archs", arch_name, e.why());
        }
        std::set<std::string> seen;
        for (const auto& net_name : nets) {
          const Network net = zoo_network(net_name, path + ": " + key + ".networks");
          for (const auto& [layer, count] : net.unique_layers()) {
            const Layer l = scale ? scaled(layer, mc, mhw, mrows, mg) : layer;
            if (!seen.insert(l.shape_key()).second) continue;
            ++shapes;
            for (const auto& df : dfs) {
              RegressCase c;
              c.name =
                  sname + "/" + arch.name + "/" + df + "/" + net.name + "/" + safe_name(layer.name);
              c.arch = arch_name;
              c.layer = l;
              c.layer.name = net.name + ":" + layer.name + (scale ? " (scaled)" : "");
              c.layer_text = layer_inline(c.layer);
              c.seed = seed;
              c.cycles_tol_pct = stol;
              c.mapping = default_mapping(c.layer, arch);
              c.mapping.dataflow = df == "ws" ? Dataflow::WS : Dataflow::OS;
              if (!check_capacity(c.layer, arch, c.mapping).ok()) continue;
              ++generated;
              add(std::move(c), key);
            }
          }
        }
      }
      std::ostringstream note;
      note << "sweep '" << sname << "': " << shapes << " distinct layer shapes x dataflows -> "
           << generated << " cases";
      if (scale)
        note << "; layers scaled to at most " << mc << " channels, " << mhw << "x" << mhw
             << " inputs, " << mrows << " GEMM rows, " << mg
             << " groups (kind, filter, stride and padding kept) so "
             << "the RTL runs in seconds";
      suite.notes.push_back(note.str());
    }
  }
  if (suite.cases.empty()) throw SpecError(path, "cases", "", "the suite has no cases");
  return suite;
}

}  // namespace mapwright::flows
