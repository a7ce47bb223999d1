// The summary of a run record (RunSummary): network totals from each layer's chosen mapping,
// the verification counts, and the parity of the surrogate's and the refined estimate's cycles
// with the RTL's (mean and largest error, rank correlation).
#include "mapwright/flows/run_record.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "mapwright/support/stats.hpp"

namespace mapwright::flows {

RunSummary summarize(const RunRecord& r) {
  RunSummary s;
  bool all_rtl = true;
  for (const auto& L : r.layers) {
    if (L.status != LayerStatus::Done || !L.best) continue;
    const double n = L.count;
    s.cycles += n * static_cast<double>(L.best->cycles);
    s.energy_pj += n * L.best->energy_pj;
    s.macs += n * static_cast<double>(L.layer.macs());
    all_rtl = all_rtl && L.best->chosen_by == ChosenBy::Rtl;
    ++s.layers_done;
  }
  const double pes = static_cast<double>(r.arch.rows) * r.arch.cols;
  s.seconds = s.cycles / (r.arch.clock_mhz * 1e6);
  s.edp = s.cycles * s.energy_pj;
  s.utilization = s.cycles > 0 ? s.macs / (s.cycles * pes) : 0.0;
  s.layers_total = r.layers.size();
  s.source =
      s.layers_done == 0 ? "none" : (all_rtl ? "rtl" : (r.settings.rtl() ? "mixed" : "surrogate"));
  std::vector<double> rc, sc, errs;
  for (size_t li = 0; li < r.layers.size(); ++li) {
    const auto& L = r.layers[li];
    for (size_t ci = 0; ci < L.candidates.size(); ++ci) {
      if (!r.settings.rtl()) continue;
      ++s.planned;
      const auto& c = L.candidates[ci];
      if (!c.verification) continue;
      const Verification& v = *c.verification;
      ++s.done;
      if (v.passed)
        ++s.passed;
      else
        s.failures.emplace_back(li, ci);
      if (v.kind == VerificationKind::Infrastructure) ++s.infrastructure_failed;
      if (v.rtl) {
        rc.push_back(static_cast<double>(v.rtl->cycles));
        sc.push_back(static_cast<double>(c.surrogate.cycles));
        errs.push_back(std::abs(v.cycle_error_pct));
        if (c.refined_cycles > 0 && v.rtl->cycles > 0) {
          const double e = 100.0 * std::abs(static_cast<double>(c.refined_cycles - v.rtl->cycles)) /
                           static_cast<double>(v.rtl->cycles);
          ++s.refined_n;
          s.refined_mape_pct += e;
          s.refined_max_error_pct = std::max(s.refined_max_error_pct, e);
        }
      }
    }
  }
  s.failed = s.done - s.passed;
  s.pending = s.planned - s.done;
  s.parity_n = errs.size();
  if (!errs.empty()) {
    double sum = 0;
    for (double e : errs) {
      sum += e;
      s.max_error_pct = std::max(s.max_error_pct, e);
    }
    s.mape_pct = sum / errs.size();
    if (s.refined_n) s.refined_mape_pct /= static_cast<double>(s.refined_n);
    const double rho = core::spearman(rc, sc);
    if (!std::isnan(rho)) s.spearman = rho;
  }
  return s;
}

}  // namespace mapwright::flows
