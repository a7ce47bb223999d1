// `mapwright regress`: loads a suite (explicit cases and generated sweeps over the zoo), runs
// every case on the RTL in worker processes grouped by architecture and on the surrogate,
// compares functional results, cycles and access counts with the goldens beside the suite,
// prints a readable diff of any drift, writes JUnit XML, and rewrites goldens on --update.
#include "mapwright/flows/regress.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <thread>

#include "flows_util.hpp"
#include "mapwright/core/error.hpp"
#include "mapwright/core/layer_spec.hpp"
#include "mapwright/core/yaml_util.hpp"
#include "mapwright/core/zoo.hpp"
#include "mapwright/flows/rtl_workers.hpp"
#include "mapwright/model/surrogate.hpp"

namespace fs = std::filesystem;
using namespace mapwright::core;

namespace mapwright::flows {

namespace {

bool valid_case_name(const std::string& s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '-' && c != '_' && c != '/')
      return false;
  return true;
}

double tolerance_of(const YAML::Node& n, const std::string& where, const std::string& path, double fallback) {
  if (!n) return fallback;
  check_keys(n, where, path, {"cycles_pct"});
  const double t = get_double(n, "cycles_pct", where, path, fallback);
  if (!(t >= 0) || t > 100) throw SpecError(where, join_key(path, "cycles_pct"), std::to_string(t), "must be between 0 and 100");
  return t;
}

std::vector<std::string> string_list(const YAML::Node& n, const std::string& where, const std::string& key) {
  std::vector<std::string> out;
  if (!n || !n.IsSequence() || n.size() == 0) throw SpecError(where, key, node_text(n), "expected a non-empty list");
  for (size_t i = 0; i < n.size(); ++i) {
    if (!n[i].IsScalar()) throw SpecError(where, key + "[" + std::to_string(i) + "]", node_text(n[i]), "expected a name");
    out.push_back(n[i].Scalar());
  }
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
  const fs::path p(path);
  suite.golden_path = (p.parent_path() / (p.stem().string() + ".golden.yaml")).string();
  const double tol = tolerance_of(root["tolerance"], path, "tolerance", 0);
  std::set<std::string> names;
  auto add = [&](RegressCase c, const std::string& key) {
    if (!valid_case_name(c.name))
      throw SpecError(path, key + ".name", c.name, "case names use letters, digits and . - _ / only");
    if (!names.insert(c.name).second) throw SpecError(path, key + ".name", c.name, "duplicate case name");
    suite.cases.push_back(std::move(c));
  };
  if (const YAML::Node cases = root["cases"]) {
    if (!cases.IsSequence()) throw SpecError(path, "cases", node_text(cases), "expected a list of cases");
    for (size_t i = 0; i < cases.size(); ++i) {
      const std::string key = "cases[" + std::to_string(i) + "]";
      const YAML::Node n = cases[i];
      require_map(n, path, key);
      check_keys(n, path, key, {"name", "arch", "layer", "mapping", "dataflow", "seed", "tolerance", "note"});
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
      c.seed = static_cast<uint64_t>(get_int(n, "seed", path, key, 1));
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
        throw SpecError(path, key + ".mapping", node_text(m), "expected a mapping map, a file name or 'default'");
      }
      if (n["dataflow"]) {
        const std::string df = get_string(n, "dataflow", path, key, "");
        if (df != "ws" && df != "os") throw SpecError(path, key + ".dataflow", df, "expected ws or os");
        c.mapping.dataflow = df == "ws" ? Dataflow::WS : Dataflow::OS;
      }
      check_mapping(c.mapping, c.layer, arch, where);
      const Validity v = check_capacity(c.layer, arch, c.mapping);
      if (!v.ok()) throw SpecError(path, key + ".mapping", c.name, "mapping does not fit: " + v.reason());
      add(std::move(c), key);
    }
  }
  if (const YAML::Node sweeps = root["sweeps"]) {
    if (!sweeps.IsSequence()) throw SpecError(path, "sweeps", node_text(sweeps), "expected a list of sweeps");
    for (size_t i = 0; i < sweeps.size(); ++i) {
      const std::string key = "sweeps[" + std::to_string(i) + "]";
      const YAML::Node n = sweeps[i];
      require_map(n, path, key);
      check_keys(n, path, key, {"name", "networks", "archs", "dataflows", "scale", "seed", "tolerance"});
      const std::string sname = get_string(n, "name", path, key, "sweep" + std::to_string(i));
      std::vector<std::string> nets;
      if (n["networks"] && n["networks"].IsScalar() && n["networks"].Scalar() == "all") nets = zoo_names();
      else nets = string_list(n["networks"], path, key + ".networks");
      const auto archs = string_list(n["archs"], path, key + ".archs");
      const auto dfs = string_list(n["dataflows"], path, key + ".dataflows");
      for (const auto& d : dfs)
        if (d != "ws" && d != "os") throw SpecError(path, key + ".dataflows", d, "expected ws or os");
      int64_t mc = 32, mhw = 14, mrows = 64, mg = 4;
      bool scale = false;
      if (const YAML::Node s = n["scale"]) {
        check_keys(s, path, key + ".scale", {"max_channels", "max_hw", "max_rows", "max_groups"});
        mc = get_int(s, "max_channels", path, key + ".scale", mc);
        mhw = get_int(s, "max_hw", path, key + ".scale", mhw);
        mrows = get_int(s, "max_rows", path, key + ".scale", mrows);
        mg = get_int(s, "max_groups", path, key + ".scale", mg);
        if (mc < 1 || mhw < 1 || mrows < 1 || mg < 1)
          throw SpecError(path, key + ".scale", node_text(s), "every limit must be >= 1");
        scale = true;
      }
      const uint64_t seed = static_cast<uint64_t>(get_int(n, "seed", path, key, 1));
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
              c.name = sname + "/" + arch.name + "/" + df + "/" + net.name + "/" + safe_name(layer.name);
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
      note << "sweep '" << sname << "': " << shapes << " distinct layer shapes x dataflows -> " << generated
           << " cases";
      if (scale)
        note << "; layers scaled to at most " << mc << " channels, " << mhw << "x" << mhw << " inputs, "
             << mrows << " GEMM rows, " << mg << " groups (kind, filter, stride and padding kept) so "
             << "the RTL runs in seconds";
      suite.notes.push_back(note.str());
    }
  }
  if (suite.cases.empty()) throw SpecError(path, "cases", "", "the suite has no cases");
  return suite;
}

namespace {

struct Golden {
  long long rtl_cycles = 0;
  long long surrogate_cycles = 0;
  AccessCounts counts;
};

std::map<std::string, Golden> load_goldens(const std::string& path) {
  std::map<std::string, Golden> g;
  if (!fs::exists(path)) return g;
  const YAML::Node root = load_yaml_file(path);
  check_keys(root, path, "", {"suite", "cases"});
  const YAML::Node cases = root["cases"];
  if (!cases) return g;
  if (!cases.IsMap()) throw SpecError(path, "cases", node_text(cases), "expected a map of case name to values");
  for (const auto& kv : cases) {
    const std::string name = kv.first.as<std::string>();
    const YAML::Node n = kv.second;
    check_keys(n, path, "cases." + name, {"rtl_cycles", "surrogate_cycles", "counts"});
    Golden x;
    x.rtl_cycles = get_int(n, "rtl_cycles", path, "cases." + name, 0, true);
    x.surrogate_cycles = get_int(n, "surrogate_cycles", path, "cases." + name, 0, true);
    const YAML::Node c = n["counts"];
    if (!c || !c.IsMap()) throw SpecError(path, "cases." + name + ".counts", node_text(c), "expected a map of counts");
    nlohmann::json cj = nlohmann::json::object();
    for (const auto& [k, v] : x.counts.fields()) {
      (void)v;
      cj[k] = get_int(c, k, path, "cases." + name + ".counts", 0, true);
    }
    x.counts = counts_from_json(cj);
    g[name] = x;
  }
  return g;
}

void write_goldens(const RegressSuite& s, const std::map<std::string, Golden>& g) {
  std::ostringstream o;
  o << "# Golden values of " << fs::path(s.path).filename().string()
    << ": RTL cycles, surrogate cycles and every access count per case.\n"
    << "# Written by `mapwright regress --suite ... --update`; do not edit by hand.\n"
    << "suite: " << s.name << "\ncases:\n";
  for (const auto& c : s.cases) {
    auto it = g.find(c.name);
    if (it == g.end()) continue;
    const Golden& x = it->second;
    o << "  \"" << c.name << "\":\n    rtl_cycles: " << x.rtl_cycles << "\n    surrogate_cycles: "
      << x.surrogate_cycles << "\n    counts: {";
    bool first = true;
    for (const auto& [k, v] : x.counts.fields()) {
      o << (first ? "" : ", ") << k << ": " << v;
      first = false;
    }
    o << "}\n";
  }
  write_atomic(s.golden_path, o.str());
}

struct Outcome {
  bool ran = false;                 ///< RTL answered.
  RtlJobResult rtl;                 ///< RTL result.
  Metrics sur;                      ///< Surrogate.
  std::vector<std::string> diffs;   ///< Readable drift lines.
  std::string kind;                 ///< "" pass; "functional", "rtl", "drift", "golden".
};

std::string pct(double golden, double now) {
  if (golden == 0) return "";
  std::ostringstream s;
  s << std::showpos << std::fixed << std::setprecision(3) << 100.0 * (now - golden) / golden << "%";
  return s.str();
}

}  // namespace

int cmd_regress(const RegressOptions& o, std::ostream& out) {
  const RegressSuite suite = load_regress_suite(o.suite);
  std::map<std::string, Golden> goldens = load_goldens(suite.golden_path);
  std::vector<const RegressCase*> cases;
  for (const auto& c : suite.cases)
    if (o.filter.empty() || c.name.find(o.filter) != std::string::npos) cases.push_back(&c);
  if (cases.empty()) throw SpecError("--filter", "filter", o.filter, "no case of the suite matches");
  for (const auto& n : suite.notes) out << "note: " << n << "\n";

  // Surrogate in-process; RTL in workers, submitted grouped by architecture.
  model::Surrogate surrogate;
  std::vector<Outcome> res(cases.size());
  std::map<std::string, Arch> archs;
  for (size_t i = 0; i < cases.size(); ++i) {
    if (!archs.count(cases[i]->arch)) archs.emplace(cases[i]->arch, load_arch(cases[i]->arch));
    res[i].sur = surrogate.evaluate(cases[i]->layer, archs.at(cases[i]->arch), cases[i]->mapping);
  }
  std::vector<size_t> order(cases.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return cases[a]->arch < cases[b]->arch; });
  const int jobs = o.jobs > 0 ? o.jobs : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  const auto t0 = std::chrono::steady_clock::now();
  {
    RtlWorkerPool pool(o.worker_exe.empty() ? worker_executable() : o.worker_exe, jobs);
    std::map<size_t, size_t> case_of;
    for (size_t i : order) {
      RtlJob j;
      j.arch = cases[i]->arch;
      j.layer = cases[i]->layer;
      j.mapping = cases[i]->mapping;
      j.seed = cases[i]->seed;
      case_of[pool.submit(std::move(j))] = i;
    }
    const bool tty = o.progress && isatty(STDERR_FILENO);
    size_t done = 0;
    while (pool.running() + pool.queued() > 0) {
      for (auto& [id, r] : pool.poll(500)) {
        res[case_of.at(id)].rtl = std::move(r);
        res[case_of.at(id)].ran = true;
        ++done;
      }
      if (tty) std::cerr << "\rregress " << suite.name << ": " << done << "/" << cases.size() << " cases" << std::flush;
    }
    if (tty) std::cerr << "\r" << std::string(60, ' ') << "\r" << std::flush;
  }
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  // Compare.
  size_t failed = 0;
  std::map<std::string, Golden> fresh = goldens;
  size_t updated = 0;
  for (size_t i = 0; i < cases.size(); ++i) {
    const RegressCase& c = *cases[i];
    Outcome& x = res[i];
    const RtlJobResult& r = x.rtl;
    if (!r.failure.empty()) {
      x.kind = "rtl";
      x.diffs.push_back("RTL failure: " + r.failure);
    } else if (!r.functional_ok) {
      x.kind = "functional";
      x.diffs.push_back("functional MISMATCH: " + std::to_string(r.mismatches) +
                        " output bytes differ from the C++ reference");
    }
    if (!x.sur.valid) {
      x.kind = x.kind.empty() ? "surrogate" : x.kind;
      x.diffs.push_back("surrogate: invalid mapping: " + x.sur.reason);
    }
    const bool usable = x.kind.empty();
    if (o.update && usable) {
      Golden g;
      g.rtl_cycles = r.metrics.cycles;
      g.surrogate_cycles = x.sur.cycles;
      g.counts = r.metrics.counts;
      const auto it = goldens.find(c.name);
      if (it == goldens.end() || it->second.rtl_cycles != g.rtl_cycles ||
          it->second.surrogate_cycles != g.surrogate_cycles || !(it->second.counts == g.counts))
        ++updated;
      fresh[c.name] = g;
    }
    const auto it = goldens.find(c.name);
    if (it == goldens.end()) {
      if (!o.update) {
        if (x.kind.empty()) x.kind = "golden";
        x.diffs.push_back("no golden value for this case (run with --update to record one)");
      }
    } else if (usable) {
      const Golden& g = it->second;
      auto cyc = [&](const char* what, long long golden, long long now) {
        const double err = golden ? 100.0 * std::abs(static_cast<double>(now - golden)) / golden : (now ? 100.0 : 0.0);
        if (err > c.cycles_tol_pct || (c.cycles_tol_pct == 0 && now != golden)) {
          std::ostringstream s;
          s << what << ": golden " << golden << ", now " << now << " (" << std::showpos << (now - golden)
            << std::noshowpos << ", " << pct(static_cast<double>(golden), static_cast<double>(now))
            << "; tolerance " << (c.cycles_tol_pct == 0 ? std::string("exact") : std::to_string(c.cycles_tol_pct) + "%") << ")";
          x.diffs.push_back(s.str());
        }
      };
      cyc("rtl cycles", g.rtl_cycles, r.metrics.cycles);
      cyc("surrogate cycles", g.surrogate_cycles, x.sur.cycles);
      const auto gf = g.counts.fields(), rf = r.metrics.counts.fields(), sf = x.sur.counts.fields();
      for (size_t k = 0; k < gf.size(); ++k) {
        if (rf[k].second != gf[k].second)
          x.diffs.push_back(std::string("rtl ") + gf[k].first + ": golden " + std::to_string(gf[k].second) +
                            ", now " + std::to_string(rf[k].second) + " (exact)");
        if (sf[k].second != gf[k].second)
          x.diffs.push_back(std::string("surrogate ") + gf[k].first + ": golden " + std::to_string(gf[k].second) +
                            ", now " + std::to_string(sf[k].second) + " (exact)");
      }
      if (!x.diffs.empty() && !o.update) x.kind = "drift";
      if (o.update) x.diffs.clear();
    }
    if (!x.kind.empty()) ++failed;
  }

  // Report.
  out << "regress " << suite.name << ": " << cases.size() << " cases on "
      << archs.size() << " architecture(s), " << jobs << " worker processes, " << std::fixed
      << std::setprecision(1) << wall << " s" << std::defaultfloat << "\n";
  for (size_t i = 0; i < cases.size(); ++i) {
    const RegressCase& c = *cases[i];
    const Outcome& x = res[i];
    out << (x.kind.empty() ? "PASS  " : "FAIL  ") << c.name << "  [" << archs.at(c.arch).name << ", "
        << dataflow_name(c.mapping.dataflow) << "]";
    if (x.rtl.failure.empty() && x.ran) out << "  rtl " << x.rtl.metrics.cycles << " cycles, surrogate " << x.sur.cycles;
    out << "\n";
    for (const auto& d : x.diffs) out << "        " << d << "\n";
    if (!x.kind.empty() && x.kind != "golden")
      out << "        layer " << c.layer.describe() << ", seed " << c.seed << "\n";
  }
  if (o.update) {
    write_goldens(suite, fresh);
    out << "goldens: " << updated << " case(s) recorded or changed in " << suite.golden_path << "\n";
  }
  out << (failed ? "FAILED: " : "OK: ") << (cases.size() - failed) << " of " << cases.size() << " cases pass\n";

  if (!o.junit.empty()) {
    std::ostringstream j;
    j << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"mapwright regress\" tests=\""
      << cases.size() << "\" failures=\"" << failed << "\" errors=\"0\" time=\"" << wall << "\">\n"
      << "  <testsuite name=\"" << html_escape(suite.name) << "\" tests=\"" << cases.size() << "\" failures=\""
      << failed << "\" errors=\"0\" skipped=\"0\" time=\"" << wall << "\" timestamp=\"" << now_iso() << "\">\n";
    for (size_t i = 0; i < cases.size(); ++i) {
      const RegressCase& c = *cases[i];
      const Outcome& x = res[i];
      j << "    <testcase classname=\"regress." << html_escape(suite.name) << "." << html_escape(archs.at(c.arch).name)
        << "\" name=\"" << html_escape(c.name) << "\" time=\"" << x.rtl.sim_seconds << "\">\n";
      if (!x.kind.empty()) {
        std::string text;
        for (const auto& d : x.diffs) text += d + "\n";
        text += "layer " + c.layer.describe() + ", arch " + archs.at(c.arch).name + ", seed " + std::to_string(c.seed) + "\n";
        j << "      <failure type=\"" << x.kind << "\" message=\"" << html_escape(x.diffs.empty() ? x.kind : x.diffs[0])
          << "\">" << html_escape(text) << "</failure>\n";
      }
      j << "      <system-out>" << html_escape("rtl cycles " + std::to_string(x.rtl.metrics.cycles) +
                                              ", surrogate cycles " + std::to_string(x.sur.cycles) +
                                              ", mapping:\n" + mapping_to_yaml(c.mapping))
        << "</system-out>\n    </testcase>\n";
    }
    j << "  </testsuite>\n</testsuites>\n";
    write_atomic(o.junit, j.str());
    out << "JUnit XML: " << o.junit << "\n";
  }
  return failed ? 1 : 0;
}

}  // namespace mapwright::flows
