// The run's outputs for people (run_output.hpp): the CSVs of the layers and of the RTL
// verifications (numbers in results.json's text) and the summary table.
#include "run/run_output.hpp"

#include <algorithm>
#include <iomanip>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "common/files.hpp"
#include "common/clock_text.hpp"
#include "common/text.hpp"
#include "mapwright/flows/synth.hpp"

namespace mapwright::flows {

namespace {

/// A value as results.json writes it (the CSVs use the same text).
template <typename T>
std::string as_json(const T& v) {
  return nlohmann::json(v).dump();
}

/// A layer's RTL checks: verified candidates and those that passed.
std::pair<int, int> checks_of(const LayerRecord& L) {
  int verified = 0, passed = 0;
  for (const auto& c : L.candidates)
    if (c.verification) {
      ++verified;
      passed += c.verification->passed;
    }
  return {verified, passed};
}

/// One layer's line of the summary table.
void print_layer_line(const LayerRecord& L, bool rtl, size_t width, std::ostream& out) {
  out << std::left << std::setw(static_cast<int>(width)) << fit_name(L.layer.name, width - 1)
      << std::right << std::setw(6) << L.count;
  if (!L.best) {
    out << "  "
        << (L.status == LayerStatus::Pending    ? "not searched"
            : L.status == LayerStatus::Searched ? "RTL pending"
                                                : "no valid mapping")
        << "\n";
    return;
  }
  const auto [ver, pass] = checks_of(L);
  out << std::setw(14) << L.best->cycles << std::setw(12) << std::fixed << std::setprecision(2)
      << L.best->energy_pj * 1e-6 << std::setw(8) << std::setprecision(1)
      << 100 * L.best->utilization << std::defaultfloat << "  "
      << chosen_by_name(L.best->chosen_by);
  if (rtl) out << ", " << pass << "/" << ver << " passed" << (pass < ver ? "  FAILED" : "");
  out << "\n";
}

}  // namespace

void write_run_csvs(const RunRecord& rec, const std::filesystem::path& dir) {
  std::ostringstream c;
  c << "index,name,count,status,chosen_by,cycles,energy_pj,edp,utilization,surrogate_cycles,"
       "candidates,verified,passed\n";
  for (const auto& L : rec.layers) {
    const auto [ver, pass] = checks_of(L);
    c << L.index << "," << L.layer.name << "," << L.count << "," << layer_status_name(L.status)
      << ",";
    if (L.best)
      c << chosen_by_name(L.best->chosen_by) << "," << L.best->cycles << ","
        << as_json(L.best->energy_pj) << "," << as_json(L.best->edp) << ","
        << as_json(L.best->utilization) << ","
        << (L.candidates.empty() ? std::string("null") : as_json(L.candidates[0].surrogate.cycles));
    else
      c << ",,,,,";
    c << "," << L.candidates.size() << "," << ver << "," << pass << "\n";
  }
  write_atomic(dir / "layers.csv", c.str());
  std::ostringstream v;
  v << "layer,rank,seed,surrogate_cost,surrogate_cycles,refined_cycles,rtl_cycles,cycle_error_pct,"
       "functional_ok,counts_equal,passed,failure,harness,sim_seconds\n";
  for (const auto& L : rec.layers)
    for (const auto& cd : L.candidates) {
      if (!cd.verification) continue;
      const Verification& x = *cd.verification;
      std::string fail = x.failure;
      std::replace(fail.begin(), fail.end(), '"', '\'');
      v << L.layer.name << "," << cd.rank << "," << x.seed << "," << as_json(cd.cost) << ","
        << cd.surrogate.cycles << ","
        << (cd.refined_cycles > 0 ? as_json(cd.refined_cycles) : std::string()) << ","
        << (x.rtl ? as_json(x.rtl->cycles) : "") << "," << (x.rtl ? as_json(x.cycle_error_pct) : "")
        << "," << as_json(x.functional_ok) << "," << as_json(x.counts_equal) << ","
        << as_json(x.passed) << ",\"" << fail << "\"," << x.harness << "," << as_json(x.sim_seconds)
        << "\n";
    }
  write_atomic(dir / "verifications.csv", v.str());
}

void print_run_summary(const RunRecord& rec, std::ostream& out) {
  const RunSettings& o = rec.settings;
  const bool rtl = o.rtl();
  const bool complete = rec.status == RunStatus::Complete;
  const std::string& dir = rec.run_dir;
  const RunSummary s = summarize(rec);
  out << "run " << rec.target << " on " << rec.arch.name << " (" << rec.arch.rows << "x"
      << rec.arch.cols << "), " << o.searcher << ", "
      << budget_phrase(o.searcher, o.budget, o.exact)
      << (o.reward == "rtl" ? " (scored on the RTL after " + std::to_string(o.surrogate_warmup) +
                                  " surrogate samples)"
                            : std::string())
      << ", objective " << o.objective << ", seed " << o.seed
      << (rtl ? ", top-" + std::to_string(o.top_k) + " verified on RTL" : ", surrogate only")
      << "\n";
  size_t longest = 0;
  for (const auto& L : rec.layers) longest = std::max(longest, L.layer.name.size());
  const size_t width = name_column_width(longest);
  out << std::left << std::setw(static_cast<int>(width)) << "layer" << std::right << std::setw(6)
      << "count" << std::setw(14) << "cycles" << std::setw(12) << "energy_uJ" << std::setw(8)
      << "util%"
      << "  chosen by / RTL checks\n";
  for (const auto& L : rec.layers) print_layer_line(L, rtl, width, out);
  out << "total: " << static_cast<long long>(s.cycles) << " cycles (" << si(s.seconds) << "s), "
      << std::fixed << std::setprecision(2) << s.energy_pj * 1e-6 << " uJ, EDP " << std::scientific
      << std::setprecision(4) << s.edp << " pJ*cycles, utilization " << std::fixed
      << std::setprecision(1) << 100 * s.utilization << " %" << std::defaultfloat << " ("
      << s.layers_done << "/" << s.layers_total << " layers)\n";
  out << "clock: " << clock_statement(rec.arch.rows, rec.arch.cols, rec.arch.clock_mhz) << "\n";
  if (rtl)
    out << "RTL: " << s.passed << " of " << s.done << " verifications passed"
        << (s.pending ? ", " + std::to_string(s.pending) + " not run" : "")
        << (s.failed ? " -- " + std::to_string(s.failed) + " FAILED (see report)" : "")
        << (s.infrastructure_failed
                ? "; " + std::to_string(s.infrastructure_failed) +
                      " of them because the RTL worker crashed (no verdict: `mapwright run "
                      "--resume --out " +
                      dir + "` runs them again)"
                : "")
        << "\n";
  if (!rec.synthesis.is_null()) {
    const double model_logic = rec.area.is_object() ? rec.area["pe_array_mm2"].get<double>() +
                                                          rec.area["control_mm2"].get<double>()
                                                    : 0.0;
    out << "architecture " << rec.arch.name << ": area model " << std::fixed << std::setprecision(3)
        << (rec.area.is_object() ? rec.area["total_mm2"].get<double>() : 0.0) << " mm^2"
        << std::defaultfloat << "; " << synth_summary(rec.synthesis, model_logic) << "\n";
  }
  out << "written to " << dir << " (report.html, results.json, layers.csv, "
      << "verifications.csv, mappings/, curves/; results store " << rec.db << ")\n";
  if (!complete) out << "interrupted: continue with `mapwright run --resume --out " << dir << "`\n";
}

}  // namespace mapwright::flows
