// The RTL-against-surrogate verdict (crosscheck.hpp): the counters of an RTL run beside the
// surrogate's (access counts, and on banked buffers the bank stalls the bank-conflict model
// predicts), the cycle error, pass or fail, the typed kind of a run's verification, and the
// choice of each layer's best candidate by RTL cost.
#include "verify/crosscheck.hpp"

#include <limits>

#include "mapwright/model/bank_conflicts.hpp"

namespace mapwright::flows {

namespace {

/// Counters that differ in `counters`.
int count_differing(const std::vector<CountDiff>& counters) {
  int n = 0;
  for (const CountDiff& c : counters) n += c.rtl != c.surrogate;
  return n;
}

/// The bank-stall counters of a banked architecture (Crosscheck::bank_stalls).
std::vector<CountDiff> bank_stall_counters(const core::Layer& layer, const core::Arch& arch,
                                           const core::Mapping& m, const rtl::RtlRunResult& rtl) {
  if (arch.buffer_banks <= 0) return {};
  const model::BankStalls p = model::closed_form_bank_stalls(layer, m, arch.buffer_banks);
  // The accumulator never waits for a bank on a valid mapping (core::accum_bank_problem).
  return {{"input_bank_stalls", rtl.input_bank_stalls, p.input},
          {"weight_bank_stalls", rtl.weight_bank_stalls, p.weight},
          {"accum_bank_stalls", rtl.accum_bank_stalls, 0}};
}

}  // namespace

std::vector<CountDiff> Crosscheck::differing() const {
  std::vector<CountDiff> d;
  for (const auto* list : {&counts, &bank_stalls})
    for (const CountDiff& c : *list)
      if (c.rtl != c.surrogate) d.push_back(c);
  return d;
}

double cycle_error_pct(long long rtl_cycles, long long predicted) {
  return rtl_cycles > 0 ? 100.0 * (static_cast<double>(predicted) - rtl_cycles) /
                              static_cast<double>(rtl_cycles)
                        : 0.0;
}

Crosscheck crosscheck(const core::Layer& layer, const core::Arch& arch, const core::Mapping& m,
                      const core::Metrics& surrogate, const rtl::RtlRunResult& rtl) {
  Crosscheck c;
  const auto rf = rtl.counts.fields(), sf = surrogate.counts.fields();
  for (size_t i = 0; i < rf.size(); ++i)
    c.counts.push_back({rf[i].first, rf[i].second, sf[i].second});
  c.bank_stalls = bank_stall_counters(layer, arch, m, rtl);
  c.mismatched = count_differing(c.counts) + count_differing(c.bank_stalls);
  c.cycle_error_pct = cycle_error_pct(rtl.metrics.cycles, surrogate.cycles);
  const bool completed = rtl.kind == core::RtlFailure::None;
  c.counts_equal = completed && c.mismatched == 0;
  c.passed = c.counts_equal && rtl.functional_ok;
  return c;
}

Verification verification_of(const rtl::RtlRunResult& r, const core::Layer& layer,
                             const core::Arch& arch, const core::Mapping& m,
                             const core::Metrics& surrogate, uint64_t seed) {
  Verification v;
  v.seed = seed;
  v.failure_kind = r.kind;
  v.failure = r.failure;
  v.retries = r.retries;
  v.functional_ok = r.functional_ok;
  v.mismatches = r.mismatches;
  v.sim_seconds = r.sim_seconds;
  v.harness = r.harness;
  const Crosscheck c = crosscheck(layer, arch, m, surrogate, r);
  if (r.kind == core::RtlFailure::None) {
    v.rtl = r.metrics;
    v.cycle_error_pct = c.cycle_error_pct;
    v.count_diffs = c.differing();
  }
  v.counts_equal = c.counts_equal;
  v.passed = c.passed;
  if (r.over_limit()) {
    v.predicted_cycles = r.predicted_cycles;
    v.estimated_memory_mb = r.estimated_memory_mb;
  }
  v.kind = v.passed             ? VerificationKind::Passed
           : r.infrastructure() ? VerificationKind::Infrastructure
           : r.over_limit()     ? VerificationKind::Limit
                                : VerificationKind::Design;
  return v;
}

void choose_best(LayerRecord& L, const core::Objective& obj, bool rtl) {
  const Candidate* best = nullptr;
  double best_cost = std::numeric_limits<double>::infinity();
  if (rtl) {
    for (const auto& c : L.candidates) {
      if (!c.verification || !c.verification->passed) continue;
      const double cost = obj.cost(*c.verification->rtl);
      if (cost < best_cost) {
        best_cost = cost;
        best = &c;
      }
    }
  }
  L.best.reset();
  if (best) {
    const core::Metrics& m = *best->verification->rtl;
    L.best = Choice{best->rank, ChosenBy::Rtl, best->mapping, m.cycles, m.energy_pj,
                    m.edp,      m.utilization, best_cost,     ""};
  } else if (!L.candidates.empty()) {
    const Candidate& c = L.candidates[0];
    const core::Metrics& s = c.surrogate;
    L.best = Choice{c.rank,
                    ChosenBy::Surrogate,
                    c.mapping,
                    s.cycles,
                    s.energy_pj,
                    s.edp,
                    s.utilization,
                    c.cost,
                    rtl ? "no candidate passed RTL verification; surrogate numbers" : ""};
  }
}

}  // namespace mapwright::flows
