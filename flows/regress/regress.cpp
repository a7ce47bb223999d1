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
#include <limits>
#include <map>
#include <set>
#include <sstream>
#include <thread>

#include "common/text.hpp"
#include "common/files.hpp"
#include "mapwright/core/concurrency.hpp"
#include "mapwright/support/error.hpp"
#include "mapwright/frontend/layer_spec.hpp"
#include "mapwright/support/yaml_util.hpp"
#include "mapwright/frontend/zoo.hpp"
#include "mapwright/rtlpool/rtl_pool.hpp"
#include "mapwright/model/surrogate.hpp"
#include "verify/crosscheck.hpp"

namespace fs = std::filesystem;
using namespace mapwright::core;
using namespace mapwright::rtlpool;

namespace mapwright::flows {

// load_regress_suite lives in regress_suite.cpp (a small unit the fuzz target compiles).

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
  if (!cases.IsMap())
    throw SpecError(path, "cases", node_text(cases), "expected a map of case name to values");
  for (const auto& kv : cases) {
    const std::string name = kv.first.Scalar();  // load_yaml_file refused non-text keys.
    const YAML::Node n = kv.second;
    check_keys(n, path, "cases." + name, {"rtl_cycles", "surrogate_cycles", "counts"});
    Golden x;
    const int64_t max_count = std::numeric_limits<int64_t>::max();  // Counts: 0 .. int64 max.
    x.rtl_cycles = get_int_in(n, "rtl_cycles", path, "cases." + name, 0, 0, max_count, true);
    x.surrogate_cycles =
        get_int_in(n, "surrogate_cycles", path, "cases." + name, 0, 0, max_count, true);
    const YAML::Node c = n["counts"];
    if (!c || !c.IsMap())
      throw SpecError(path, "cases." + name + ".counts", node_text(c), "expected a map of counts");
    nlohmann::json cj = nlohmann::json::object();
    for (const auto& [k, v] : x.counts.fields()) {
      (void)v;
      cj[k] = get_int_in(c, k, path, "cases." + name + ".counts", 0, 0, max_count, true);
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
    o << "  \"" << c.name << "\":\n    rtl_cycles: " << x.rtl_cycles
      << "\n    surrogate_cycles: " << x.surrogate_cycles << "\n    counts: {";
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
  bool ran = false;                ///< RTL answered.
  RtlJobResult rtl;                ///< RTL result.
  Metrics sur;                     ///< Surrogate.
  std::vector<std::string> diffs;  ///< Readable drift lines.
  std::string kind;  ///< "" pass; "functional", "rtl", "limit", "drift", "golden", "bank".
};

std::string pct(double golden, double now) {
  if (golden == 0) return "";
  std::ostringstream s;
  s << std::showpos << std::fixed << std::setprecision(3) << 100.0 * (now - golden) / golden << "%";
  return s.str();
}

/// The cases that `filter` selects (all when empty), in suite order; none is an error.
std::vector<const RegressCase*> select_cases(const RegressSuite& suite, const std::string& filter) {
  std::vector<const RegressCase*> cases;
  for (const auto& c : suite.cases)
    if (filter.empty() || c.name.find(filter) != std::string::npos) cases.push_back(&c);
  if (cases.empty()) throw SpecError("--filter", "filter", filter, "no case of the suite matches");
  return cases;
}

/// Scores every case on the surrogate (in-process) into res[i].sur; returns the cases'
/// architectures by name or file, each loaded once.
std::map<std::string, Arch> score_on_surrogate(const std::vector<const RegressCase*>& cases,
                                               std::vector<Outcome>& res) {
  model::Surrogate surrogate;
  std::map<std::string, Arch> archs;
  for (size_t i = 0; i < cases.size(); ++i) {
    if (!archs.count(cases[i]->arch)) archs.emplace(cases[i]->arch, load_arch(cases[i]->arch));
    res[i].sur = surrogate.evaluate(cases[i]->layer, archs.at(cases[i]->arch), cases[i]->mapping);
  }
  return archs;
}

/// Runs every case on the RTL in `jobs` worker processes, submitted grouped by architecture,
/// into res[i].rtl (progress on a terminal); returns the wall-clock seconds.
double run_on_rtl(const std::vector<const RegressCase*>& cases, const RegressOptions& o,
                  const std::string& suite_name, int jobs, std::vector<Outcome>& res) {
  std::vector<size_t> order(cases.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return cases[a]->arch < cases[b]->arch; });
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
      j.limits = o.limits;
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
      if (tty)
        std::cerr << "\rregress " << suite_name << ": " << done << "/" << cases.size() << " cases"
                  << std::flush;
    }
    if (tty) std::cerr << "\r" << std::string(60, ' ') << "\r" << std::flush;
  }
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

/// Sets the failure kind of a case that did not run through (RTL over a limit, RTL failure,
/// functional mismatch, surrogate refusal), with a line saying why.
void classify_run(Outcome& x) {
  const RtlJobResult& r = x.rtl;
  if (r.over_limit()) {
    x.kind = "limit";
    x.diffs.push_back("RTL not run to the end: " + r.failure);
  } else if (!r.failure.empty()) {
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
}

/// The drift line of a cycle count outside the case's tolerance ("" within it).
std::string cycle_drift(const char* what, long long golden, long long now, double tol_pct) {
  const double err =
      golden ? 100.0 * std::abs(static_cast<double>(now - golden)) / golden : (now ? 100.0 : 0.0);
  if (!(err > tol_pct || (tol_pct == 0 && now != golden))) return "";
  std::ostringstream s;
  s << what << ": golden " << golden << ", now " << now << " (" << std::showpos << (now - golden)
    << std::noshowpos << ", " << pct(static_cast<double>(golden), static_cast<double>(now))
    << "; tolerance " << (tol_pct == 0 ? std::string("exact") : std::to_string(tol_pct) + "%")
    << ")";
  return s.str();
}

/// Adds a drift line to x.diffs for each cycle count outside the tolerance and each access
/// count (RTL or surrogate) that differs from golden `g`.
void diff_against_golden(const RegressCase& c, const Golden& g, Outcome& x) {
  const RtlJobResult& r = x.rtl;
  for (const std::string& d :
       {cycle_drift("rtl cycles", g.rtl_cycles, r.metrics.cycles, c.cycles_tol_pct),
        cycle_drift("surrogate cycles", g.surrogate_cycles, x.sur.cycles, c.cycles_tol_pct)})
    if (!d.empty()) x.diffs.push_back(d);
  const auto gf = g.counts.fields(), rf = r.metrics.counts.fields(), sf = x.sur.counts.fields();
  for (size_t k = 0; k < gf.size(); ++k) {
    if (rf[k].second != gf[k].second)
      x.diffs.push_back(std::string("rtl ") + gf[k].first + ": golden " +
                        std::to_string(gf[k].second) + ", now " + std::to_string(rf[k].second) +
                        " (exact)");
    if (sf[k].second != gf[k].second)
      x.diffs.push_back(std::string("surrogate ") + gf[k].first + ": golden " +
                        std::to_string(gf[k].second) + ", now " + std::to_string(sf[k].second) +
                        " (exact)");
  }
}

/// Banked buffers: a case whose RTL bank-stall counters differ from the surrogate's prediction
/// fails ("bank"; the goldens do not hold these counters, the prediction is exact). Returns the
/// cases that failed here and had not failed before.
size_t check_bank_stalls(const std::vector<const RegressCase*>& cases,
                         const std::map<std::string, Arch>& archs, std::vector<Outcome>& res) {
  size_t failed = 0;
  for (size_t i = 0; i < cases.size(); ++i) {
    Outcome& x = res[i];
    if (!x.rtl.ok()) continue;
    const Crosscheck check =
        crosscheck(cases[i]->layer, archs.at(cases[i]->arch), cases[i]->mapping, x.sur, x.rtl);
    for (const CountDiff& b : check.bank_stalls) {
      if (b.rtl == b.surrogate) continue;
      x.diffs.push_back("rtl " + b.name + ": " + std::to_string(b.rtl) + ", surrogate " +
                        std::to_string(b.surrogate) + " (exact)");
      if (x.kind.empty()) {
        x.kind = "bank";
        ++failed;
      }
    }
  }
  return failed;
}

/// What the comparison with the goldens found.
struct Verdicts {
  size_t failed = 0;                    ///< Cases that fail.
  size_t updated = 0;                   ///< --update: goldens recorded or changed.
  std::map<std::string, Golden> fresh;  ///< --update: the goldens to write.
};

/// Compares each case with its golden (or, with --update, records this run's values as its
/// golden) and sets its failure kind and drift lines.
Verdicts compare_with_goldens(const std::vector<const RegressCase*>& cases,
                              const std::map<std::string, Golden>& goldens, bool update,
                              std::vector<Outcome>& res) {
  Verdicts v;
  v.fresh = goldens;
  for (size_t i = 0; i < cases.size(); ++i) {
    const RegressCase& c = *cases[i];
    Outcome& x = res[i];
    classify_run(x);
    const bool usable = x.kind.empty();
    const auto it = goldens.find(c.name);
    if (update && usable) {
      Golden g;
      g.rtl_cycles = x.rtl.metrics.cycles;
      g.surrogate_cycles = x.sur.cycles;
      g.counts = x.rtl.metrics.counts;
      if (it == goldens.end() || it->second.rtl_cycles != g.rtl_cycles ||
          it->second.surrogate_cycles != g.surrogate_cycles || !(it->second.counts == g.counts))
        ++v.updated;
      v.fresh[c.name] = g;
    }
    if (it == goldens.end()) {
      if (!update) {
        if (x.kind.empty()) x.kind = "golden";
        x.diffs.push_back("no golden value for this case (run with --update to record one)");
      }
    } else if (usable) {
      diff_against_golden(c, it->second, x);
      if (!x.diffs.empty() && !update) x.kind = "drift";
      if (update) x.diffs.clear();
    }
    if (!x.kind.empty()) ++v.failed;
  }
  return v;
}

/// The report's heading and one PASS/FAIL line per case, with its drift lines.
void print_case_results(const RegressSuite& suite, const std::vector<const RegressCase*>& cases,
                        const std::vector<Outcome>& res, const std::map<std::string, Arch>& archs,
                        int jobs, double wall, std::ostream& out) {
  out << "regress " << suite.name << ": " << cases.size() << " cases on " << archs.size()
      << " architecture(s), " << jobs << " worker processes, " << std::fixed << std::setprecision(1)
      << wall << " s" << std::defaultfloat << "\n";
  for (size_t i = 0; i < cases.size(); ++i) {
    const RegressCase& c = *cases[i];
    const Outcome& x = res[i];
    out << (x.kind.empty() ? "PASS  " : "FAIL  ") << c.name << "  [" << archs.at(c.arch).name
        << ", " << dataflow_name(c.mapping.dataflow) << "]";
    if (x.rtl.failure.empty() && x.ran)
      out << "  rtl " << x.rtl.metrics.cycles << " cycles, surrogate " << x.sur.cycles;
    out << "\n";
    for (const auto& d : x.diffs) out << "        " << d << "\n";
    if (!x.kind.empty() && x.kind != "golden")
      out << "        layer " << c.layer.describe() << ", seed " << c.seed << "\n";
  }
}

/// One <testcase> of the JUnit XML: its failure (when failed) and its numbers and mapping.
void write_junit_case(const RegressSuite& suite, const RegressCase& c, const Outcome& x,
                      const Arch& arch, std::ostream& j) {
  j << "    <testcase classname=\"regress." << html_escape(suite.name) << "."
    << html_escape(arch.name) << "\" name=\"" << html_escape(c.name) << "\" time=\""
    << x.rtl.sim_seconds << "\">\n";
  if (!x.kind.empty()) {
    std::string text;
    for (const auto& d : x.diffs) text += d + "\n";
    text += "layer " + c.layer.describe() + ", arch " + arch.name + ", seed " +
            std::to_string(c.seed) + "\n";
    j << "      <failure type=\"" << x.kind << "\" message=\""
      << html_escape(x.diffs.empty() ? x.kind : x.diffs[0]) << "\">" << html_escape(text)
      << "</failure>\n";
  }
  j << "      <system-out>"
    << html_escape("rtl cycles " + std::to_string(x.rtl.metrics.cycles) + ", surrogate cycles " +
                   std::to_string(x.sur.cycles) + ", mapping:\n" + mapping_to_yaml(c.mapping))
    << "</system-out>\n    </testcase>\n";
}

/// Writes the JUnit XML of the run to `path`.
void write_junit(const std::string& path, const RegressSuite& suite,
                 const std::vector<const RegressCase*>& cases, const std::vector<Outcome>& res,
                 const std::map<std::string, Arch>& archs, size_t failed, double wall) {
  std::ostringstream j;
  j << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"mapwright regress\" "
       "tests=\""
    << cases.size() << "\" failures=\"" << failed << "\" errors=\"0\" time=\"" << wall << "\">\n"
    << "  <testsuite name=\"" << html_escape(suite.name) << "\" tests=\"" << cases.size()
    << "\" failures=\"" << failed << "\" errors=\"0\" skipped=\"0\" time=\"" << wall
    << "\" timestamp=\"" << now_iso() << "\">\n";
  for (size_t i = 0; i < cases.size(); ++i)
    write_junit_case(suite, *cases[i], res[i], archs.at(cases[i]->arch), j);
  j << "  </testsuite>\n</testsuites>\n";
  write_atomic(path, j.str());
}

}  // namespace

int cmd_regress(const RegressOptions& o, std::ostream& out) {
  check_sim_limits(o.limits);
  const RegressSuite suite = load_regress_suite(o.suite);
  const std::map<std::string, Golden> goldens = load_goldens(suite.golden_path);
  const std::vector<const RegressCase*> cases = select_cases(suite, o.filter);
  for (const auto& n : suite.notes) out << "note: " << n << "\n";

  // Surrogate in-process; RTL in workers, submitted grouped by architecture.
  std::vector<Outcome> res(cases.size());
  const std::map<std::string, Arch> archs = score_on_surrogate(cases, res);
  const int jobs = o.jobs > 0 ? o.jobs : default_jobs();
  const double wall = run_on_rtl(cases, o, suite.name, jobs, res);
  Verdicts v = compare_with_goldens(cases, goldens, o.update, res);
  v.failed += check_bank_stalls(cases, archs, res);

  print_case_results(suite, cases, res, archs, jobs, wall, out);
  if (o.update) {
    write_goldens(suite, v.fresh);
    out << "goldens: " << v.updated << " case(s) recorded or changed in " << suite.golden_path
        << "\n";
  }
  out << (v.failed ? "FAILED: " : "OK: ") << (cases.size() - v.failed) << " of " << cases.size()
      << " cases pass\n";
  if (!o.junit.empty()) {
    write_junit(o.junit, suite, cases, res, archs, v.failed, wall);
    out << "JUnit XML: " << o.junit << "\n";
  }
  return v.failed ? 1 : 0;
}

}  // namespace mapwright::flows
